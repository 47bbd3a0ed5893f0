package org.balanceroute.simulator;

import java.util.Arrays;
import java.util.List;
import org.balanceroute.api.PoolView;
import org.balanceroute.trace.TraceRequest;

/**
 * What a run counts step by step, and the paper's metrics made from it at the end (spec
 * section 7). Shared by the single-proxy loop and the replica model, so the two measure alike.
 * With several decode instances each instance's steps are counted apart (each is its own barrier
 * on its own clock) and the per-instance means summed ({@link SimulationResult}); with one the
 * figures are the single barrier's, to the bit.
 */
final class RunMetrics {

    /** Steps over every decode instance. */
    long steps;
    private long engineQueuedSteps;
    long overCapacityPlacements;
    long routerQueuedPlacements;
    // per decode instance (group), each over its own steps
    private final long[] groupSteps;
    private final double[] imbalanceSum;
    private final double[] totalImbalanceSum;
    private final double[] backloggedImbalanceSum;
    private final long[] backloggedSteps;
    private final long[] steadySteps;
    private final double[] steadyImbalanceSum;
    private final double[] steadyTokens;
    private final double[] steadySeconds;
    // the step just measured
    private int group;
    private int workers;
    private long max;
    private long min;
    private long sum;
    private int maxBatch;
    private int totalRunning;
    private boolean queued;
    private final SteadyState.Window window;

    /** @param window the steps that count for the steady-state figures */
    RunMetrics(SteadyState.Window window) {
        this(window, 1);
    }

    /** @param groups decode instances, each measured over its own steps */
    RunMetrics(SteadyState.Window window, int groups) {
        this.window = window;
        groupSteps = new long[groups];
        imbalanceSum = new double[groups];
        totalImbalanceSum = new double[groups];
        backloggedImbalanceSum = new double[groups];
        backloggedSteps = new long[groups];
        steadySteps = new long[groups];
        steadyImbalanceSum = new double[groups];
        steadyTokens = new double[groups];
        steadySeconds = new double[groups];
    }

    /**
     * Reads the engine at the start of a step of its single barrier, after dispatch.
     *
     * @return whether anything runs (else there is no step, and time jumps)
     */
    boolean measure(PoolView engine) {
        return measure(engine, 0, 0, engine.workers());
    }

    /**
     * Reads decode instance {@code group} (workers {@code start} .. start + size - 1) at the start
     * of its step, after dispatch.
     *
     * @return whether anything runs there (else the instance does not step)
     */
    boolean measure(PoolView engine, int group, int start, int size) {
        this.group = group;
        workers = size;
        max = 0;
        min = Long.MAX_VALUE;
        sum = 0;
        maxBatch = 0;
        totalRunning = 0;
        queued = false;
        for (int g = start, end = start + size; g < end; g++) {
            long l = engine.load(g);
            max = Math.max(max, l);
            min = Math.min(min, l);
            sum += l;
            maxBatch = Math.max(maxBatch, engine.running(g));
            totalRunning += engine.running(g);
            queued |= engine.queued(g) > 0;
        }
        return maxBatch > 0;
    }

    /** M of the step just measured. */
    long maxLoad() {
        return max;
    }

    /** The largest batch of the step just measured. */
    int maxBatch() {
        return maxBatch;
    }

    /**
     * Counts the step just measured.
     *
     * @param waiting whether a ready request waits outside the engine's queues (in a pool, in transit)
     * @param startS when the step starts, simulated seconds
     * @param durationS how long it lasts
     */
    void recordStep(boolean waiting, double startS, double durationS) {
        int i = group;
        if (window.contains(startS)) {
            steadySteps[i]++;
            steadyImbalanceSum[i] += max - min;
            steadyTokens[i] += totalRunning; // every running request emits one token
            steadySeconds[i] += durationS;
        }
        imbalanceSum[i] += max - min;
        totalImbalanceSum[i] += (double) workers * max - sum;
        if (waiting || queued) {
            backloggedImbalanceSum[i] += max - min;
            backloggedSteps[i]++;
        }
        if (queued) {
            engineQueuedSteps++;
        }
        groupSteps[i]++;
        steps++;
    }

    /** Per group {@code sums[i] / counts[i]} (0 without steps). */
    private static double[] means(double[] sums, long[] counts) {
        double[] m = new double[sums.length];
        for (int i = 0; i < m.length; i++) {
            m[i] = counts[i] == 0 ? 0 : sums[i] / counts[i];
        }
        return m;
    }

    private static double total(double[] v) {
        double t = 0;
        for (double x : v) {
            t += x;
        }
        return t;
    }

    private static long total(long[] v) {
        long t = 0;
        for (long x : v) {
            t += x;
        }
        return t;
    }

    SimulationResult summarize(String policy, List<TraceRequest> trace, double[] firstToken, double[] finish,
            long totalTokens) {
        int n = trace.size();
        double[] ttft = new double[n];
        double[] tpot = new double[n];
        double[] steadyTpot = new double[n];
        int tpots = 0, steadyTpots = 0;
        double firstArrival = Double.MAX_VALUE, lastFinish = 0;
        for (int i = 0; i < n; i++) {
            TraceRequest t = trace.get(i);
            firstArrival = Math.min(firstArrival, t.arrivalSeconds());
            lastFinish = Math.max(lastFinish, finish[i]);
            ttft[i] = firstToken[i] - t.arrivalSeconds();
            if (t.outputTokens() > 1) {
                tpot[tpots] = (finish[i] - firstToken[i]) / (t.outputTokens() - 1) * 1000;
                // the first token ends a step that started in the window, the last one ends before it closes
                if (firstToken[i] > window.startS() && finish[i] <= window.endS()) {
                    steadyTpot[steadyTpots++] = tpot[tpots];
                }
                tpots++;
            }
        }
        double makespan = n == 0 ? 0 : lastFinish - firstArrival;
        double[] groupImbalance = means(imbalanceSum, groupSteps);
        double[] steadyGroupImbalance = means(steadyImbalanceSum, steadySteps);
        double steadyThroughput = 0;
        for (int i = 0; i < groupSteps.length; i++) {
            steadyThroughput += steadySeconds[i] > 0 ? steadyTokens[i] / steadySeconds[i] : 0;
        }
        return new SimulationResult(policy,
                total(groupImbalance),
                total(means(totalImbalanceSum, groupSteps)),
                Percentiles.of(Arrays.copyOf(tpot, tpots), 0.95),
                makespan > 0 ? totalTokens / makespan : 0,
                Percentiles.of(ttft, 0.50),
                Percentiles.of(ttft, 0.95),
                steps, makespan, total(means(backloggedImbalanceSum, backloggedSteps)),
                totalTokens, n, total(backloggedSteps), overCapacityPlacements, routerQueuedPlacements,
                engineQueuedSteps, window.startS(), window.endS(), total(steadySteps),
                total(steadyGroupImbalance), steadyThroughput,
                Percentiles.of(Arrays.copyOf(steadyTpot, steadyTpots), 0.95), groupImbalance, steadyGroupImbalance);
    }
}
