package org.balanceroute.connector.vllm.internal;

import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.balanceroute.connector.vllm.DecodeAvailabilityListener;
import org.balanceroute.connector.vllm.DecodeExchange;
import org.balanceroute.connector.vllm.DecodeListener;
import org.balanceroute.connector.vllm.PrefillResult;
import org.balanceroute.connector.vllm.UpstreamException;
import org.balanceroute.connector.vllm.UpstreamResponse;
import org.balanceroute.connector.vllm.VllmConnector;
import org.balanceroute.fleet.Fleet;
import org.balanceroute.fleet.FleetListener;
import org.balanceroute.fleet.FleetService;
import org.balanceroute.fleet.PoolTopology;
import org.eclipse.jetty.client.AbstractConnectionPool;
import org.eclipse.jetty.client.Destination;
import org.eclipse.jetty.client.HttpClient;
import org.eclipse.jetty.util.thread.QueuedThreadPool;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Deactivate;
import org.osgi.service.component.annotations.Modified;
import org.osgi.service.component.annotations.Reference;
import org.osgi.service.component.annotations.ReferenceCardinality;
import org.osgi.service.component.annotations.ReferencePolicy;
import org.osgi.service.metatype.annotations.Designate;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The vLLM / vllm-ascend connector over one Jetty 12 {@link HttpClient} (started at activation,
 * stopped at deactivation; answers read as they arrive, never a thread per stream), in the
 * three pieces a request meets: the {@link PrefillClient} (least-loaded instance, retries, the
 * in-flight budget and its queue, co-located mode), the {@link DecodeClient} (the decode hop,
 * its event stream scanned in place, {@link DecodeStream}) and the {@link HealthMonitor} (the
 * endpoints in force, their marks, the availability listeners).
 *
 * <p>Configuration changes apply live (endpoints, key, timeouts, retries, budget, health period;
 * requests in flight and queued prefills finish where they are; an endpoint kept keeps its
 * mark); the connection pool sizes and the connect timeout apply at the next activation. An
 * invalid configuration is logged naming the property, and the previous one (at first
 * activation, the defaults) stays in force.
 */
@Component(service = {VllmConnector.class, FleetListener.class}, name = VllmConnector.PID,
        configurationPid = VllmConnector.PID)
@Designate(ocd = ConnectorConfig.class)
public final class VllmConnectorComponent implements VllmConnector, FleetListener {

    private static final Logger LOG = LoggerFactory.getLogger(VllmConnectorComponent.class);
    /** How often a stopping connector looks whether its exchanges ended. */
    private static final long DRAIN_POLL_MILLIS = 20;

    private final HttpClient client;
    private final ScheduledExecutorService scheduler;
    private final HealthMonitor health;
    private final PrefillClient prefills;
    private final DecodeClient decodes;

    /** The pool's topology from the start; {@link #fleetChanged} follows its changes. */
    @Activate
    public VllmConnectorComponent(ConnectorConfig config, @Reference(name = "fleet") FleetService fleet) throws Exception {
        this(settingsOrDefaults(config).withPool(served(fleet.fleet())));
        Thread t = new Thread(() -> {
            try {
                ConnectorWarmUp.run(ConnectorWarmUp.EVENTS);
            } catch (Exception | LinkageError e) {
                LOG.warn("{}: the warm-up failed (the first requests will be slower): {}", PID, e.toString());
            }
        }, "balanceroute-connector-warm-up");
        t.setDaemon(true);
        t.setPriority(Thread.MIN_PRIORITY);
        t.start();
    }

