package org.balanceroute.core;

/**
 * How long one decode step of a data-parallel tier lasts. The ranks meet at a barrier every
 * step, so the step is as long as its slowest rank:
 * <pre>  seconds = a * max_g L_g + b + c * max_g |A_g|</pre>
 * where {@code L_g} is rank g's KV tokens (prompt plus generated, over its running requests) and
 * {@code |A_g|} its batch. The trace simulator and the simulated engine both step by this law,
 * so what the simulator measures is what the simulated cluster runs.
 *
 * @param a seconds per KV token of the heaviest rank
 * @param b fixed seconds per step
 * @param c seconds per request of the largest batch
 */
public record StepCost(double a, double b, double c) {

    /** Seconds of a step whose heaviest rank holds {@code maxLoad} tokens and whose largest batch is {@code maxBatch}. */
    public double seconds(long maxLoad, int maxBatch) {
        return a * maxLoad + b + c * maxBatch;
    }
}
