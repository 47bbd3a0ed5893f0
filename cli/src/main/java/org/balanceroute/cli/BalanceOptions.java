package org.balanceroute.cli;

import org.balanceroute.policy.balance.BalanceProperties;
import org.balanceroute.policy.balance.BalanceSettings;
import org.balanceroute.predictor.survival.SurvivalSettings;
import picocli.CommandLine.Option;

/** The BR options of simulate and sweep. */
class BalanceOptions {

    @Option(names = "--s-greedy", paramLabel = "N", converter = Values.Int.class,
            description = "Stage 1 while free slots > N; 0 means G; default: ${DEFAULT-VALUE}")
    int sGreedy = BalanceSettings.DEFAULT_S_GREEDY;

    @Option(names = "--r-max", paramLabel = "N", converter = Values.Int.class,
            description = "Stage 2 candidates per worker (1..16); default: ${DEFAULT-VALUE}")
    int rMax = BalanceSettings.DEFAULT_R_MAX;

    @Option(names = "--horizon", paramLabel = "H", converter = Values.Int.class,
            description = "BR-H look-ahead in steps; default: ${DEFAULT-VALUE}")
    int horizon = BalanceSettings.DEFAULT_HORIZON;

    @Option(names = "--alpha", paramLabel = "A", converter = Values.Real.class,
            description = "BR-H fill weight; default: ${DEFAULT-VALUE}")
    double alpha = BalanceSettings.DEFAULT_ALPHA;

    @Option(names = "--beta", paramLabel = "B", converter = Values.Real.class,
            description = "BR-H overflow weight; default: ${DEFAULT-VALUE}")
    double beta = BalanceSettings.DEFAULT_BETA;

    @Option(names = "--gamma", paramLabel = "G", converter = Values.Real.class,
            description = "BR-H discount per step; default: ${DEFAULT-VALUE}")
    double gamma = BalanceSettings.DEFAULT_GAMMA;

    @Option(names = "--confidence", paramLabel = "P", converter = Values.Real.class,
            description = "predictor gate; default: ${DEFAULT-VALUE}")
    double confidence = BalanceSettings.DEFAULT_CONFIDENCE;

    @Option(names = "--stage1-worker", paramLabel = "W", description = "Stage 1 fills: margin (the lightest with a"
            + " free slot) or slots (most free slots, the paper's); default: ${DEFAULT-VALUE}")
    String stage1Worker = BalanceSettings.DEFAULT_STAGE1_WORKER;

    @Option(names = "--horizon-margin", paramLabel = "M", description = "BR-H worker order: mean, min (the"
            + " paper's) or now, of the margins over the horizon; default: ${DEFAULT-VALUE}")
    String horizonMargin = BalanceSettings.DEFAULT_HORIZON_MARGIN;

    @Option(names = "--projected-slots", paramLabel = "K", converter = Values.Int.class, description = "BR-H: also"
            + " admit against slots of requests predicted to end within K steps; 0 = off; default: ${DEFAULT-VALUE}")
    int projectedSlots = BalanceSettings.DEFAULT_PROJECTED_SLOTS;

    @Option(names = "--predictor-quantile", paramLabel = "Q", converter = Values.Real.class, description = "BR-H's"
            + " survival and exact-match predictors: the predicted end is the Q-quantile of the remaining steps, in"
            + " (0, 1]; default: ${DEFAULT-VALUE} (the median)")
    double predictorQuantile = SurvivalSettings.DEFAULT_QUANTILE;

    @Option(names = "--predictor-window", paramLabel = "N", converter = Values.Int.class, description = "BR-H's"
            + " survival predictor (and exact-match's fallback) learns from the latest N completions only; 0 = all;"
            + " default: ${DEFAULT-VALUE}")
    int predictorWindow = SurvivalSettings.DEFAULT_WINDOW;

    /** The survival settings (also exact-match's) these options give. */
    SurvivalSettings predictor() throws UsageException {
        try {
            return new SurvivalSettings(SurvivalSettings.DEFAULT_MIN_SAMPLES, predictorQuantile, predictorWindow);
        } catch (IllegalArgumentException e) {
            throw new UsageException("--predictor-" + e.getMessage());
        }
    }

    /** The BR settings these options give; a bad one named by its option. */
    BalanceSettings settings() throws UsageException {
        try {
            return new BalanceSettings(sGreedy, rMax, horizon, alpha, beta, gamma, confidence,
                    BalanceSettings.Stage1Worker.parse(stage1Worker),
                    BalanceSettings.HorizonMargin.parse(horizonMargin), projectedSlots);
        } catch (IllegalArgumentException e) {
            // BalanceSettings names its fields as Java does; the CLI user knows them as options
            String msg = e.getMessage();
            for (String[] pair : new String[][] {{BalanceProperties.S_GREEDY, "--s-greedy"},
                    {BalanceProperties.R_MAX, "--r-max"}, {BalanceProperties.HORIZON, "--horizon"},
                    {BalanceProperties.ALPHA, "--alpha"}, {BalanceProperties.BETA, "--beta"},
                    {BalanceProperties.GAMMA, "--gamma"}, {BalanceProperties.CONFIDENCE, "--confidence"},
                    {BalanceProperties.STAGE1_WORKER, "--stage1-worker"},
                    {BalanceProperties.HORIZON_MARGIN, "--horizon-margin"},
                    {BalanceProperties.PROJECTED_SLOTS, "--projected-slots"}}) {
                if (msg.startsWith(pair[0] + " ")) {
                    msg = pair[1] + msg.substring(pair[0].length());
                }
            }
            throw new UsageException(msg);
        }
    }
}
