package org.balanceroute.policy.baseline;

import java.util.function.IntToLongFunction;
import org.balanceroute.api.PoolView;
import org.balanceroute.api.RoutingPolicy;

/**
 * Shared shape of the baselines: they route on arrival, never use the prompt pool, and skip
 * workers that are not {@link PoolView#available} (the router calls them only while one is).
 */
abstract class ArrivalPolicy implements RoutingPolicy {

    @Override
    public final boolean usesPromptPool() {
        return false;
    }

    @Override
    public String toString() {
        return name();
    }

    /** The available worker with the smallest key; ties go to the lowest index (what a min-heap scan does). */
    static int argMin(PoolView view, IntToLongFunction key) {
        int best = -1;
        long bestKey = Long.MAX_VALUE;
        for (int g = 0, n = view.workers(); g < n; g++) {
            if (view.available(g)) {
                long k = key.applyAsLong(g);
                if (best < 0 || k < bestKey) {
                    best = g;
                    bestKey = k;
                }
            }
        }
        return Math.max(best, 0);
    }

    /**
     * The worker with index {@code i} among the available ones, 0 &lt;= i &lt; availableWorkers():
     * {@code i} itself while every worker is available (O(1)), else an O(G) scan.
     */
    static int nthAvailable(PoolView view, int i) {
        int n = view.workers();
        if (view.availableWorkers() == n) {
            return i;
        }
        for (int g = 0, seen = 0; g < n; g++) {
            if (view.available(g) && seen++ == i) {
                return g;
            }
        }
        return 0;
    }
}
