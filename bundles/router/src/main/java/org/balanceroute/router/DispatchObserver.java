package org.balanceroute.router;

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
     * @param imbalance {@code max_g L_g - min_g L_g} in KV tokens after the step
     * @param poolDepth requests left in the prompt pool after the step
     */
    void stepCompleted(long durationNanos, long imbalance, int poolDepth);
}
