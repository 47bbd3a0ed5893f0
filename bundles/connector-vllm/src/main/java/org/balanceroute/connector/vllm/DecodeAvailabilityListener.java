package org.balanceroute.connector.vllm;

import org.osgi.annotation.versioning.ConsumerType;

/**
 * Told the decode worker set (how many workers {@code decodeWorkers} lists: the one place G is
 * configured) and when a decode worker is marked down (its {@code GET /health} failed, or a decode request
 * could not connect) or up again (a health check answered 200), so that routing can eject and
 * re-admit it. Register it as an OSGi service (whiteboard): the connector calls every registered
 * listener. The router is not a dependency of the connector; whoever holds both (the proxy)
 * bridges them.
 *
 * <p>Calls come one at a time, in the order the marks change, on the connector's threads, and
 * must not block. A listener is also told every worker's state when it is registered and when
 * the decode workers are reconfigured, so it never misses the current state: first
 * {@link #decodeWorkers}, then every worker's mark.
 */
@ConsumerType
public interface DecodeAvailabilityListener {

    /**
     * The worker set: G decode workers, numbered 0..G-1 in configuration order (router worker g is
     * decode worker g). Told when the listener is registered and after every reconfiguration.
     */
    default void decodeWorkers(int count) {
    }

    /** Decode worker {@code worker} (router worker g) can take new requests ({@code true}) or not. */
    void decodeWorkerAvailable(int worker, boolean available);
}
