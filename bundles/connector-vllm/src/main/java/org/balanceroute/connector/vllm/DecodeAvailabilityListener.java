package org.balanceroute.connector.vllm;

import java.util.List;

import org.osgi.annotation.versioning.ConsumerType;

/**
 * Told, pool by pool, the decode layout (the pool's decode workers and the instances they form, as the fleet's
 * topology gives them) and when a decode worker is marked down (its {@code GET /health} failed,
 * or a decode request could not connect) or up again (a health check answered 200), so that
 * routing can eject and re-admit it. Register it as an OSGi service (whiteboard): the connector
 * calls every registered listener. The router is not a dependency of the connector; whoever
 * holds both (the proxy) bridges them.
 *
 * <p>Calls come one at a time (over all pools), in the order the marks change, on the connector's
 * threads, and must not block. A listener is also told every pool's state when it is registered,
 * and a pool's when the pool is added or its topology changes, so it never misses the current
 * state: first the pool's {@link #decodeLayout}, then every worker's mark (worker indices are
 * those of the pool's layout told last).
 */
@ConsumerType
public interface DecodeAvailabilityListener {

    /**
     * The decode workers in router order (their identities, {@code URL} or {@code URL;rank=N}) and
     * the instances they form: instance i is the next {@code groupSizes[i]} workers, of B
     * {@code capacities[i]}. Told when the listener is registered and after every topology change.
     */
    default void decodeLayout(String pool, List<String> workers, int[] groupSizes, int[] capacities) {
    }

    /** Decode worker {@code worker} of pool {@code pool} (its router's worker g) can take new requests ({@code true}) or not. */
    void decodeWorkerAvailable(String pool, int worker, boolean available);

    /** Pool {@code pool} is no longer connected (removed from the topology); told once. */
    default void poolRemoved(String pool) {
    }
}
