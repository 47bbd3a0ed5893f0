package org.balanceroute.simulator;

import java.util.Arrays;
import java.util.List;

/**
 * What one policy achieved on one trace, in the paper's metrics (spec section 7).
 *
 * @param policy policy name
 * @param avgImbalance mean over decode steps of max_g L_g - min_g L_g, in tokens
 * @param meanI mean over decode steps of I(k) = G*M - sum_g L_g, in tokens
 * @param tpotP95Ms 95th percentile over requests of time per output token after the first, in ms
 * @param throughputTokPerS output tokens per second, first arrival to last completion
 * @param ttftP50S median time to first token, including prefill and the wait in the pool
 * @param ttftP95S 95th percentile of the same
 * @param steps decode steps simulated
 * @param makespanS seconds from the first arrival to the last completion
 * @param avgImbalanceBacklogged the average imbalance over the steps where requests were waiting
 *     (in the prompt pool or a worker's queue): where routing decisions are made, without the
 *     drain at the end of a replay, when nothing is left to place
 * @param outputTokens output tokens produced
 * @param requests requests completed
 * @param backloggedSteps decode steps during which some request was ready (prefill done) and not
 *     yet running on the engine: in a pool, in transit between proxy replicas, or in a worker's queue
 * @param overCapacityPlacements placements that reached the engine on a worker with no free slot
 *     there (B running, or a queue already), so they waited in its FCFS queue
 * @param routerQueuedPlacements placements a router made onto a worker it believed full itself
 *     (arrival policies queue at a full worker by design; pool policies never do); the rest of
 *     {@code overCapacityPlacements} came from a stale view
 * @param engineQueuedSteps decode steps during which some engine worker had a non-empty queue
 * @param steadyStartS start of the steady-state window ({@link SteadyState}), simulated seconds
 * @param steadyEndS its end: the last arrival
 * @param steadySteps decode steps that started inside the window
 * @param steadyAvgImbalance the average imbalance over those steps
 * @param steadyThroughputTokPerS output tokens of those steps over their summed duration
 * @param steadyTpotP95Ms TPOT p95 over the requests whose first and last tokens came out inside it
 * @param groupImbalance per decode instance (group), the mean over its own steps of its max - min
 *     load; {@code avgImbalance} is their sum (one group: {@code {avgImbalance}})
 * @param steadyGroupImbalance the same over the steps that started in the steady window; their
 *     sum is {@code steadyAvgImbalance}
 *
 * <p>With several decode instances every per-step figure is taken per instance (each steps on its
 * own clock) and the instances' means are summed: {@code avgImbalance}, {@code meanI},
 * {@code avgImbalanceBacklogged}, {@code steadyAvgImbalance}; {@code steadyThroughputTokPerS} sums
 * each instance's tokens over its own summed step time; step counts add up over the instances.
 */
public record SimulationResult(String policy, double avgImbalance, double meanI, double tpotP95Ms,
        double throughputTokPerS, double ttftP50S, double ttftP95S, long steps, double makespanS,
        double avgImbalanceBacklogged, long outputTokens, int requests, long backloggedSteps,
        long overCapacityPlacements, long routerQueuedPlacements, long engineQueuedSteps,
        double steadyStartS, double steadyEndS, long steadySteps, double steadyAvgImbalance,
        double steadyThroughputTokPerS, double steadyTpotP95Ms, double[] groupImbalance,
        double[] steadyGroupImbalance) {

    /** One decode instance: its imbalance is the whole's. */
    public SimulationResult(String policy, double avgImbalance, double meanI, double tpotP95Ms,
            double throughputTokPerS, double ttftP50S, double ttftP95S, long steps, double makespanS,
            double avgImbalanceBacklogged, long outputTokens, int requests, long backloggedSteps,
            long overCapacityPlacements, long routerQueuedPlacements, long engineQueuedSteps,
            double steadyStartS, double steadyEndS, long steadySteps, double steadyAvgImbalance,
            double steadyThroughputTokPerS, double steadyTpotP95Ms) {
        this(policy, avgImbalance, meanI, tpotP95Ms, throughputTokPerS, ttftP50S, ttftP95S, steps, makespanS,
                avgImbalanceBacklogged, outputTokens, requests, backloggedSteps, overCapacityPlacements,
                routerQueuedPlacements, engineQueuedSteps, steadyStartS, steadyEndS, steadySteps, steadyAvgImbalance,
                steadyThroughputTokPerS, steadyTpotP95Ms, new double[] {avgImbalance},
                new double[] {steadyAvgImbalance});
    }

    /** Equal figures, the per-instance ones compared by value. */
    @Override
    public boolean equals(Object o) {
        return o instanceof SimulationResult r && scalars().equals(r.scalars())
                && Arrays.equals(groupImbalance, r.groupImbalance)
                && Arrays.equals(steadyGroupImbalance, r.steadyGroupImbalance);
    }

    @Override
    public int hashCode() {
        return 31 * scalars().hashCode() + Arrays.hashCode(groupImbalance);
    }

    @Override
    public String toString() {
        return "SimulationResult" + scalars() + " groupImbalance=" + Arrays.toString(groupImbalance)
                + " steadyGroupImbalance=" + Arrays.toString(steadyGroupImbalance);
    }

    /** Every figure but the per-instance ones, as a list (for equals, hashCode and toString). */
    private List<Object> scalars() {
        return List.of(policy, avgImbalance, meanI, tpotP95Ms, throughputTokPerS, ttftP50S, ttftP95S, steps,
                makespanS, avgImbalanceBacklogged, outputTokens, requests, backloggedSteps, overCapacityPlacements,
                routerQueuedPlacements, engineQueuedSteps, steadyStartS, steadyEndS, steadySteps, steadyAvgImbalance,
                steadyThroughputTokPerS, steadyTpotP95Ms);
    }

    /** How many decode instances the run had. */
    public int groups() {
        return groupImbalance.length;
    }
}
