package org.balanceroute.tuner.internal;

import org.balanceroute.policy.balance.BalancePolicy;
import org.balanceroute.simulator.ParameterTuner;
import org.balanceroute.simulator.RobustChoice;
import org.osgi.service.metatype.annotations.AttributeDefinition;
import org.osgi.service.metatype.annotations.ObjectClassDefinition;

/**
 * The self-tuner, configuration PID {@value #PID}: what it replays, how long it may search, and
 * whether it applies what it finds.
 */
@ObjectClassDefinition(name = "BalanceRoute self-tuner",
        description = "Replays the recent requests through the simulator (the same routing core) for a grid "
                + "of BR settings and reports the best with its predicted gain (GET /admin/tune); on demand "
                + "(POST /admin/tune) or every intervalMinutes; with autoApply it applies the winner through "
                + "the normal configuration path when the gain clears the margin.")
@interface TunerConfig {

    String PID = "org.balanceroute.tuner";

    double DEFAULT_WINDOW_MINUTES = 5;
    int DEFAULT_MAX_REQUESTS = 20_000;
    double DEFAULT_BUDGET_SECONDS = 30;
    double DEFAULT_INTERVAL_MINUTES = 0;
    boolean DEFAULT_AUTO_APPLY = false;
    double DEFAULT_QUORUM = 1;
    String DEFAULT_BETAS = "8,14.67,43";
    String DEFAULT_GAMMAS = "0.5,0.64,0.86,0.95";
    String DEFAULT_HORIZONS = "20,80,200";
    boolean DEFAULT_WITH_BR0 = true;
    String DEFAULT_BRH_POLICY = BalancePolicy.BRH_SURVIVAL;
    double DEFAULT_STEP_A = 2e-7;
    double DEFAULT_STEP_B = 0.020;

    @AttributeDefinition(name = "Window", min = "0.01", description = "Minutes of recent traffic replayed "
            + "(by arrival, up to the newest finished request). Number >= 0.01; default 5.")
    double windowMinutes() default DEFAULT_WINDOW_MINUTES;

    @AttributeDefinition(name = "Record size", min = "2", max = "1000000", description = "Finished requests "
            + "the rolling record holds (the window is cut from them). Integer in [2, 1000000]; default 20000.")
    int maxRequests() default DEFAULT_MAX_REQUESTS;

    @AttributeDefinition(name = "Time budget", min = "0.1", description = "Seconds one search may take; the "
            + "candidates not reached are left out and the report says so. Number >= 0.1; default 30.")
    double budgetSeconds() default DEFAULT_BUDGET_SECONDS;

    @AttributeDefinition(name = "Interval", min = "0", description = "Minutes between searches by schedule; "
            + "0: only on demand (POST /admin/tune). Number >= 0; default 0.")
    double intervalMinutes() default DEFAULT_INTERVAL_MINUTES;

    @AttributeDefinition(name = "Auto-apply", description = "Apply the winner through the configuration path "
            + "(as PUT /admin/policy does) when its predicted gain is at least the margin. Default false.")
    boolean autoApply() default DEFAULT_AUTO_APPLY;

    @AttributeDefinition(name = "Margin", min = "0", max = "1", description = "The predicted gain (share of "
            + "the current settings' steady-state imbalance removed) a winner must reach to be applied (the agreement "
            + "gate is the guard against noise; a margin only holds back small changes). Number in [0, 1]; default 0.")
    double margin() default ParameterTuner.DEFAULT_MARGIN;

    @AttributeDefinition(name = "Parts", min = "1", max = "60", description = "The window's steady state is cut "
            + "into this many parts of equal time, and a candidate wins only if it beats the settings in force on "
            + "the quorum of them (a rule before the agreement gate: a winner of the whole window may be a fluke "
            + "of one part); 1: the lowest mean imbalance over the whole window wins. Integer in [1, 60]; default 1.")
    int parts() default RobustChoice.DEFAULT_PARTS;

    @AttributeDefinition(name = "Quorum", description = "The share of the parts on which a candidate's imbalance "
            + "must be below the settings in force for it to be chosen. Number in (0.5, 1]; default 1.")
    double quorum() default DEFAULT_QUORUM;

    @AttributeDefinition(name = "Replays", min = "1", max = "50", description = "Every candidate is judged on its "
            + "mean over this many perturbed replays of the window (its requests shuffled over their own arrival "
            + "times: the simulator is chaotic, one replay ranks candidates partly by luck); each replay costs one "
            + "run of the window per candidate, within the same time budget; 1: the window as recorded only. "
            + "Integer in [1, 50]; default 8.")
    int replays() default ParameterTuner.DEFAULT_REPLAYS;

    @AttributeDefinition(name = "Agreement", min = "-1", max = "1", description = "The gate against noise: the "
            + "candidates' mean imbalance over the first half of the replays and over the second half are ranked, and "
            + "unless the two rankings correlate at least this much (Spearman) the settings in force stay (the "
            + "replays cannot tell the candidates apart, and the lowest mean is the luckiest); -1: no gate; no "
            + "effect with one replay. Number in [-1, 1]; default 0.5.")
    double agreement() default RobustChoice.DEFAULT_AGREEMENT;

    @AttributeDefinition(name = "beta values", description = "BR-H overflow weights of the grid, comma-separated. "
            + "Default 8,14.67,43.")
    String betas() default DEFAULT_BETAS;

    @AttributeDefinition(name = "gamma values", description = "BR-H discounts of the grid, comma-separated, "
            + "each in (0, 1]. Default 0.5,0.64,0.86,0.95.")
    String gammas() default DEFAULT_GAMMAS;

    @AttributeDefinition(name = "H values", description = "BR-H horizons of the grid, comma-separated, each in "
            + "[0, 1000]. Default 20,80,200.")
    String horizons() default DEFAULT_HORIZONS;

    @AttributeDefinition(name = "With br0", description = "Whether br0 is a candidate too. Default true.")
    boolean withBr0() default DEFAULT_WITH_BR0;

    @AttributeDefinition(name = "BR-H policy", description = "The BR-H policy the grid varies while br0 (or "
            + "another policy) is active: brh-survival or brh-exact. Default brh-survival.")
    String brhPolicy() default DEFAULT_BRH_POLICY;

    @AttributeDefinition(name = "Step a", min = "0", description = "Replay step model: seconds per KV token of "
            + "the heaviest worker. Number >= 0; default 2e-7.")
    double stepA() default DEFAULT_STEP_A;

    @AttributeDefinition(name = "Step b", min = "0", description = "Replay step model: fixed seconds per "
            + "decode step. Number >= 0; default 0.02.")
    double stepB() default DEFAULT_STEP_B;
}
