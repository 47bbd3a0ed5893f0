package org.balanceroute.connector.vllm.internal;

import org.balanceroute.fleet.Endpoint;

import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.function.Consumer;
import org.balanceroute.connector.vllm.VllmConnector;
import org.eclipse.jetty.client.HttpClient;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One pool's endpoints in force and their health: every {@code healthIntervalMillis} each
 * endpoint's {@code GET /health} (with the rank header for a pinned worker); {@code
 * healthFailureThreshold} failures in a row (or one refused connection) mark it down (logged once
 * per transition, with the last failure), a 200 back up; a decode request refused at connect marks its
 * worker down at once ({@link #markDecode}). Decode marks are told to the
 * {@link AvailabilityListeners}, under their lock, which only health transitions, topology and
 * configuration changes take, never a request. Nothing fails when no engine runs: the checks only
 * mark endpoints down. {@link #stop} ends it when the pool leaves the topology.
 */
final class HealthMonitor {

    private static final Logger LOG = LoggerFactory.getLogger(HealthMonitor.class);

    private final HttpClient client;
    private final ScheduledExecutorService scheduler;
    private final AvailabilityListeners listeners;
    private volatile Endpoints endpoints;
    /** The pool left the topology: no check, no mark, nothing told any more. */
    private volatile boolean stopped;
    private ScheduledFuture<?> checks;

    /** A pool's monitor: its listeners are told nothing, and no check runs, before {@link #schedule}. */
    HealthMonitor(HttpClient client, ScheduledExecutorService scheduler, AvailabilityListeners listeners,
            ConnectorSettings settings) {
        this.client = client;
        this.scheduler = scheduler;
        this.listeners = listeners;
        this.endpoints = new Endpoints(settings, null);
    }

    /** The endpoints in force (read once per request: a reconfiguration does not move a request). */
    Endpoints endpoints() {
        return endpoints;
    }

    /** Whether the pool left the topology. */
    boolean stopped() {
        return stopped;
    }

    /** Puts a new configuration in force, keeping the marks of the endpoints it shares, and tells the listeners. */
    void reconfigure(ConnectorSettings s) {
        synchronized (listeners) {
            Endpoints next = new Endpoints(s, endpoints);
            endpoints = next;
            listeners.tellAll(next);
        }
        schedule(s.healthIntervalMillis());
    }

    /**
     * Tells the listeners the pool is gone, after which they hear nothing more of it, and stops
     * the checks; requests in flight run on.
     */
    void stop() {
        synchronized (listeners) {
            stopped = true; // set before the checks are cancelled: a concurrent schedule() then schedules nothing
            listeners.tellRemoved(endpoints.settings.pool().name());
        }
        synchronized (this) {
            if (checks != null) {
                checks.cancel(false);
            }
        }
    }

    /** (Re)starts the periodic checks, the first one now. */
    synchronized void schedule(long intervalMillis) {
        if (checks != null) {
            checks.cancel(false);
        }
        if (stopped) {
            return;
        }
        try {
            checks = scheduler.scheduleWithFixedDelay(this::checkAll, 0, intervalMillis, TimeUnit.MILLISECONDS);
        } catch (RuntimeException closing) {
            LOG.debug("{}: health checks not scheduled: {}", VllmConnector.PID, closing.toString());
        }
    }

    private void checkAll() {
        Endpoints ep = endpoints;
        ConnectorSettings s = ep.settings;
        String pool = s.pool().name();
        long timeout = Math.max(100, Math.min(2_000, s.healthIntervalMillis()));
        int threshold = s.healthFailureThreshold();
        for (int i = 0; i < ep.prefill.size(); i++) {
            int index = i;
            check(new Endpoint(ep.prefill.get(i), -1), s, timeout, c -> {
                Boolean up = verdict(ep.prefillFailures, index, c, threshold);
                if (up != null) {
                    mark(ep.prefillDown, index, up, "pool " + pool + ": prefill instance " + index + " ("
                            + ep.prefill.get(index) + ")", c.why);
                }
            });
        }
        for (int g = 0; g < ep.decode.size(); g++) {
            int worker = g;
            long sent = System.nanoTime();
            check(ep.decode.get(g), s, timeout, c -> {
                Boolean up = verdict(ep.decodeFailures, worker, c, threshold);
                if (up != null) {
                    markDecode(ep, worker, up, sent, "health check: " + c.why);
                }
            });
        }
    }

    /** One check's outcome: a 200, or why not (refused: the connection was refused). */
    record Check(boolean ok, boolean refused, String why) {
    }

    private void check(Endpoint w, ConnectorSettings s, long timeout, Consumer<Check> outcome) {
        try {
            UpstreamGet.send(client, "GET", w, "/health", s, timeout)
                    .whenComplete((r, e) -> outcome.accept(e != null
                            ? new Check(false, refusedAtConnect(e), e.toString())
                            : new Check(r.status() == 200, false, "status " + r.status())));
        } catch (RuntimeException e) {
            outcome.accept(new Check(false, false, e.toString()));
        }
    }

    /** Whether nothing listened: the connection was refused (a decode request's, or a check's). */
    static boolean refusedAtConnect(Throwable t) {
        for (Throwable c = t; c != null; c = c.getCause()) {
            if (c instanceof java.net.ConnectException) {
                return true;
            }
        }
        return false;
    }

    /**
     * Up on a 200 (the failures in a row forgotten); down once {@code threshold} checks in a row
     * failed, or at once when the connection was refused (nothing listens: no reason to wait);
     * null: failed, but not enough times yet.
     */
    static Boolean verdict(AtomicIntegerArray failures, int index, Check c, int threshold) {
        if (c.ok) {
            failures.set(index, 0);
            return Boolean.TRUE;
        }
        int inARow = failures.incrementAndGet(index);
        return c.refused || inARow >= threshold ? Boolean.FALSE : null;
    }

    /**
     * A decode worker's mark, told to the listeners before it is set: whoever sees the new mark
     * (a test, {@code /health}) knows the router has been told. Marks of a replaced configuration
     * or a removed pool are dropped, and so is evidence older than the mark's own: a health check
     * sent before a decode was refused must not bring the worker back when its answer comes in after.
     *
     * @param observedAt when the evidence was gathered (a check: when it was sent), nanoTime
     */
    void markDecode(Endpoints ep, int worker, boolean up, long observedAt, String why) {
        synchronized (listeners) {
            if (stopped || ep != endpoints || (ep.decodeDown.get(worker) == 0) == up
                    || observedAt - ep.decodeMarkedAt[worker] < 0) {
                return;
            }
            ep.decodeMarkedAt[worker] = observedAt;
            listeners.tellMark(ep.settings.pool().name(), worker, up);
            ep.decodeDown.set(worker, up ? 0 : 1);
        }
        LOG.info("pool {}: decode worker {} ({}) is {}", ep.settings.pool().name(), worker, ep.decode.get(worker).id(),
                up ? "up: back in routing" : "down (" + why + "): out of routing");
    }

    private static void mark(AtomicIntegerArray down, int index, boolean up, String what, String why) {
        int was = down.getAndSet(index, up ? 0 : 1);
        if (was == 1 && up) {
            LOG.info("{} is up", what);
        } else if (was == 0 && !up) {
            LOG.info("{} is down (health check failed: {})", what, why);
        }
    }
}
