package org.balanceroute.benchmarks;

/** The router's prompt-pool depth sampled over a run's window (GET /admin/snapshot): mean, max, misses. */
final class PoolSamples {
    private long sum;
    private int count;
    private int max = -1;
    private int failed;

    synchronized void sample(int depth) {
        if (depth < 0) {
            failed++;
            return;
        }
        sum += depth;
        count++;
        max = Math.max(max, depth);
    }

    synchronized double mean() {
        return count == 0 ? Double.NaN : (double) sum / count;
    }

    synchronized int max() {
        return max;
    }

    synchronized int failed() {
        return failed;
    }
}
