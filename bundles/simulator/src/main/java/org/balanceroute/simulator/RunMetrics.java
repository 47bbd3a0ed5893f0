package org.balanceroute.simulator;

import java.util.Arrays;
import java.util.List;
import org.balanceroute.api.ClusterView;
import org.balanceroute.trace.TraceRequest;

/**
 * What a run counts step by step, and the paper's metrics made from it at the end (spec
 * section 7). Shared by the single-proxy loop and the replica model, so the two measure alike.
 */
final class RunMetrics {

    long steps;
    private double imbalanceSum;
    private double totalImbalanceSum;
    private double backloggedImbalanceSum;
    private long backloggedSteps;
    private long engineQueuedSteps;
    long overCapacityPlacements;
    long routerQueuedPlacements;
    private int workers;
    private long max;
    private long min;
    private long sum;
    private int maxBatch;
    private int totalRunning;
    private boolean queued;
    private final SteadyState.Window window;
    private long steadySteps;
    private double steadyImbalanceSum;
    private double steadyTokens;
    private double steadySeconds;

    /** @param window the steps that count for the steady-state figures */
    RunMetrics(SteadyState.Window window) {
        this.window = window;
    }

    /**
     * Reads the engine at the start of a step, after dispatch.
     *
     * @return whether anything runs (else there is no step, and time jumps)
     */
    boolean measure(ClusterView engine) {
        workers = engine.workers();
        max = 0;
        min = Long.MAX_VALUE;
        sum = 0;
        maxBatch = 0;
        totalRunning = 0;
        queued = false;
        for (int g = 0; g < workers; g++) {
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
        if (window.contains(startS)) {
            steadySteps++;
            steadyImbalanceSum += max - min;
            steadyTokens += totalRunning; // every running request emits one token
            steadySeconds += durationS;
        }
        imbalanceSum += max - min;
        totalImbalanceSum += (double) workers * max - sum;
        if (waiting || queued) {
            backloggedImbalanceSum += max - min;
            backloggedSteps++;
        }
        if (queued) {
            engineQueuedSteps++;
        }
        steps++;
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
        return new SimulationResult(policy,
                steps == 0 ? 0 : imbalanceSum / steps,
                steps == 0 ? 0 : totalImbalanceSum / steps,
                Percentiles.of(Arrays.copyOf(tpot, tpots), 0.95),
                makespan > 0 ? totalTokens / makespan : 0,
                Percentiles.of(ttft, 0.50),
                Percentiles.of(ttft, 0.95),
                steps, makespan, backloggedSteps == 0 ? 0 : backloggedImbalanceSum / backloggedSteps,
                totalTokens, n, backloggedSteps, overCapacityPlacements, routerQueuedPlacements,
                engineQueuedSteps, window.startS(), window.endS(), steadySteps,
                steadySteps == 0 ? 0 : steadyImbalanceSum / steadySteps,
                steadySeconds > 0 ? steadyTokens / steadySeconds : 0,
                Percentiles.of(Arrays.copyOf(steadyTpot, steadyTpots), 0.95));
    }
}
