package org.balanceroute.connector.vllm.internal;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;
import org.balanceroute.connector.vllm.DecodeAvailabilityListener;
import org.balanceroute.connector.vllm.VllmConnector;
import org.balanceroute.fleet.Endpoint;
import org.balanceroute.fleet.PoolTopology;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The registered {@link DecodeAvailabilityListener}s, shared by every pool's {@link HealthMonitor},
 * and the one lock under which they are told anything: this object's monitor. Every method but
 * {@link #remove} must be called holding it. One lock for all pools keeps the listeners' contract
 * (calls one at a time) across pools, and each pool's calls in order, since a pool's addition,
 * reconfiguration, mark changes and removal are all told, and put in force, under it. Only health
 * transitions, topology and configuration changes and registrations take it, never a request, so
 * holding it while listeners (which must not block) are called costs the hot path nothing.
 */
final class AvailabilityListeners {

    private static final Logger LOG = LoggerFactory.getLogger(AvailabilityListeners.class);

    /** Copy-on-write: a listener may be unregistered (without the lock) while others are told. */
    private final List<DecodeAvailabilityListener> listeners = new CopyOnWriteArrayList<>();

    /** Registers a listener and tells it the layout and marks of every pool given. */
    void add(DecodeAvailabilityListener listener, Iterable<Endpoints> pools) {
        listeners.add(listener);
        for (Endpoints ep : pools) {
            tellAll(ep, listener);
        }
    }

    void remove(DecodeAvailabilityListener listener) {
        listeners.remove(listener);
    }

    /** A pool's layout, then every decode worker's mark, to every listener. */
    void tellAll(Endpoints ep) {
        for (DecodeAvailabilityListener l : listeners) {
            tellAll(ep, l);
        }
    }

    void tellMark(String pool, int worker, boolean up) {
        for (DecodeAvailabilityListener l : listeners) {
            tell(l, x -> x.decodeWorkerAvailable(pool, worker, up));
        }
    }

    void tellRemoved(String pool) {
        for (DecodeAvailabilityListener l : listeners) {
            tell(l, x -> x.poolRemoved(pool));
        }
    }

    private static void tellAll(Endpoints ep, DecodeAvailabilityListener l) {
        PoolTopology pool = ep.settings.pool();
        List<String> workers = ep.decode.stream().map(Endpoint::id).toList();
        tell(l, x -> x.decodeLayout(pool.name(), workers, pool.groupSizes(), pool.capacities()));
        for (int g = 0; g < ep.decodeDown.length(); g++) {
            int worker = g;
            tell(l, x -> x.decodeWorkerAvailable(pool.name(), worker, ep.decodeDown.get(worker) == 0));
        }
    }

    /** One call; a listener that throws is logged, and the others are still told. */
    private static void tell(DecodeAvailabilityListener l, Consumer<DecodeAvailabilityListener> call) {
        try {
            call.accept(l);
        } catch (RuntimeException e) {
            LOG.warn("{}: availability listener {} failed: {}", VllmConnector.PID, l, e.toString());
        }
    }
}
