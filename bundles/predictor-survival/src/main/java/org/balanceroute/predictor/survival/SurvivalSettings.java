package org.balanceroute.predictor.survival;

/**
 * Settings of {@link SurvivalPredictor}. The confidence gate is not here: the routing policy
 * passes it on every call.
 *
 * @param minSamples finished requests the distribution must hold before the predictor answers
 *     anything but {@link org.balanceroute.api.TerminationPredictor#SURVIVES}; at least 1
 * @param quantile q in (0, 1]: the predicted end is the q-quantile of the remaining steps among
 *     the observed lengths that end within the horizon; 0.5, the conditional median, is the
 *     spec's point estimate. Lower predicts earlier ends, higher later ones
 */
public record SurvivalSettings(long minSamples, double quantile) {

    public static final long DEFAULT_MIN_SAMPLES = 32;
    /** The smallest minSamples (the metatype's min, the same constant). */
    public static final long MIN_MIN_SAMPLES = 1;
    public static final double DEFAULT_QUANTILE = 0.5;
    /** The smallest positive double: quantile &gt; 0, written as an inclusive bound (metatype has no other). */
    public static final double MIN_QUANTILE = Double.MIN_VALUE;
    public static final double MAX_QUANTILE = 1.0;
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
    }

    /** At the default quantile, the conditional median. */
    public SurvivalSettings(long minSamples) {
        this(minSamples, DEFAULT_QUANTILE);
    }

    public static SurvivalSettings defaults() {
        return new SurvivalSettings(DEFAULT_MIN_SAMPLES);
    }
}
