package org.balanceroute.console.internal;

import java.util.ArrayList;
import java.util.List;
import org.balanceroute.api.PoolSnapshot;

/**
 * The last {@code capacity} samples of the router's view, oldest first, for the console's chart:
 * a bounded ring written by one sampler (about once a second) and read by any number of viewers,
 * each asking only for the samples after the last one it has ({@link #since}). Memory is bounded by
 * capacity x workers; nothing is kept per viewer. Thread-safe (a monitor: one write a second and a
 * few reads, far from any hot path).
 */
final class LoadHistory {

    /**
     * One sample: the snapshot's per-worker figures at wall-clock time {@code timeMillis}.
     *
     * @param seq 1, 2, ... in the order taken
     */
    record Sample(long seq, long timeMillis, PoolSnapshot snapshot) {

        /** max_g L_g - min_g L_g, KV tokens (0 without workers). */
        long imbalance() {
            long[] loads = snapshot.loads();
            if (loads.length == 0) {
                return 0;
            }
            long max = Long.MIN_VALUE, min = Long.MAX_VALUE;
            for (long l : loads) {
                max = Math.max(max, l);
                min = Math.min(min, l);
            }
            return max - min;
        }
    }

    private final Sample[] ring;
    private long next = 1;

    LoadHistory(int capacity) {
        if (capacity < 1) {
            throw new IllegalArgumentException("capacity must be at least 1, got " + capacity);
        }
        ring = new Sample[capacity];
    }

    int capacity() {
        return ring.length;
    }

    /** Adds a sample (the oldest falls out once full); returns it. */
    synchronized Sample add(long timeMillis, PoolSnapshot snapshot) {
        Sample s = new Sample(next, timeMillis, snapshot);
        ring[(int) ((next - 1) % ring.length)] = s;
        next++;
        return s;
    }

    /** The samples after {@code seq}, oldest first (all of those kept for {@code seq} 0 or less). */
    synchronized List<Sample> since(long seq) {
        long last = next - 1;
        if (seq >= last) {
            return List.of(); // also for Long.MAX_VALUE, where seq + 1 would wrap
        }
        long first = Math.max(Math.max(seq + 1, 1), last - ring.length + 1);
        List<Sample> out = new ArrayList<>((int) Math.max(0, last - first + 1));
        for (long s = first; s <= last; s++) {
            out.add(ring[(int) ((s - 1) % ring.length)]);
        }
        return out;
    }

    /** The newest sample, or null before the first. */
    synchronized Sample latest() {
        return next == 1 ? null : ring[(int) ((next - 2) % ring.length)];
    }
}
