package org.balanceroute.policy.balance;

import org.balanceroute.api.ClusterView;
import org.balanceroute.api.DispatchStep;
import org.balanceroute.api.RequestView;
import org.balanceroute.api.RoutingPolicy;

/**
 * BR-0: the {@link TwoStageDispatcher} with the one-step {@link FScore}. Requests wait in the
 * prompt pool and are placed once per decode step. {@link #route} is the pool-bypass rule,
 * used when the pool is disabled.
 */
public final class Br0Policy implements RoutingPolicy {

    public static final String NAME = "br0";

    private final TwoStageDispatcher dispatcher;

    public Br0Policy(BalanceSettings settings) {
        this.dispatcher = new TwoStageDispatcher(settings, new Br0Score());
    }

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public boolean usesPromptPool() {
        return true;
    }

    @Override
    public int route(ClusterView cluster, RequestView request) {
        return ArrivalFScore.route(cluster, request);
    }

    @Override
    public void dispatch(DispatchStep step) {
        dispatcher.dispatch(step);
    }
}
