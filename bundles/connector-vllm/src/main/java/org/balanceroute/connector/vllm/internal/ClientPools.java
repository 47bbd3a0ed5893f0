package org.balanceroute.connector.vllm.internal;

import org.eclipse.jetty.client.Destination;
import org.eclipse.jetty.client.RoundRobinConnectionPool;
import org.eclipse.jetty.io.ArrayByteBufferPool;

/**
 * The connector's HTTP client pools, sized for a few thousand streams where Jetty's defaults are
 * sized for a few.
 */
final class ClientPools {

    /** Network buffers kept per size: one per stream of a few thousand read at the same moment. */
    static final int BUFFERS_PER_SIZE = 4096;
    /** Heap kept in idle network buffers at most: 4,096 of the client's 16 KiB read buffers. */
    static final long MAX_IDLE_BUFFER_BYTES = 64L << 20;

    private ClientPools() {
    }

    /**
     * The buffers engine answers are read into. Jetty's default pool holds at most half the
     * client's threads per buffer size: 4 with the connector's 8 threads, while hundreds of answers
     * are read at once, so nearly every read allocated a new 16 KiB buffer (a fifth of the
     * runtime's allocation at 1,024 streams). Jetty's bucket layout (2 KiB steps up to 64 KiB),
     * larger buckets, bounded in bytes.
     */
    static ArrayByteBufferPool buffers() {
        return new ArrayByteBufferPool(0, 2048, 65536, BUFFERS_PER_SIZE, MAX_IDLE_BUFFER_BYTES, MAX_IDLE_BUFFER_BYTES);
    }

    /**
     * One endpoint's connections, searched from where the last search stopped. Each decode stream
     * holds its connection for the whole answer, so at a few thousand streams an endpoint has
     * hundreds, nearly all busy; Jetty's default ({@code DuplexConnectionPool}) scans them from the
     * first on every request (8% of the runtime's samples at 4,096 streams). Streams end roughly in
     * the order they began, so the connections just past the last one taken are the likeliest free.
     * Jetty's round-robin pool also turns on {@code maximizeConnections} (open connections while
     * requests queue, to spread load over them); a stream holds its connection anyway, so the
     * connector keeps the other pools' default and opens one only when none is free.
     */
    static RoundRobinConnectionPool connections(Destination destination, int maxConnections) {
        RoundRobinConnectionPool pool = new RoundRobinConnectionPool(destination, maxConnections);
        pool.setMaximizeConnections(false);
        return pool;
    }
}
