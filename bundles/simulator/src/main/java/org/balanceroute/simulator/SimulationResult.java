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
 */
public record SimulationResult(String policy, double avgImbalance, double meanI, double tpotP95Ms,
        double throughputTokPerS, double ttftP50S, double ttftP95S, long steps, double makespanS,
        double avgImbalanceBacklogged, long outputTokens, int requests) {
}
