package org.balanceroute.router;

import org.balanceroute.api.BarrierFigures;
import org.osgi.annotation.versioning.ConsumerType;

/**
 * Whiteboard hook of the router's dispatch thread (e.g. the metrics bundle): register a service
 * of this type and the router calls it after every dispatch step. Optional: without one, the
 * router measures nothing.
 *
 * <p>Called on the dispatch thread, so it must be quick, must not block and should not allocate:
 * add to counters and histograms, nothing more. An exception it throws is ignored.
 */
@ConsumerType
public interface DispatchObserver {

    /**
     * One dispatch step ran.
     *
     * @param durationNanos how long the step took on the dispatch thread (the policy's placement
     *     decisions and their bookkeeping), in nanoseconds
     * @param imbalance the pool's imbalance in KV tokens after the step: the sum over its decode
     *     instances (DP groups, one barrier each) of each one's {@code max L_g - min L_g} over its
     *     workers not draining (one instance: the classic {@code max_g L_g - min_g L_g})
     * @param poolDepth requests left in the prompt pool after the step
     */
    void stepCompleted(long durationNanos, long imbalance, int poolDepth);

    /**
     * One dispatch step ran, with each decode instance's imbalance: the one the router calls. The
     * default passes on to {@link #stepCompleted(long, long, int)}; an observer that reports per
     * instance (e.g. a gauge labelled by instance) overrides this one.
     *
     * @param imbalance the sum of {@code groupImbalances}
     * @param groupImbalances per instance i of the layout in force (in layout order), its heaviest
     *     minus its lightest worker's KV load after the step, over its workers not draining (0 when
     *     fewer than two count); the router's own array, reused step after step and resized when the
     *     layout changes: read it during the call, never keep or change it
     */
    default void stepCompleted(long durationNanos, long imbalance, int poolDepth, long[] groupImbalances) {
        stepCompleted(durationNanos, imbalance, poolDepth);
    }

    /**
     * One dispatch step of pool {@code pool}'s router ran: the one the router calls. The default
     * passes on to {@link #stepCompleted(long, long, int, long[])}; an observer that labels by pool
     * overrides this one. Calls for different pools never overlap (the router serializes them).
     */
    default void stepCompleted(String pool, long durationNanos, long imbalance, int poolDepth, long[] groupImbalances) {
        stepCompleted(durationNanos, imbalance, poolDepth, groupImbalances);
    }

    /**
     * One dispatch step ran, with each decode instance's barrier after it (idle capacity, wasted
     * fraction, straggler): the one the router calls. The default passes on to
     * {@link #stepCompleted(long, long, int, long[])} with the imbalances.
     *
     * @param barrier the router's own figures, reused step after step: read them during the call,
     *     never keep or change them
     */
    default void stepCompleted(long durationNanos, int poolDepth, BarrierFigures barrier) {
        stepCompleted(durationNanos, barrier.imbalance(), poolDepth, barrier.imbalances());
    }

    /**
     * One dispatch step of pool {@code pool}'s router ran, with each decode instance's barrier after
     * it. The default passes on to {@link #stepCompleted(String, long, long, int, long[])}; an
     * observer that reports the barrier's cost overrides this one. Calls for different pools never
     * overlap.
     */
    default void stepCompleted(String pool, long durationNanos, int poolDepth, BarrierFigures barrier) {
        stepCompleted(pool, durationNanos, barrier.imbalance(), poolDepth, barrier.imbalances());
    }
}
