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

    /** A worker's state: it takes new requests. */
    public static final String SERVING = "serving";
    /** An operator drains it: no new requests; some still run or wait there. */
    public static final String DRAINING = "draining";
    /** Drained: draining, nothing left on it. */
    public static final String DRAINED = "drained";
    /** Its engine fails its health checks: out of routing whatever the drain. */
    public static final String DOWN = "down";

    /** Worker g's state, as the admin API, the console and the metrics name it: {@link #DOWN}, {@link #DRAINED}, {@link #DRAINING} or {@link #SERVING}, in that precedence. */
    public String state(int worker) {
        if (!available[worker]) {
            return DOWN;
        }
        if (draining[worker]) {
            return drained(worker) ? DRAINED : DRAINING;
        }
        return SERVING;
    }

    /** Draining, with nothing left running or queued on it. */
    public boolean drained(int worker) {
        return draining[worker] && running[worker] == 0 && queued[worker] == 0;
    }

    /** One group's imbalance now: its heaviest minus its lightest load over its workers not draining. */
    public long groupImbalance(int group) {
        int from = 0;
        while (from < groups.length && groups[from] != group) {
            from++;
        }
        int to = from;
        while (to < groups.length && groups[to] == group) {
            to++;
        }
        return spread(loads, draining, from, to);
    }

    /** Each group's barrier now ({@link BarrierFigures}): a new object, measured from this snapshot. */
    public BarrierFigures barrier() {
        BarrierFigures f = new BarrierFigures();
        int n = groupCount();
        f.reset(n);
        for (int from = 0, i = 0; i < n; i++) {
            int to = from;
            while (to < groups.length && groups[to] == i) {
                to++;
            }
            f.measure(i, loads, draining, from, to);
            from = to;
        }
        return f;
    }

    /** The pool's imbalance now: the sum over its groups of {@link #groupImbalance}. */
    public long imbalance() {
        long sum = 0;
        for (int i = 0, n = groupCount(); i < n; i++) {
            sum += groupImbalance(i);
        }
        return sum;
    }

    /**
     * The imbalance rule, written once (the core's state and this snapshot use it): the heaviest
     * minus the lightest of {@code loads[from, to)} over the workers not draining; 0 when fewer
     * than two count. A group's workers are contiguous (numbered instance by instance).
     */
    public static long spread(long[] loads, boolean[] draining, int from, int to) {
        long max = Long.MIN_VALUE, min = Long.MAX_VALUE;
        for (int g = from; g < to; g++) {
            if (!draining[g]) {
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
