package org.balanceroute.policy.balance;

import java.util.Objects;
import org.balanceroute.api.DispatchStep;
import org.balanceroute.api.PoolView;
import org.balanceroute.api.RequestView;
import org.balanceroute.api.RoutingPolicy;
import org.balanceroute.api.TerminationPredictor;

/**
 * BR-0 and BR-H: requests wait in the prompt pool and the {@link TwoStageDispatcher} places them
 * once per decode step, maximising the one-step {@link FScore} (BR-0) or the
 * {@link HorizonScore} fed by a termination predictor (BR-H, named after its predictor:
 * {@code brh-survival}, {@code brh-exact}, {@code brh-oracle}). {@link #route} is the
 * pool-bypass rule, used when the pool is disabled.
 */
public final class BalancePolicy implements RoutingPolicy {

    public static final String BR0 = "br0";
    public static final String BRH_PREFIX = "brh-";
    /** BR-H with the survival predictor. */
    public static final String BRH_SURVIVAL = BRH_PREFIX + "survival";
    /** BR-H with the exact-match predictor. */
    public static final String BRH_EXACT = BRH_PREFIX + "exact";
    /** BR-H with the true output lengths (the simulator's oracle, an upper bound). */
    public static final String BRH_ORACLE = BRH_PREFIX + "oracle";

    private final String name;
    private final TwoStageDispatcher dispatcher;

    private BalancePolicy(String name, TwoStageDispatcher dispatcher) {
        this.name = name;
        this.dispatcher = dispatcher;
    }

    public static BalancePolicy br0(BalanceSettings settings) {
        return new BalancePolicy(BR0, new TwoStageDispatcher(settings, new Br0Score()));
    }

    /**
     * @param predictorLabel the suffix of the policy name, e.g. {@code survival}
     * @param predictor shared with whoever trains it; called from the dispatch loop only
     */
    public static BalancePolicy brh(String predictorLabel, BalanceSettings settings, TerminationPredictor predictor) {
        return new BalancePolicy(BRH_PREFIX + Objects.requireNonNull(predictorLabel, "predictorLabel"),
                new TwoStageDispatcher(settings, new HorizonScore(settings, predictor)));
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
    public int route(PoolView view, RequestView request) {
        return ArrivalFScore.route(view, request);
    }

    @Override
    public void dispatch(DispatchStep step) {
        dispatcher.dispatch(step);
    }

    @Override
    public String toString() {
        return name;
    }
}
