package org.balanceroute.policy.baseline;

import org.balanceroute.api.ClusterView;
import org.balanceroute.api.RequestView;

/** Workers in turn. Cost O(1). */
public final class RoundRobinPolicy extends ArrivalPolicy {

    public static final String NAME = "round-robin";

    private int next;

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public int route(ClusterView cluster, RequestView request) {
        int g = next % cluster.workers();
        next = g + 1;
        return g;
    }
}
