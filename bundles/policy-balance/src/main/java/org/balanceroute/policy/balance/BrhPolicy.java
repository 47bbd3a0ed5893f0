package org.balanceroute.policy.balance;

import java.util.Objects;
import org.balanceroute.api.ClusterView;
import org.balanceroute.api.DispatchStep;
import org.balanceroute.api.RequestView;
import org.balanceroute.api.RoutingPolicy;
import org.balanceroute.api.TerminationPredictor;

/**
 * BR-H: the {@link TwoStageDispatcher} with the {@link HorizonScore}, whose projection comes
 * from a termination predictor. Named after its predictor ({@code brh-survival},
 * {@code brh-exact}, {@code brh-oracle}).
 */
public final class BrhPolicy implements RoutingPolicy {

    public static final String NAME_PREFIX = "brh-";

    private final String name;
    private final TwoStageDispatcher dispatcher;

    /**
     * @param predictorLabel the suffix of the policy name, e.g. {@code survival}
     * @param predictor shared with whoever trains it; called from the dispatch loop only
     */
    public BrhPolicy(String predictorLabel, BalanceSettings settings, TerminationPredictor predictor) {
        this.name = NAME_PREFIX + Objects.requireNonNull(predictorLabel, "predictorLabel");
        this.dispatcher = new TwoStageDispatcher(settings, new HorizonScore(settings, predictor));
    }

    @Override
    public String name() {
        return name;
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
