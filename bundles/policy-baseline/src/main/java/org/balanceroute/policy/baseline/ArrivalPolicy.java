package org.balanceroute.policy.baseline;

import java.util.function.IntToLongFunction;
import org.balanceroute.api.RoutingPolicy;

/** Shared shape of the baselines: they route on arrival and never use the prompt pool. */
abstract class ArrivalPolicy implements RoutingPolicy {

    @Override
    public final boolean usesPromptPool() {
        return false;
    }

    @Override
    public String toString() {
        return name();
    }

    /** The worker with the smallest key; ties go to the lowest index (what a min-heap scan does). */
    static int argMin(int workers, IntToLongFunction key) {
        int best = 0;
        long bestKey = key.applyAsLong(0);
        for (int g = 1; g < workers; g++) {
            long k = key.applyAsLong(g);
            if (k < bestKey) {
                best = g;
                bestKey = k;
            }
        }
        return best;
    }
}
