package org.balanceroute.proxy.internal;

import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Byte arrays of the sizes 1 KiB, 2 KiB ... 64 KiB, handed back when a client stream ended and
 * taken again by the next one. Why: each stream's buffer grows by doubling while its writes are
 * in flight, and lives as long as its request (seconds at a few thousand streams). Allocated
 * anew per request, those arrays survived the young collections, were promoted and died old:
 * at 4,096 streams they were 42% of the runtime's allocation, and the collector's copying and
 * mixed collections made the relay's CPU per token grow with the streams. Recycled, they stay
 * in the old generation and are only overwritten (bytes: no reference stores, no card marks).
 *
 * <p>Not Jetty's {@code ArrayByteBufferPool}: its buckets keep the entries in use too and are
 * scanned entry by entry, which costs per take what thousands of open streams hold. Here a
 * queue per size holds only free arrays; a take is one poll. The pool keeps at most
 * {@code keepBytes} of free arrays; beyond that, arrays handed back are left to the collector.
 *
 * <p>Threading: any thread; lock-free (the JDK's {@link ConcurrentLinkedQueue}).
 */
final class ByteArrayPool {

    static final int SMALLEST = 1024;
    static final int LARGEST = 64 * 1024;
    private static final int SHIFT = Integer.numberOfTrailingZeros(SMALLEST);
    private static final int SIZES = Integer.numberOfTrailingZeros(LARGEST) - SHIFT + 1;

    private final long keepBytes;
    private final AtomicLong kept = new AtomicLong();
    @SuppressWarnings("unchecked")
    private final ConcurrentLinkedQueue<byte[]>[] free = new ConcurrentLinkedQueue[SIZES];

    /** A pool keeping at most {@code keepBytes} of free arrays (0: none, every take allocates). */
    ByteArrayPool(long keepBytes) {
        this.keepBytes = keepBytes;
        for (int i = 0; i < SIZES; i++) {
            free[i] = new ConcurrentLinkedQueue<>();
        }
    }

    /** An array of at least {@code size} bytes: a power of two from 1 KiB when it is at most 64 KiB. Its content is undefined. */
    byte[] take(int size) {
        if (size > LARGEST) {
            return new byte[size];
        }
        int index = index(size);
        byte[] a = free[index].poll();
        if (a == null) {
            return new byte[SMALLEST << index];
        }
        kept.addAndGet(-a.length);
        return a;
    }

    /** Hands an array back: the caller never touches it again. One of another size, or beyond the bound, is dropped. */
    void give(byte[] a) {
        int n = a.length;
        if (n < SMALLEST || n > LARGEST || Integer.bitCount(n) != 1) {
            return;
        }
        if (kept.addAndGet(n) > keepBytes) {
            kept.addAndGet(-n);
            return;
        }
        free[index(n)].offer(a);
    }

    /** Bytes of free arrays held now (tests, metrics). */
    long keptBytes() {
        return kept.get();
    }

    private static int index(int size) {
        int rounded = size <= SMALLEST ? SMALLEST : Integer.highestOneBit(size - 1) << 1;
        return Integer.numberOfTrailingZeros(rounded) - SHIFT;
    }
}
