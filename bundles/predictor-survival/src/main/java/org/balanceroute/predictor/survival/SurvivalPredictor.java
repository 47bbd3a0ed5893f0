package org.balanceroute.predictor.survival;

import java.util.Objects;
import org.balanceroute.api.RequestView;
import org.balanceroute.api.TerminationPredictor;

/**
 * Survival termination predictor (spec section 5): no per-prompt state, only the empirical
 * distribution of output lengths learned online from finished requests (all of them, or with a
 * window the latest ones), optionally warm-started from a trace. The answer is
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
    /** With a window: the latest lengths, oldest at {@code next} once full; null over every length. */
    private final int[] recent;
    private int next;
    private int held;

    public SurvivalPredictor(SurvivalSettings settings) {
        this.minSamples = Objects.requireNonNull(settings, "settings").minSamples();
        this.quantile = settings.quantile();
        this.recent = settings.window() == 0 ? null : new int[settings.window()];
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
        if (outputTokens < 1) {
            return;
        }
        int length = Math.min(outputTokens, OutputLengthDistribution.MAX_LENGTH);
        distribution.add(length);
        if (recent != null) {
            if (held == recent.length) {
                distribution.remove(recent[next]);
            } else {
                held++;
            }
            recent[next] = length;
            next = next + 1 == recent.length ? 0 : next + 1;
        }
    }
}
