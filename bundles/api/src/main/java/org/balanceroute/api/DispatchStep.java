package org.balanceroute.api;

import org.osgi.annotation.versioning.ProviderType;

/**
 * One decode step's dispatch: the pool's workers ({@link #view()}), the prompt pool, and the only
 * way to change them. Each {@link #assign} takes effect at once (loads, free slots and the pool
 * are updated before it returns), so a policy making several assignments in one step sees each
 * one's effect.
 */
@ProviderType
public interface DispatchStep {

    PoolView view();

    PromptPoolView pool();

    /**
     * Moves the request at pool position {@code poolIndex} to worker {@code worker}. Later pool
     * positions shift down by one.
     *
     * @throws IllegalArgumentException if the index or the worker is out of range, or the
     *     worker has no free slot
     */
    void assign(int poolIndex, int worker);

    /**
     * Moves the request at pool position {@code poolIndex} to worker {@code worker} though it may
     * have no free slot: it waits in the worker's FCFS queue for the next slot to free (admission
     * against a slot a running request is predicted to free soon). Later pool positions shift
     * down by one. This default refuses: only the core's dispatch view queues.
     *
     * @throws IllegalArgumentException if the index or the worker is out of range, or the
     *     worker is not available
     * @throws UnsupportedOperationException if this view cannot queue
     */
    default void assignQueued(int poolIndex, int worker) {
        throw new UnsupportedOperationException("this dispatch step cannot queue on a worker");
    }
}
