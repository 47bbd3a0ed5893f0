package org.balanceroute.tuner.internal;

import java.util.ArrayList;
import java.util.List;
import org.balanceroute.api.config.ConfigProperties;
import org.balanceroute.api.config.ConfigurationException;
import org.balanceroute.policy.balance.BalancePolicy;
import org.balanceroute.policy.balance.BalanceSettings;
import org.balanceroute.simulator.ParameterTuner;
import org.balanceroute.simulator.RobustChoice;

/** The tuner's configuration ({@link TunerConfig}), read once per change. */
record TunerSettings(long windowNanos, int maxRequests, long budgetMillis, double intervalMinutes, boolean autoApply,
        double margin, RobustChoice choice, int replays, ParameterTuner.Grid grid, String brhPolicy, double stepA,
        double stepB) {

    private static final double NO_MAX = Double.MAX_VALUE;

    /** @throws ConfigurationException naming the first invalid property and its range */
    static TunerSettings read(ConfigProperties c) {
        double window = c.doubleValue("windowMinutes", TunerConfig.DEFAULT_WINDOW_MINUTES, 0.01, NO_MAX);
        int maxRequests = c.intValue("maxRequests", TunerConfig.DEFAULT_MAX_REQUESTS, 2, 1_000_000);
        double budget = c.doubleValue("budgetSeconds", TunerConfig.DEFAULT_BUDGET_SECONDS, 0.1, NO_MAX);
        double interval = c.doubleValue("intervalMinutes", TunerConfig.DEFAULT_INTERVAL_MINUTES, 0, NO_MAX);
        double margin = c.doubleValue("margin", ParameterTuner.DEFAULT_MARGIN, 0, 1);
        int parts = c.intValue("parts", RobustChoice.DEFAULT_PARTS, 1, RobustChoice.MAX_PARTS);
        double quorum = c.doubleValue("quorum", TunerConfig.DEFAULT_QUORUM, -NO_MAX, NO_MAX);
        c.require(quorum > 0.5 && quorum <= 1, "quorum", "a number in (0.5, 1]", quorum);
        double agreement = c.doubleValue("agreement", RobustChoice.DEFAULT_AGREEMENT, -1, 1);
        int replays = c.intValue("replays", ParameterTuner.DEFAULT_REPLAYS, 1, ParameterTuner.MAX_REPLAYS);
        double stepA = c.doubleValue("stepA", TunerConfig.DEFAULT_STEP_A, 0, NO_MAX);
        double stepB = c.doubleValue("stepB", TunerConfig.DEFAULT_STEP_B, 0, NO_MAX);
        c.require(stepA + stepB > 0, "stepB", "a number > 0 when stepA is 0", stepB);
        String brh = c.oneOf("brhPolicy", TunerConfig.DEFAULT_BRH_POLICY,
                List.of(BalancePolicy.BRH_SURVIVAL, BalancePolicy.BRH_EXACT));
        List<Double> betas = numbers(c, "betas", TunerConfig.DEFAULT_BETAS, 0, NO_MAX, "numbers >= 0");
        List<Double> gammas = numbers(c, "gammas", TunerConfig.DEFAULT_GAMMAS, Double.MIN_VALUE, 1,
                "numbers in (0, 1]");
        List<Integer> horizons = new ArrayList<>();
        String wholeHorizons = "whole numbers in [0, " + BalanceSettings.MAX_HORIZON + "]";
        for (double h : numbers(c, "horizons", TunerConfig.DEFAULT_HORIZONS, 0, BalanceSettings.MAX_HORIZON,
                wholeHorizons)) {
            c.require(h == Math.rint(h), "horizons", wholeHorizons, h);
            horizons.add((int) h);
        }
        return new TunerSettings((long) (window * 60e9), maxRequests, (long) (budget * 1000), interval,
                c.bool("autoApply", TunerConfig.DEFAULT_AUTO_APPLY), margin, new RobustChoice(parts, quorum, agreement),
                replays, new ParameterTuner.Grid(betas, gammas, horizons, c.bool("withBr0", TunerConfig.DEFAULT_WITH_BR0)),
                brh, stepA, stepB);
    }

    /** A comma-separated list of numbers, each in [min, max] ({@code allowed} says so). */
    private static List<Double> numbers(ConfigProperties c, String key, String defaultValue, double min, double max,
            String allowed) {
        List<Double> out = new ArrayList<>();
        for (String s : c.list(key, defaultValue)) {
            double d;
            try {
                d = Double.parseDouble(s);
            } catch (NumberFormatException e) {
                d = Double.NaN;
            }
            c.require(d >= min && d <= max, key, "comma-separated " + allowed, s);
            out.add(d);
        }
        return out;
    }
}
