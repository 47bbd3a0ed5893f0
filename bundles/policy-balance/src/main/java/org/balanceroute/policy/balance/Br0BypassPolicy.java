package org.balanceroute.policy.balance;

import org.balanceroute.api.PoolView;
import org.balanceroute.api.RequestView;
import org.balanceroute.api.RoutingPolicy;

/** BR-0's pool-bypass path as a policy of its own: per-request F-score routing on arrival. */
public final class Br0BypassPolicy implements RoutingPolicy {

    public static final String NAME = "br0-bypass";

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public boolean usesPromptPool() {
        return false;
    }

    @Override
    public int route(PoolView view, RequestView request) {
        return ArrivalFScore.route(view, request);
    }
}
