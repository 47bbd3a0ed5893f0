package org.balanceroute.policy.example;

import org.balanceroute.api.ClusterView;
import org.balanceroute.api.RequestView;
import org.balanceroute.api.RoutingPolicy;
import org.osgi.service.component.annotations.Component;

/**
 * An example of a policy shipped in its own bundle, to show the hot-deploy workflow: dropped
 * into {@code deploy/}, it registers as {@code least-running} and can be selected through
 * {@code PUT /admin/policy}; removed while active, the router falls back. The rule itself is
 * deliberately simple: the worker with the fewest running requests, at arrival (ties: lowest
 * index). It ignores queued requests and KV load, so it is no better than jsq.
 */
@Component(service = RoutingPolicy.class, property = RoutingPolicy.NAME_PROPERTY + "=" + LeastRunningPolicy.NAME)
public final class LeastRunningPolicy implements RoutingPolicy {

    public static final String NAME = "least-running";

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public boolean usesPromptPool() {
        return false;
    }

    @Override
    public int route(ClusterView cluster, RequestView request) {
        int best = 0;
        for (int g = 1; g < cluster.workers(); g++) {
            if (cluster.running(g) < cluster.running(best)) {
                best = g;
            }
        }
        return best;
    }
}
