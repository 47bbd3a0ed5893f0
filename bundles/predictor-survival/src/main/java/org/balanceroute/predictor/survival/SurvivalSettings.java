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

    public SurvivalSettings {
        if (minSamples < 1) {
            throw new IllegalArgumentException("minSamples must be >= 1, got " + minSamples);
        }
    }

    public static SurvivalSettings defaults() {
        return new SurvivalSettings(DEFAULT_MIN_SAMPLES);
    }
}
