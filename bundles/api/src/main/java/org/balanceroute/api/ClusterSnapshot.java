package org.balanceroute.api;

import java.util.Arrays;
import java.util.Objects;

/**
 * An immutable copy of one router's view of the decode cluster, for publishing to other
 * proxy replicas and to operators. Arrays are copied in and out.
 *
 * @param source the proxy replica that published it
 * @param step decode step index at capture
 * @param capturedNanos router clock at capture
 * @param capacity B
 * @param loads L_g per worker
 * @param running running requests per worker
 * @param queued requests queued at each worker
 * @param poolDepth requests waiting in the prompt pool
 * @param available per worker, whether it takes new requests (false: its health checks failed and
 *     the driver took it out of routing; what runs there stays)
 */
public record ClusterSnapshot(String source, long step, long capturedNanos, int capacity,
        long[] loads, int[] running, int[] queued, int poolDepth, boolean[] available) {

    public ClusterSnapshot {
        Objects.requireNonNull(source, "source");
        loads = loads.clone();
        running = running.clone();
        queued = queued.clone();
        available = available.clone();
        if (running.length != loads.length || queued.length != loads.length || available.length != loads.length) {
            throw new IllegalArgumentException("loads, running, queued and available must have one entry per worker");
        }
    }

    /** A snapshot in which every worker is available. */
    public ClusterSnapshot(String source, long step, long capturedNanos, int capacity,
            long[] loads, int[] running, int[] queued, int poolDepth) {
        this(source, step, capturedNanos, capacity, loads, running, queued, poolDepth, allTrue(loads.length));
    }

    private static boolean[] allTrue(int n) {
        boolean[] a = new boolean[n];
        Arrays.fill(a, true);
        return a;
    }

    public int workers() {
        return loads.length;
    }

    @Override
    public long[] loads() {
        return loads.clone();
    }

    @Override
    public int[] running() {
        return running.clone();
    }

    @Override
    public int[] queued() {
        return queued.clone();
    }

    @Override
    public boolean[] available() {
        return available.clone();
    }

    public long load(int worker) {
        return loads[worker];
    }

    public long maxLoad() {
        long max = 0;
        for (long l : loads) {
            max = Math.max(max, l);
        }
        return max;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof ClusterSnapshot s && source.equals(s.source) && step == s.step
                && capturedNanos == s.capturedNanos && capacity == s.capacity
                && poolDepth == s.poolDepth && Arrays.equals(loads, s.loads)
                && Arrays.equals(running, s.running) && Arrays.equals(queued, s.queued)
                && Arrays.equals(available, s.available);
    }

    @Override
    public int hashCode() {
        return Objects.hash(source, step, capturedNanos, capacity, poolDepth,
                Arrays.hashCode(loads), Arrays.hashCode(running), Arrays.hashCode(queued), Arrays.hashCode(available));
    }

    @Override
    public String toString() {
        return "ClusterSnapshot[source=" + source + ", step=" + step + ", capacity=" + capacity
                + ", loads=" + Arrays.toString(loads) + ", running=" + Arrays.toString(running)
                + ", queued=" + Arrays.toString(queued) + ", poolDepth=" + poolDepth
                + ", available=" + Arrays.toString(available) + "]";
    }
}
