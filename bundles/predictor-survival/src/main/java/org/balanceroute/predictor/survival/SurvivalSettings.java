package org.balanceroute.predictor.survival;

import org.balanceroute.api.config.ConfigProperties;
import org.balanceroute.api.config.ConfigurationException;

/**
 * Settings of {@link SurvivalPredictor}. The confidence gate is not here: the routing policy
 * passes it on every call.
 *
 * @param minSamples finished requests the distribution must hold before the predictor answers
 *     anything but {@link org.balanceroute.api.TerminationPredictor#SURVIVES}; at least 1
 * @param quantile q in (0, 1]: the predicted end is the q-quantile of the remaining steps among
 *     the observed lengths that end within the horizon; 0.5, the conditional median, is the
 *     spec's point estimate. Lower predicts earlier ends, higher later ones
 * @param window the distribution holds the latest {@code window} output lengths only (older ones
 *     are forgotten as new ones arrive); 0 = every length since the start (the spec's). In
 *     [minSamples, {@link #MAX_WINDOW}] when not 0 (a smaller window could never hold minSamples)
 */
public record SurvivalSettings(long minSamples, double quantile, int window) {

    public static final long DEFAULT_MIN_SAMPLES = 32;
    /** The smallest minSamples (the metatype's min, the same constant). */
    public static final long MIN_MIN_SAMPLES = 1;
    public static final double DEFAULT_QUANTILE = 0.5;
    /** The smallest positive double: quantile &gt; 0, written as an inclusive bound (metatype has no other). */
    public static final double MIN_QUANTILE = Double.MIN_VALUE;
    public static final double MAX_QUANTILE = 1.0;
    public static final int DEFAULT_WINDOW = 0;
    public static final int MIN_WINDOW = 0;
    /** Bounds the ring of remembered lengths (4 MiB). */
    public static final int MAX_WINDOW = 1 << 20;
    /** The window's metatype description, shared as the quantile's. */
    public static final String WINDOW_DESCRIPTION = "the distribution holds the latest this many output lengths "
            + "only. Integer in [" + MIN_WINDOW + ", " + MAX_WINDOW + "]: 0 = every length since the start (the "
            + "spec's), else at least minSamples; default " + DEFAULT_WINDOW + ".";
    /** The quantile's metatype description, shared by the predictors that have one (a compile-time constant). */
    public static final String QUANTILE_DESCRIPTION = "the q-quantile of the remaining steps among the observed "
            + "lengths that end within the horizon (0.5, the conditional median, is the spec's point estimate; "
            + "lower predicts earlier ends). Number in (0, 1]; default " + DEFAULT_QUANTILE + ".";

    public SurvivalSettings {
        if (minSamples < MIN_MIN_SAMPLES) {
            throw new IllegalArgumentException("minSamples must be >= " + MIN_MIN_SAMPLES + ", got " + minSamples);
        }
        if (!(quantile >= MIN_QUANTILE && quantile <= MAX_QUANTILE)) {
            throw new IllegalArgumentException("quantile must be in (0, 1], got " + quantile);
        }
        if (window != 0 && (window < minSamples || window > MAX_WINDOW)) {
            throw new IllegalArgumentException("window must be 0 (every length) or in [minSamples = " + minSamples
                    + ", " + MAX_WINDOW + "], got " + window);
        }
    }

    /** Over every length since the start. */
    public SurvivalSettings(long minSamples, double quantile) {
        this(minSamples, quantile, DEFAULT_WINDOW);
    }

    /** At the default quantile, the conditional median. */
    public SurvivalSettings(long minSamples) {
        this(minSamples, DEFAULT_QUANTILE);
    }

    public static SurvivalSettings defaults() {
        return new SurvivalSettings(DEFAULT_MIN_SAMPLES);
    }

    /**
     * The settings a predictor's configuration gives (the survival predictor's, and the fallback of
     * the exact-match one): properties {@code minSamples}, {@code quantile}, {@code window}.
     *
     * @throws ConfigurationException naming the first invalid property and its range
     */
    public static SurvivalSettings read(ConfigProperties c) {
        long minSamples = c.longValue("minSamples", DEFAULT_MIN_SAMPLES, MIN_MIN_SAMPLES, Long.MAX_VALUE);
        double quantile = c.doubleValue("quantile", DEFAULT_QUANTILE, MIN_QUANTILE, MAX_QUANTILE);
        int window = c.intValue("window", DEFAULT_WINDOW, MIN_WINDOW, MAX_WINDOW);
        c.require(window == 0 || window >= minSamples, "window",
                "0 (every length) or in [minSamples = " + minSamples + ", " + MAX_WINDOW + "]", window);
        return new SurvivalSettings(minSamples, quantile, window);
    }
}
