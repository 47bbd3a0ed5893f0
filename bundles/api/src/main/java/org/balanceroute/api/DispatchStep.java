package org.balanceroute.api;

import org.osgi.annotation.versioning.ProviderType;

/**
 * One decode step's dispatch: the cluster, the prompt pool, and the only way to change them.
 * Each {@link #assign} takes effect at once (loads, free slots and the pool are updated before
 * it returns), so a policy making several assignments in one step sees each one's effect.
 */
@ProviderType
public interface DispatchStep {

    ClusterView cluster();

    PromptPoolView pool();

    /**
     * Moves the request at pool position {@code poolIndex} to worker {@code worker}. Later pool
     * positions shift down by one.
     *
     * @throws IllegalArgumentException if the index or the worker is out of range, or the
     *     worker has no free slot
     */
    void assign(int poolIndex, int worker);
}
