package org.balanceroute.policy.balance.internal;

import org.balanceroute.policy.balance.BalanceSettings;
import org.osgi.service.metatype.annotations.AttributeDefinition;
import org.osgi.service.metatype.annotations.ObjectClassDefinition;

/**
 * The BR-0 / BR-H tunables, configuration PID {@value #PID}, shared by the {@code br0},
 * {@code brh-survival} and {@code brh-exact} components. Defaults and ranges are those of
 * {@link BalanceSettings}, which validates them.
 */
@ObjectClassDefinition(name = "BalanceRoute BR-0 / BR-H settings",
        description = "Tunables of the barrier-aware policies br0, brh-survival and brh-exact "
                + "(one configuration shared by all three). An invalid value is rejected with an "
                + "error in the log, and the previous settings stay in force.")
@interface BalanceConfig {

    String PID = "org.balanceroute.policy.balance";

    int DEFAULT_S_GREEDY = BalanceSettings.DEFAULT_S_GREEDY;
    int DEFAULT_R_MAX = BalanceSettings.DEFAULT_R_MAX;
    int DEFAULT_HORIZON = BalanceSettings.DEFAULT_HORIZON;
    double DEFAULT_ALPHA = BalanceSettings.DEFAULT_ALPHA;
    double DEFAULT_BETA = BalanceSettings.DEFAULT_BETA;
    double DEFAULT_GAMMA = BalanceSettings.DEFAULT_GAMMA;
    double DEFAULT_CONFIDENCE = BalanceSettings.DEFAULT_CONFIDENCE;

    @AttributeDefinition(name = "S_greedy", min = "0",
            description = "Stage 1 (greedy) runs while the total free slots exceed this; 0 means G, "
                    + "the number of workers. Integer >= 0; default 0.")
    int sGreedy() default DEFAULT_S_GREEDY;

    @AttributeDefinition(name = "R_max", min = "1", max = "16",
            description = "Stage 2 candidates per worker: the R_max oldest waiting requests, whose "
                    + "subsets are searched exhaustively. Integer in [1, 16]; default 8.")
    int rMax() default DEFAULT_R_MAX;

    @AttributeDefinition(name = "Horizon H", min = "0", max = "1000",
            description = "BR-H look-ahead in decode steps (0 with alpha=1, beta=G is BR-0). "
                    + "Integer in [0, 1000]; default 80.")
    int horizon() default DEFAULT_HORIZON;

    @AttributeDefinition(name = "alpha", min = "0",
            description = "BR-H weight of the safe fill term. Number > 0; default 1.")
    double alpha() default DEFAULT_ALPHA;

    @AttributeDefinition(name = "beta", min = "0",
            description = "BR-H weight of each future step's overflow. Number >= 0; default 14.67.")
    double beta() default DEFAULT_BETA;

    @AttributeDefinition(name = "gamma", min = "0", max = "1",
            description = "BR-H discount per step ahead. Number in (0, 1]; default 0.64.")
    double gamma() default DEFAULT_GAMMA;

    @AttributeDefinition(name = "Confidence", min = "0", max = "1",
            description = "Predictor gate: below this probability of ending within H, a running "
                    + "request is assumed to run past the horizon. Number in [0, 1]; default 0.5.")
    double confidence() default DEFAULT_CONFIDENCE;
}
