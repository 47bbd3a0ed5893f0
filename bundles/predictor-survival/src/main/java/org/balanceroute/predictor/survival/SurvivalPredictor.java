package org.balanceroute.predictor.survival;

import java.util.Objects;
import org.balanceroute.api.RequestView;
import org.balanceroute.api.TerminationPredictor;

/**
 * Survival termination predictor (spec section 5): no per-prompt state, only the empirical
 * distribution of output lengths learned online from finished requests, optionally
 * warm-started from a trace. The answer is
 * {@link OutputLengthDistribution#endWithin(int, int, double, long, double)} at j = decoded tokens
 * and the settings' quantile.
 *
 * <p>Not thread-safe: the dispatch loop is its only caller. {@link #predictEnd} allocates
 * nothing.
 */
public final class SurvivalPredictor implements TerminationPredictor {

    public static final String NAME = "survival";

    private final OutputLengthDistribution distribution = new OutputLengthDistribution();
    private final long minSamples;
    private final double quantile;

    public SurvivalPredictor(SurvivalSettings settings) {
        this.minSamples = Objects.requireNonNull(settings, "settings").minSamples();
        this.quantile = settings.quantile();
    }

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public int predictEnd(RequestView request, int horizon, double confidence) {
        return distribution.endWithin(request.decodedTokens(), horizon, confidence, minSamples, quantile);
    }

    /**
     * Learns one output length. Lengths < 1 carry no information and are ignored; lengths past
     * {@link OutputLengthDistribution#MAX_LENGTH} are recorded as that maximum, which still
     * counts them as surviving any realistic j + H.
     */
    @Override
    public void onCompleted(RequestView request, int outputTokens) {
        record(outputTokens);
    }

    /** Preloads output lengths, e.g. from a trace, under the same rules as {@link #onCompleted}. */
    public void warmStart(int[] outputLengths) {
        for (int length : Objects.requireNonNull(outputLengths, "outputLengths")) {
            record(length);
        }
    }

    private void record(int outputTokens) {
        if (outputTokens >= 1) {
            distribution.add(Math.min(outputTokens, OutputLengthDistribution.MAX_LENGTH));
        }
    }
}
