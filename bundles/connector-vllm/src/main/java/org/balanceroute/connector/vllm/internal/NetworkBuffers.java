package org.balanceroute.connector.vllm.internal;

import org.eclipse.jetty.io.ArrayByteBufferPool;

/**
 * The HTTP client's pool of network buffers (the buffers engine answers are read into). Jetty's
 * default holds at most half the client's threads per buffer size: 4 with the connector's 8
 * threads, while hundreds of answers are read at once. Nearly every read then missed the pool and
 * allocated a new 16 KiB buffer, a fifth of the runtime's allocation at 1,024 streams. Here a size
 * holds as many buffers as a few thousand streams use, bounded in bytes.
 */
final class NetworkBuffers {

    /** Buffers kept per size: one per stream of a few thousand read at the same moment. */
    static final int PER_SIZE = 4096;
    /** Heap kept in idle buffers at most: 4,096 of the client's 16 KiB read buffers. */
    static final long MAX_IDLE_BYTES = 64L << 20;

    private NetworkBuffers() {
    }

    /** Jetty's own bucket layout (2 KiB steps up to 64 KiB), larger buckets. */
    static ArrayByteBufferPool pool() {
        return new ArrayByteBufferPool(0, 2048, 65536, PER_SIZE, MAX_IDLE_BYTES, MAX_IDLE_BYTES);
    }
}
