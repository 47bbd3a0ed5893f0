package org.balanceroute.simulator;

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
 */
public record SimulationResult(String policy, double avgImbalance, double meanI, double tpotP95Ms,
        double throughputTokPerS, double ttftP50S, double ttftP95S, long steps, double makespanS,
        double avgImbalanceBacklogged, long outputTokens, int requests, long backloggedSteps,
        long overCapacityPlacements, long routerQueuedPlacements, long engineQueuedSteps,
        double steadyStartS, double steadyEndS, long steadySteps, double steadyAvgImbalance,
        double steadyThroughputTokPerS, double steadyTpotP95Ms) {
}
