package org.balanceroute.connector.vllm.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Set;
import org.eclipse.jetty.io.ArrayByteBufferPool;
import org.eclipse.jetty.io.RetainableByteBuffer;
import org.junit.jupiter.api.Test;

/** The client's network buffers: as many kept as were in use at once, within the byte bound. */
class ClientPoolsTest {

    private static final int READ_BUFFER = 16 * 1024; // HttpClient's response buffer size

    @Test
    void buffersInUseAtOnceAreAllKeptForTheNextReads() {
        ArrayByteBufferPool pool = ClientPools.buffers();
        int streams = 1024;
        Set<ByteBuffer> first = Collections.newSetFromMap(new IdentityHashMap<>());
        List<RetainableByteBuffer> inUse = new ArrayList<>();
        for (int i = 0; i < streams; i++) {
            RetainableByteBuffer b = pool.acquire(READ_BUFFER, false);
            first.add(b.getByteBuffer());
            inUse.add(b);
        }
        inUse.forEach(RetainableByteBuffer::release);
        inUse.clear();
        int reused = 0;
        for (int i = 0; i < streams; i++) {
            RetainableByteBuffer b = pool.acquire(READ_BUFFER, false);
            reused += first.contains(b.getByteBuffer()) ? 1 : 0;
            inUse.add(b);
        }
        inUse.forEach(RetainableByteBuffer::release);
        assertEquals(streams, reused, "the second round's buffers are the first round's");
    }

    @Test
    void idleBuffersStayWithinTheByteBound() {
        ArrayByteBufferPool pool = ClientPools.buffers();
        int many = (int) (ClientPools.MAX_IDLE_BUFFER_BYTES / READ_BUFFER) * 2;
        List<RetainableByteBuffer> inUse = new ArrayList<>();
        for (int i = 0; i < many; i++) {
            inUse.add(pool.acquire(READ_BUFFER, false));
        }
        inUse.forEach(RetainableByteBuffer::release);
        assertTrue(pool.getAvailableHeapMemory() <= ClientPools.MAX_IDLE_BUFFER_BYTES,
                () -> "kept " + pool.getAvailableHeapMemory() + " bytes");
    }
}
