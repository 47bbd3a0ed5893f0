package org.balanceroute.api;

import java.util.Arrays;
import java.util.Objects;

/**
 * An immutable copy of one router's view of its pool's decode workers, for publishing to other
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
 * @param available per worker, whether its engine is up (false: its health checks failed and
 *     the driver took it out of routing; what runs there stays)
 * @param groups per worker, its group (decode instance, one barrier); groups are numbered from 0
 *     and their workers are consecutive
 * @param capacities per worker, its B
 * @param draining per worker, whether an operator drains it (no new requests)
 */
public record PoolSnapshot(String source, long step, long capturedNanos, int capacity,
        long[] loads, int[] running, int[] queued, int poolDepth, boolean[] available,
        int[] groups, int[] capacities, boolean[] draining) {

    public PoolSnapshot {
        Objects.requireNonNull(source, "source");
        loads = loads.clone();
        running = running.clone();
        queued = queued.clone();
        available = available.clone();
        groups = groups.clone();
        capacities = capacities.clone();
        draining = draining.clone();
        int n = loads.length;
        if (running.length != n || queued.length != n || available.length != n || groups.length != n
                || capacities.length != n || draining.length != n) {
            throw new IllegalArgumentException(
                    "loads, running, queued, available, groups, capacities and draining must have one entry per worker");
        }
    }

    /** A snapshot of one group of workers of B {@code capacity}, none draining. */
    public PoolSnapshot(String source, long step, long capturedNanos, int capacity,
            long[] loads, int[] running, int[] queued, int poolDepth, boolean[] available) {
        this(source, step, capturedNanos, capacity, loads, running, queued, poolDepth, available,
                new int[loads.length], filled(loads.length, capacity), new boolean[loads.length]);
    }

    /** A snapshot in which every worker is available. */
    public PoolSnapshot(String source, long step, long capturedNanos, int capacity,
            long[] loads, int[] running, int[] queued, int poolDepth) {
        this(source, step, capturedNanos, capacity, loads, running, queued, poolDepth, allTrue(loads.length));
    }

    private static int[] filled(int n, int value) {
        int[] a = new int[n];
        Arrays.fill(a, value);
        return a;
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

    @Override
    public int[] groups() {
        return groups.clone();
    }

    @Override
    public int[] capacities() {
        return capacities.clone();
    }

    @Override
    public boolean[] draining() {
        return draining.clone();
    }

    /** The number of groups: one more than the highest group number, 1 with no worker. */
    public int groupCount() {
        return groups.length == 0 ? 1 : groups[groups.length - 1] + 1;
    }

    public int group(int worker) {
        return groups[worker];
    }

    public boolean draining(int worker) {
        return draining[worker];
    }

    /** Draining, with nothing left running or queued on it. */
    public boolean drained(int worker) {
        return draining[worker] && running[worker] == 0 && queued[worker] == 0;
    }

    /** One group's imbalance now: its heaviest minus its lightest load over its workers not draining. */
    public long groupImbalance(int group) {
        long max = Long.MIN_VALUE, min = Long.MAX_VALUE;
        for (int g = 0; g < loads.length; g++) {
            if (groups[g] == group && !draining[g]) {
                max = Math.max(max, loads[g]);
                min = Math.min(min, loads[g]);
            }
        }
        return max >= min ? max - min : 0;
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
        return o instanceof PoolSnapshot s && source.equals(s.source) && step == s.step
                && capturedNanos == s.capturedNanos && capacity == s.capacity
                && poolDepth == s.poolDepth && Arrays.equals(loads, s.loads)
                && Arrays.equals(running, s.running) && Arrays.equals(queued, s.queued)
                && Arrays.equals(available, s.available) && Arrays.equals(groups, s.groups)
                && Arrays.equals(capacities, s.capacities) && Arrays.equals(draining, s.draining);
    }

    @Override
    public int hashCode() {
        return Objects.hash(source, step, capturedNanos, capacity, poolDepth,
                Arrays.hashCode(loads), Arrays.hashCode(running), Arrays.hashCode(queued), Arrays.hashCode(available),
                Arrays.hashCode(groups), Arrays.hashCode(capacities), Arrays.hashCode(draining));
    }

    @Override
    public String toString() {
        return "PoolSnapshot[source=" + source + ", step=" + step + ", capacity=" + capacity
                + ", loads=" + Arrays.toString(loads) + ", running=" + Arrays.toString(running)
                + ", queued=" + Arrays.toString(queued) + ", poolDepth=" + poolDepth
                + ", available=" + Arrays.toString(available) + ", groups=" + Arrays.toString(groups)
                + ", capacities=" + Arrays.toString(capacities) + ", draining=" + Arrays.toString(draining) + "]";
    }
}
