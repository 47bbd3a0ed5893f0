package org.balanceroute.policy.baseline;

import org.balanceroute.api.PoolView;
import org.balanceroute.api.RequestView;

/** Workers in turn, skipping unavailable ones. Cost O(1) while all are available. */
public final class RoundRobinPolicy extends ArrivalPolicy {

    public static final String NAME = "round-robin";

    private int next;

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public int route(PoolView view, RequestView request) {
        int n = view.workers();
        int g = next % n;
        for (int tries = 1; !view.available(g) && tries < n; tries++) {
            g = (g + 1) % n;
        }
        next = g + 1;
        return g;
    }
}
