package org.balanceroute.predictor.survival;

/**
 * Settings of {@link SurvivalPredictor}. The confidence gate is not here: the routing policy
 * passes it on every call.
 *
 * @param minSamples finished requests the distribution must hold before the predictor answers
 *     anything but {@link org.balanceroute.api.TerminationPredictor#SURVIVES}; at least 1
 */
public record SurvivalSettings(long minSamples) {

    public static final long DEFAULT_MIN_SAMPLES = 32;
    /** The smallest minSamples (the metatype's min, the same constant). */
    public static final long MIN_MIN_SAMPLES = 1;

    public SurvivalSettings {
        if (minSamples < MIN_MIN_SAMPLES) {
            throw new IllegalArgumentException("minSamples must be >= " + MIN_MIN_SAMPLES + ", got " + minSamples);
        }
    }

    public static SurvivalSettings defaults() {
        return new SurvivalSettings(DEFAULT_MIN_SAMPLES);
    }
}
