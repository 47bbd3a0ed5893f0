package org.balanceroute.policy.baseline;

import java.util.random.RandomGenerator;
import org.balanceroute.api.PoolView;
import org.balanceroute.api.RequestView;

/** Uniformly random available worker. Cost O(1) while all are available, else O(G). */
public final class RandomPolicy extends ArrivalPolicy {

    public static final String NAME = "random";

    private final RandomGenerator random;

    /** @param random seeded by the caller, so runs are reproducible */
    public RandomPolicy(RandomGenerator random) {
        this.random = random;
    }

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public int route(PoolView view, RequestView request) {
        return nthAvailable(view, random.nextInt(Math.max(1, view.availableWorkers())));
    }
}
