package org.balanceroute.connector.vllm.internal;

import org.balanceroute.fleet.Endpoint;
import org.balanceroute.fleet.PoolTopology;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.function.Consumer;
import org.balanceroute.connector.vllm.DecodeAvailabilityListener;
import org.balanceroute.connector.vllm.VllmConnector;
import org.eclipse.jetty.client.HttpClient;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The endpoints in force and their health: every {@code healthIntervalMillis} each endpoint's
 * {@code GET /health} (with the rank header for a pinned worker); a failure marks it down (logged
 * once per transition), a 200 back up; a decode request refused at connect marks its worker
 * down at once ({@link #markDecode}). Decode marks are told to every registered
 * {@link DecodeAvailabilityListener}, serially under a small lock that only health transitions
 * and reconfigurations take, never a request. Nothing fails when no engine runs: the checks only
 * mark endpoints down.
 */
final class HealthMonitor {

    private static final Logger LOG = LoggerFactory.getLogger(HealthMonitor.class);

    private final HttpClient client;
    private final ScheduledExecutorService scheduler;
    private final List<DecodeAvailabilityListener> listeners = new CopyOnWriteArrayList<>();
    /** Serialises decode health transitions and what listeners are told, so they hear them in order. */
    private final Object lock = new Object();
    private volatile Endpoints endpoints;
    private ScheduledFuture<?> checks;

    HealthMonitor(HttpClient client, ScheduledExecutorService scheduler, ConnectorSettings settings) {
        this.client = client;
        this.scheduler = scheduler;
        this.endpoints = new Endpoints(settings, null);
    }

    /** The endpoints in force (read once per request: a reconfiguration does not move a request). */
    Endpoints endpoints() {
        return endpoints;
    }

    /** Puts a new configuration in force, keeping the marks of the endpoints it shares, and tells the listeners. */
    void reconfigure(ConnectorSettings s) {
        synchronized (lock) {
            Endpoints next = new Endpoints(s, endpoints);
            endpoints = next;
            for (DecodeAvailabilityListener l : listeners) {
                tellAll(next, l);
            }
        }
        schedule(s.healthIntervalMillis());
    }

    /** Registers a listener and tells it every decode worker's current mark. */
    void addListener(DecodeAvailabilityListener listener) {
        synchronized (lock) {
            listeners.add(listener);
            tellAll(endpoints, listener);
        }
    }

    void removeListener(DecodeAvailabilityListener listener) {
        listeners.remove(listener);
    }

    /** (Re)starts the periodic checks, the first one now. */
    synchronized void schedule(long intervalMillis) {
        if (checks != null) {
            checks.cancel(false);
        }
        try {
            checks = scheduler.scheduleWithFixedDelay(this::checkAll, 0, intervalMillis, TimeUnit.MILLISECONDS);
        } catch (RuntimeException stopped) {
            LOG.debug("{}: health checks not scheduled: {}", VllmConnector.PID, stopped.toString());
        }
    }

    private void checkAll() {
        Endpoints ep = endpoints;
        ConnectorSettings s = ep.settings;
        long timeout = Math.max(100, Math.min(2_000, s.healthIntervalMillis()));
        for (int i = 0; i < ep.prefill.size(); i++) {
            int index = i;
            check(new Endpoint(ep.prefill.get(i), -1), s, timeout,
                    up -> mark(ep.prefillDown, index, up, "prefill instance " + index + " (" + ep.prefill.get(index) + ")"));
        }
        for (int g = 0; g < ep.decode.size(); g++) {
            int worker = g;
            long sent = System.nanoTime();
            check(ep.decode.get(g), s, timeout, up -> markDecode(ep, worker, up, sent, "health check"));
        }
    }

    private void check(Endpoint w, ConnectorSettings s, long timeout, Consumer<Boolean> outcome) {
        try {
            UpstreamGet.send(client, "GET", w, "/health", s, timeout)
                    .whenComplete((r, e) -> outcome.accept(e == null && r.status() == 200));
        } catch (RuntimeException e) {
            outcome.accept(false);
        }
    }

    /**
     * A decode worker's mark, told to the listeners before it is set: whoever sees the new mark
     * (a test, {@code /health}) knows the router has been told. Marks of a replaced configuration
     * are dropped, and so is evidence older than the mark's own: a health check sent before a
     * decode was refused must not bring the worker back when its answer comes in after.
     *
     * @param observedAt when the evidence was gathered (a check: when it was sent), nanoTime
     */
    void markDecode(Endpoints ep, int worker, boolean up, long observedAt, String why) {
        synchronized (lock) {
            if (ep != endpoints || (ep.decodeDown.get(worker) == 0) == up || observedAt - ep.decodeMarkedAt[worker] < 0) {
                return;
            }
            ep.decodeMarkedAt[worker] = observedAt;
            for (DecodeAvailabilityListener l : listeners) {
                tell(l, ep.settings.pool().name(), worker, up);
            }
            ep.decodeDown.set(worker, up ? 0 : 1);
        }
        LOG.info("decode worker {} ({}) is {}", worker, ep.decode.get(worker).id(),
                up ? "up: back in routing" : "down (" + why + "): out of routing");
    }

    /** Every decode worker's mark, to one listener (under the lock). */
    private static void tellAll(Endpoints ep, DecodeAvailabilityListener l) {
        try {
            PoolTopology pool = ep.settings.pool();
            l.decodeLayout(pool.name(), ep.decode.stream().map(Endpoint::id).toList(), pool.groupSizes(), pool.capacities());
        } catch (RuntimeException e) {
            LOG.warn("{}: availability listener {} failed: {}", VllmConnector.PID, l, e.toString());
        }
        for (int g = 0; g < ep.decodeDown.length(); g++) {
            tell(l, ep.settings.pool().name(), g, ep.decodeDown.get(g) == 0);
        }
    }

    private static void tell(DecodeAvailabilityListener l, String pool, int worker, boolean up) {
        try {
            l.decodeWorkerAvailable(pool, worker, up);
        } catch (RuntimeException e) {
            LOG.warn("{}: availability listener {} failed: {}", VllmConnector.PID, l, e.toString());
        }
    }

    private static void mark(AtomicIntegerArray down, int index, boolean up, String what) {
        int was = down.getAndSet(index, up ? 0 : 1);
        if (was == 1 && up) {
            LOG.info("{} is up", what);
        } else if (was == 0 && !up) {
            LOG.info("{} is down (health check failed)", what);
        }
    }
}
