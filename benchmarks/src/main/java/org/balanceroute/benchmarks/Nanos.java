package org.balanceroute.benchmarks;

/** Figures of times in nanoseconds ({@link System#nanoTime()} differences): percentiles, mean, milliseconds. */
final class Nanos {

    private Nanos() {
    }

    /** Nearest-rank percentile of a sorted array; 0 when empty. */
    static long pct(long[] sorted, double p) {
        if (sorted.length == 0) {
            return 0;
        }
        int rank = (int) Math.ceil(p / 100.0 * sorted.length);
        return sorted[Math.max(0, Math.min(sorted.length - 1, rank - 1))];
    }

    static long mean(long[] a) {
        long s = 0;
        for (long v : a) {
            s += v;
        }
        return a.length == 0 ? 0 : s / a.length;
    }

    static double ms(long nanos) {
        return nanos / 1e6;
    }
}
