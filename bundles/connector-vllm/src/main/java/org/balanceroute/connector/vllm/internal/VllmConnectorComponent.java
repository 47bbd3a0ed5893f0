package org.balanceroute.connector.vllm.internal;

import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.balanceroute.connector.vllm.DecodeAvailabilityListener;
import org.balanceroute.connector.vllm.DecodeExchange;
import org.balanceroute.connector.vllm.DecodeListener;
import org.balanceroute.connector.vllm.PrefillResult;
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
import org.balanceroute.api.config.ConfigProperties;
import org.balanceroute.api.config.ConfigurationException;
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
 * its event stream scanned in place, {@link DecodeStream}) and the pool's {@link HealthMonitor}
 * (the endpoints in force, their marks, told to the {@link AvailabilityListeners}).
 *
 * <p>One {@link PoolConnector} per pool of the fleet's topology, each with its own
 * {@link HealthMonitor} (endpoints, marks, prefill budget, checks); the HTTP client, its threads,
 * the scheduler, the two clients (stateless: a request carries its pool's endpoints), the
 * listeners and the settings are shared. This component's own {@link VllmConnector} methods act on the primary pool
 * ({@link Fleet#primaryPool()}).
 *
 * <p>Configuration changes apply live, to every pool (key, timeouts, retries, budget, health
 * period; requests in flight and queued prefills finish where they are; an endpoint kept keeps
 * its mark); the connection pool sizes and the connect timeout apply at the next activation. An
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

    /** The pools connected by name, their names (both sorted), and the primary one ({@link #none} if none). */
    private record Connected(Map<String, PoolConnector> byName, List<String> names, PoolConnector primary) {
    }

    private final HttpClient client;
    private final ScheduledExecutorService scheduler;
    private final PrefillClient prefills;
    private final DecodeClient decodes;
    /** Also the lock under which pools are added, changed and removed, and settings applied. */
    private final AvailabilityListeners listeners = new AvailabilityListeners();
    /** What the primary pool's methods act on while no pool is connected: no engine. */
    private final PoolConnector none;
    /** The settings every pool shares (their pool: none); written under the listeners' lock. */
    private volatile ConnectorSettings settings;
    /** Replaced whole under the listeners' lock; a request reads it once, without a lock. */
    private volatile Connected connected;

    /** The fleet's pools from the start; {@link #fleetChanged} follows its changes. */
    /** @throws ConfigurationException if the configuration is invalid (the activation fails) */
    @Activate
    public VllmConnectorComponent(Map<String, Object> properties, @Reference(name = "fleet") FleetService fleet)
            throws Exception {
        this(ConnectorSettings.from(ConfigProperties.of(PID, properties)));
        fleetChanged(fleet.fleet());
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

    /**
     * A connector without a framework (tests): starts its HTTP client and connects the pool the
     * settings name, if any ({@link #fleetChanged} connects others).
     */
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
        client.setByteBufferPool(ClientPools.buffers());
        client.setConnectTimeout(settings.connectTimeoutMillis());
        client.setMaxConnectionsPerDestination(settings.maxConnectionsPerEndpoint());
        client.getTransport().setConnectionPoolFactory(
                destination -> ClientPools.connections(destination, client.getMaxConnectionsPerDestination()));
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
        prefills = new PrefillClient(client, scheduler);
        decodes = new DecodeClient(client, scheduler);
        this.settings = settings.withPool(ConnectorSettings.NO_POOL);
        none = newPool(ConnectorSettings.NO_POOL);
        connected = new Connected(Map.of(), List.of(), none);
        if (!settings.pool().equals(ConnectorSettings.NO_POOL)) {
            fleetChanged(new Fleet(Map.of(settings.pool().name(), settings.pool())));
        }
    }

    private PoolConnector newPool(PoolTopology pool) {
        return new PoolConnector(this, new HealthMonitor(client, scheduler, listeners, settings.withPool(pool)),
                prefills, decodes);
    }

    /** The new settings, in force in every pool. */
    @Modified
    void modified(Map<String, Object> properties) {
        ConfigProperties.readUpdate(PID, properties, ConnectorSettings::from,
                e -> LOG.error("invalid configuration, the previous one stays in force: {}", e.getMessage()))
                .ifPresent(this::apply);
    }

    private void apply(ConnectorSettings s) {
        synchronized (listeners) {
            settings = s;
            for (PoolConnector c : connected.byName().values()) {
                c.health.reconfigure(s.withPool(c.topology()));
            }
        }
    }

    /**
     * The topology changed. A pool added gets its connector (the listeners are told its layout and
     * marks, then its checks start); a pool changed has its engines in force from now on (requests
     * in flight finish where they are; an endpoint kept keeps its mark); a pool removed has its
     * checks stopped and the listeners told, and its exchanges in flight run to their end.
     */
    @Override
    public void fleetChanged(Fleet fleet) {
        synchronized (listeners) {
            Connected was = connected;
            for (PoolConnector c : was.byName().values()) {
                if (fleet.pool(c.poolName()) == null) {
                    c.health.stop();
                    LOG.info("{}: pool {} removed: its health checks stopped, its exchanges in flight run to their end",
                            PID, c.poolName());
                }
            }
            Map<String, PoolConnector> next = new TreeMap<>();
            List<PoolConnector> added = new ArrayList<>();
            for (PoolTopology p : fleet.pools()) {
                PoolConnector c = was.byName().get(p.name());
                if (c == null) {
                    c = newPool(p);
                    added.add(c);
                    logPool(p, "added");
                } else if (!p.equals(c.topology())) {
                    c.health.reconfigure(settings.withPool(p));
                    logPool(p, "changed");
                }
                next.put(p.name(), c);
            }
            PoolTopology primary = fleet.primaryPool();
            connected = new Connected(Collections.unmodifiableMap(next), List.copyOf(next.keySet()),
                    primary == null ? none : next.get(primary.name()));
            for (PoolConnector c : added) {
                listeners.tellAll(c.health.endpoints());
                c.health.schedule(settings.healthIntervalMillis());
            }
        }
    }

    private static void logPool(PoolTopology pool, String what) {
        LOG.info("{}: pool {} {}: {} prefill instance(s){}, {} decode worker(s) in {} instance(s)", PID, pool.name(),
                what, pool.prefillUrls().size(), pool.prefillUrls().isEmpty() ? " (co-located mode)" : "",
                pool.workers().size(), pool.instances().size());
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
        drain(settings.drainMillis());
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

    /**
     * Connections carrying an exchange (each open stream and prefill holds one, whatever its pool,
     * removed ones too), and the prefills queued for a slot in the pools connected.
     */
    private int inFlight() {
        int n = 0;
        for (PoolConnector c : connected.byName().values()) {
            n += c.prefillQueued();
        }
        for (Destination d : client.getDestinations()) {
            if (d.getConnectionPool() instanceof AbstractConnectionPool p) {
                n += p.getActiveConnectionCount();
            }
        }
        return n;
    }

    /** Registers a listener (whiteboard) and tells it every pool's layout and decode marks. */
    @Reference(name = "availabilityListener", cardinality = ReferenceCardinality.MULTIPLE,
            policy = ReferencePolicy.DYNAMIC, unbind = "removeAvailabilityListener")
    public void addAvailabilityListener(DecodeAvailabilityListener listener) {
        synchronized (listeners) {
            listeners.add(listener, connected.byName().values().stream().map(c -> c.health.endpoints()).toList());
        }
    }

    public void removeAvailabilityListener(DecodeAvailabilityListener listener) {
        listeners.remove(listener);
    }

    @Override
    public int decodeWorkers() {
        return connected.primary().decodeWorkers();
    }

    @Override
    public int prefillInstances() {
        return connected.primary().prefillInstances();
    }

    @Override
    public String decodeWorker(int worker) {
        return connected.primary().decodeWorker(worker);
    }

    @Override
    public boolean decodeHealthy(int worker) {
        return connected.primary().decodeHealthy(worker);
    }

    @Override
    public boolean prefillHealthy(int instance) {
        return connected.primary().prefillHealthy(instance);
    }

    @Override
    public int prefillInFlight(int instance) {
        return connected.primary().prefillInFlight(instance);
    }

    @Override
    public int prefillQueued() {
        return connected.primary().prefillQueued();
    }

    @Override
    public CompletableFuture<PrefillResult> prefill(String requestId, String path, ObjectNode clientBody) {
        return connected.primary().prefill(requestId, path, clientBody);
    }

    @Override
    public DecodeExchange decode(String requestId, String worker, String path, ObjectNode clientBody,
            ObjectNode kvTransferParams, DecodeListener listener) {
        return connected.primary().decode(requestId, worker, path, clientBody, kvTransferParams, listener);
    }

    @Override
    public CompletableFuture<UpstreamResponse> getFromFirstDecode(String path) {
        return connected.primary().getFromFirstDecode(path);
    }

    @Override
    public List<String> pools() {
        return connected.names();
    }

    @Override
    public VllmConnector pool(String name) {
        return connected.byName().get(Objects.requireNonNull(name, "pool name"));
    }

    @Override
    public String poolName() {
        return connected.primary().poolName();
    }
}
