package org.balanceroute.router.internal;

import java.util.Arrays;
import org.balanceroute.router.ReplicasStatus;

/**
 * The last {@value #SIZE} staleness samples of the shared view, in nanoseconds: written by the
 * dispatch thread, summarised on demand (rarely: an operator's request, a scrape).
 */
final class StalenessSamples {

    static final int SIZE = 1024;

    private final long[] samples = new long[SIZE];
    private int next;
    private int count;

    void record(long nanos) {
        samples[next] = Math.max(0, nanos);
        next = (next + 1) % SIZE;
        count = Math.min(SIZE, count + 1);
    }

    void clear() {
        next = 0;
        count = 0;
    }

    ReplicasStatus.Staleness summary() {
        if (count == 0) {
            return ReplicasStatus.Staleness.NONE;
        }
        long[] sorted = Arrays.copyOf(samples, count);
        Arrays.sort(sorted);
        return new ReplicasStatus.Staleness(count, millis(sorted[quantile(count, 0.50)]),
                millis(sorted[quantile(count, 0.99)]), millis(sorted[count - 1]));
    }

    /** The nearest-rank quantile's index. */
    private static int quantile(int n, double q) {
        return Math.min(n - 1, Math.max(0, (int) Math.ceil(q * n) - 1));
    }

    private static double millis(long nanos) {
        return nanos / 1e6;
    }
}