    /** A connector without a framework (tests): starts its HTTP client and health checks. */
    public VllmConnectorComponent(ConnectorSettings settings) throws Exception {
        // Few threads: nothing run from the client's callbacks blocks (in-place SSE scan,
        // non-blocking servlet writes, queues to the router), so more threads than cores only
        // add idle-poll contention and wake-ups (the default pool grew to ~200 at 64 streams).
        int cores = Runtime.getRuntime().availableProcessors();
        QueuedThreadPool threads = new QueuedThreadPool(Math.max(8, 4 * cores), Math.max(2, cores));
        threads.setName("balanceroute-connector");
        threads.setDaemon(true);
        client = new HttpClient();
        client.setExecutor(threads);
        client.setConnectTimeout(settings.connectTimeoutMillis());
        client.setMaxConnectionsPerDestination(settings.maxConnectionsPerEndpoint());
        client.setMaxRequestsQueuedPerDestination(settings.maxQueuedPerEndpoint());
        client.setFollowRedirects(false);
        // heap buffers: the SSE scanner reads the bytes where they are, as an array
        client.setUseInputDirectByteBuffers(false);
        client.start();
        scheduler = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "balanceroute-connector-scheduler");
            t.setDaemon(true);
            return t;
        });
        health = new HealthMonitor(client, scheduler, settings);
        prefills = new PrefillClient(client, scheduler);
        decodes = new DecodeClient(client, scheduler, health);
        health.schedule(settings.healthIntervalMillis());
    }

    private static ConnectorSettings settingsOrDefaults(ConnectorConfig config) {
        try {
            return ConnectorSettings.from(config);
        } catch (IllegalArgumentException e) {
            LOG.error("{}: invalid configuration, the defaults apply: {}", PID, e.getMessage());
            return ConnectorSettings.defaults();
        }
    }

    @Modified
    void modified(ConnectorConfig config) {
        try {
            ConnectorSettings s = ConnectorSettings.from(config);
            health.reconfigure(s.withPool(health.endpoints().settings.pool()));
        } catch (IllegalArgumentException e) {
            LOG.error("{}: invalid configuration, the previous one stays in force: {}", PID, e.getMessage());
        }
    }

    /**
     * The topology changed: the pool's engines in force from now on (requests in flight finish
     * where they are; an endpoint kept keeps its mark).
     */
    @Override
    public void fleetChanged(Fleet fleet) {
        PoolTopology pool = served(fleet);
        if (!pool.equals(health.endpoints().settings.pool())) {
            health.reconfigure(health.endpoints().settings.withPool(pool));
            LOG.info("{}: pool {}: {} prefill instance(s){}, {} decode worker(s) in {} instance(s)", PID, pool.name(),
                    pool.prefillUrls().size(), pool.prefillUrls().isEmpty() ? " (co-located mode)" : "",
                    pool.workers().size(), pool.instances().size());
        }
    }

    /** The pool this connector serves ({@link Fleet#primaryPool}); none while there is none. */
    static PoolTopology served(Fleet fleet) {
        PoolTopology p = fleet.primaryPool();
        return p == null ? ConnectorSettings.NO_POOL : p;
    }

    /**
     * Stops: the health checks at once, then, once the exchanges in flight ended (or after
     * {@code drainMillis}), the HTTP client, which fails what still runs (the proxy ends those
     * streams with an in-band error). Nothing new comes meanwhile: the framework unbound this
     * connector from the proxy before deactivating it, and the proxy holds new requests.
     */
    @Deactivate
    public void close() {
        scheduler.shutdownNow();
        drain(health.endpoints().settings.drainMillis());
        try {
            client.stop();
        } catch (Exception e) {
            LOG.warn("{}: stopping the HTTP client: {}", PID, e.toString());
        }
    }

    private void drain(long millis) {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(millis);
        int open;
        while ((open = inFlight()) > 0 && System.nanoTime() - deadline < 0) {
            try {
                Thread.sleep(DRAIN_POLL_MILLIS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                break;
            }
        }
        if (open > 0) {
            LOG.warn("{}: {} exchange(s) still in flight after drainMillis = {} ms: stopping the HTTP client fails them",
                    PID, open, millis);
        }
    }

    /** Connections carrying an exchange (each open stream and prefill holds one), and the prefills queued for a slot. */
    private int inFlight() {
        int n = prefillQueued();
        for (Destination d : client.getDestinations()) {
            if (d.getConnectionPool() instanceof AbstractConnectionPool p) {
                n += p.getActiveConnectionCount();
            }
        }
        return n;
    }

    /** Registers a listener (whiteboard) and tells it every decode worker's current mark. */
    @Reference(name = "availabilityListener", cardinality = ReferenceCardinality.MULTIPLE,
            policy = ReferencePolicy.DYNAMIC, unbind = "removeAvailabilityListener")
    public void addAvailabilityListener(DecodeAvailabilityListener listener) {
        health.addListener(listener);
    }

    public void removeAvailabilityListener(DecodeAvailabilityListener listener) {
        health.removeListener(listener);
    }

    @Override
    public int decodeWorkers() {
        return health.endpoints().decode.size();
    }

    @Override
    public int prefillInstances() {
        return health.endpoints().prefill.size();
    }

    @Override
    public boolean decodeHealthy(int worker) {
        return health.endpoints().decodeDown.get(worker) == 0;
    }

    @Override
    public boolean prefillHealthy(int instance) {
        return health.endpoints().prefillDown.get(instance) == 0;
    }

    @Override
    public int prefillInFlight(int instance) {
        PrefillSlots slots = health.endpoints().prefillSlots;
        return slots == null ? 0 : slots.inFlight(instance);
    }

    @Override
    public int prefillQueued() {
        PrefillSlots slots = health.endpoints().prefillSlots;
        return slots == null ? 0 : slots.queued();
    }

    @Override
    public CompletableFuture<PrefillResult> prefill(String requestId, String path, ObjectNode clientBody) {
        Endpoints ep = health.endpoints();
        if (ep.decode.isEmpty()) {
            // before the fleet told the pool: not co-located mode, no engine known yet
            return CompletableFuture.failedFuture(new UpstreamException(503, null,
                    "no decode worker known yet: the pool's topology has not reached the connector", null));
        }
        return prefills.prefill(ep, requestId, path, clientBody);
    }

    @Override
    public DecodeExchange decode(String requestId, int worker, String path, ObjectNode clientBody,
            ObjectNode kvTransferParams, DecodeListener listener) {
        return decodes.decode(health.endpoints(), requestId, worker, path, clientBody, kvTransferParams, listener);
    }

    @Override
    public CompletableFuture<UpstreamResponse> getFromFirstDecode(String path) {
        return decodes.getFromFirst(health.endpoints(), path);
    }

    @Override
    public java.util.List<String> pools() {
        return java.util.List.of(poolName());
    }

    @Override
    public VllmConnector pool(String name) {
        return name.equals(poolName()) ? this : null;
    }

    @Override
    public String poolName() {
        return health.endpoints().settings.pool().name();
    }
}
