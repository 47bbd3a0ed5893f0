package org.balanceroute.connector.vllm.internal;

import org.eclipse.jetty.client.AbstractConnectionPool;
import org.eclipse.jetty.client.Destination;
import org.eclipse.jetty.util.ConcurrentPool;

/**
 * The HTTP client's connections to one engine endpoint, searched from where the last search
 * stopped instead of from the first. Each decode stream holds its connection for the whole
 * answer, so at a few thousand streams an endpoint has hundreds of connections, nearly all busy.
 * Jetty's default pool ({@code DuplexConnectionPool}) scans them from the first on every request:
 * a cost per request that grows with the streams (8% of the runtime's samples at 4,096). Streams
 * end roughly in the order they began, so the connections just past the last one taken are the
 * oldest taken and the likeliest free: a round-robin search finds one in a few steps.
 */
final class OldestFirstConnectionPool extends AbstractConnectionPool {

    OldestFirstConnectionPool(Destination destination, int maxConnections) {
        super(destination, () -> new ConcurrentPool<>(ConcurrentPool.StrategyType.ROUND_ROBIN, maxConnections), 1);
    }
}
