package org.balanceroute.benchmarks;

import org.balanceroute.api.RoutingPolicy;
import org.balanceroute.policy.balance.BalanceSettings;
import org.balanceroute.policy.balance.BalancePolicy;
import org.balanceroute.predictor.survival.SurvivalPredictor;
import org.balanceroute.predictor.survival.SurvivalSettings;

/** The policies under test, by name. */
final class Policies {

    static final String BR0 = BalancePolicy.BR0;
    static final String BRH_SURVIVAL = BalancePolicy.BRH_SURVIVAL;

    /** Output lengths the survival predictor is warm-started with. */
    static final int WARM_START_SAMPLES = 10_000;
    static final long WARM_START_SEED = 343L;

    private Policies() {
    }

    static RoutingPolicy create(String name, BalanceSettings settings) {
        return switch (name) {
            case BR0 -> BalancePolicy.br0(settings);
            case BRH_SURVIVAL -> {
                SurvivalPredictor predictor = new SurvivalPredictor(SurvivalSettings.defaults());
                predictor.warmStart(MooncakeLike.outputLengths(WARM_START_SEED, WARM_START_SAMPLES));
                yield BalancePolicy.brh(SurvivalPredictor.NAME, settings, predictor);
            }
            default -> throw new IllegalArgumentException("unknown policy " + name
                    + " (expected " + BR0 + " or " + BRH_SURVIVAL + ")");
        };
    }
}
