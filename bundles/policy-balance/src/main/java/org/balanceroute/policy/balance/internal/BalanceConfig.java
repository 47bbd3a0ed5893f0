package org.balanceroute.policy.balance.internal;

import org.balanceroute.policy.balance.BalanceProperties;
import org.balanceroute.policy.balance.BalanceSettings;
import org.osgi.service.metatype.annotations.AttributeDefinition;
import org.osgi.service.metatype.annotations.ObjectClassDefinition;
import org.osgi.service.metatype.annotations.Option;

/**
 * The BR-0 / BR-H tunables, configuration PID {@value BalanceProperties#PID}, shared by the {@code br0},
 * {@code brh-survival} and {@code brh-exact} components (each names it in its
 * {@code balanceroute.policy.pid} service property). This metatype is the schema the admin API
 * and the web console show and validate against: its defaults, minima and maxima are
 * {@link BalanceSettings}' own constants (annotation values are compile-time constants, so
 * {@code "" + MAX_R_MAX} is written into the metatype XML at build time), and
 * {@link BalanceSettings} validates with the same constants. An open bound ({@code alpha > 0},
 * {@code gamma > 0}) is written as the smallest positive double, 4.9E-324, the inclusive bound
 * that means the same.
 */
@ObjectClassDefinition(name = "BalanceRoute BR-0 / BR-H settings",
        description = "Tunables of the barrier-aware policies br0, brh-survival and brh-exact "
                + "(one configuration shared by all three; br0 uses S_greedy and R_max, the others "
                + "are BR-H's). An invalid value is rejected with an error in the log, and the "
                + "previous settings stay in force (at start, the policies do not start).")
@interface BalanceConfig {

    @AttributeDefinition(name = "S_greedy", min = "" + BalanceSettings.MIN_S_GREEDY,
            description = "Stage 1 (greedy) runs while the total free slots exceed this; 0 means G, "
                    + "the number of workers. Integer >= " + BalanceSettings.MIN_S_GREEDY + "; default "
                    + BalanceSettings.DEFAULT_S_GREEDY + ".")
    int sGreedy() default BalanceSettings.DEFAULT_S_GREEDY;

    @AttributeDefinition(name = "R_max", min = "" + BalanceSettings.MIN_R_MAX, max = "" + BalanceSettings.MAX_R_MAX,
            description = "Stage 2 candidates per worker: the R_max oldest waiting requests, whose "
                    + "subsets are searched exhaustively. Integer in [" + BalanceSettings.MIN_R_MAX + ", "
                    + BalanceSettings.MAX_R_MAX + "]; default " + BalanceSettings.DEFAULT_R_MAX + ".")
    int rMax() default BalanceSettings.DEFAULT_R_MAX;

    @AttributeDefinition(name = "Horizon H", min = "" + BalanceSettings.MIN_HORIZON,
            max = "" + BalanceSettings.MAX_HORIZON,
            description = "BR-H look-ahead in decode steps (0 with alpha=1, beta=G is BR-0). Integer in ["
                    + BalanceSettings.MIN_HORIZON + ", " + BalanceSettings.MAX_HORIZON + "]; default "
                    + BalanceSettings.DEFAULT_HORIZON + ".")
    int horizon() default BalanceSettings.DEFAULT_HORIZON;

    @AttributeDefinition(name = "alpha", min = "" + BalanceSettings.MIN_ALPHA,
            description = "BR-H weight of the safe fill term. Number > 0; default "
                    + BalanceSettings.DEFAULT_ALPHA + ".")
    double alpha() default BalanceSettings.DEFAULT_ALPHA;

    @AttributeDefinition(name = "beta", min = "" + BalanceSettings.MIN_BETA,
            description = "BR-H weight of each future step's overflow. Number >= 0; default "
                    + BalanceSettings.DEFAULT_BETA + ".")
    double beta() default BalanceSettings.DEFAULT_BETA;

    @AttributeDefinition(name = "gamma", min = "" + BalanceSettings.MIN_GAMMA, max = "" + BalanceSettings.MAX_GAMMA,
            description = "BR-H discount per step ahead. Number in (0, 1]; default "
                    + BalanceSettings.DEFAULT_GAMMA + ".")
    double gamma() default BalanceSettings.DEFAULT_GAMMA;

    @AttributeDefinition(name = "Confidence", min = "" + BalanceSettings.MIN_CONFIDENCE,
            max = "" + BalanceSettings.MAX_CONFIDENCE,
            description = "Predictor gate: below this probability of ending within H, a running "
                    + "request is assumed to run past the horizon. Number in [0, 1]; default "
                    + BalanceSettings.DEFAULT_CONFIDENCE + ".")
    double confidence() default BalanceSettings.DEFAULT_CONFIDENCE;

    @AttributeDefinition(name = "Stage 1 worker",
            options = {@Option(value = "slots", label = "slots"), @Option(value = "margin", label = "margin")},
            description = "Which worker Stage 1 fills next: slots, the one with the most free slots (the "
                    + "paper's; ties: the larger margin), or margin, the one with the largest margin among "
                    + "those with a free slot (the lightest; ties: more free slots). One of slots, margin; "
                    + "default " + BalanceSettings.DEFAULT_STAGE1_WORKER + ".")
    String stage1Worker() default BalanceSettings.DEFAULT_STAGE1_WORKER;

    @AttributeDefinition(name = "Horizon margin",
            options = {@Option(value = "min", label = "min"), @Option(value = "mean", label = "mean"),
                @Option(value = "now", label = "now")},
            description = "BR-H: the margin that orders workers, from the projected margins over the "
                    + "horizon: min (the smallest, the paper's), mean (gamma-discounted mean) or now (the "
                    + "current one, as BR-0). One of min, mean, now; default "
                    + BalanceSettings.DEFAULT_HORIZON_MARGIN + ".")
    String horizonMargin() default BalanceSettings.DEFAULT_HORIZON_MARGIN;

    @AttributeDefinition(name = "Projected slots", min = "" + BalanceSettings.MIN_PROJECTED_SLOTS,
            max = "" + BalanceSettings.MAX_PROJECTED_SLOTS,
            description = "BR-H: k > 0 also admits against the slots of running requests the predictor "
                    + "says end within the next k decode steps (the request waits in the worker's queue for "
                    + "its slot; at most H counts); 0 = off, only free slots. Integer in ["
                    + BalanceSettings.MIN_PROJECTED_SLOTS + ", " + BalanceSettings.MAX_PROJECTED_SLOTS
                    + "]; default " + BalanceSettings.DEFAULT_PROJECTED_SLOTS + ".")
    int projectedSlots() default BalanceSettings.DEFAULT_PROJECTED_SLOTS;
}
