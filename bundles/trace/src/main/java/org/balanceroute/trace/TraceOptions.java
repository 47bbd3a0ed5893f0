package org.balanceroute.trace;

/**
 * How to cut and scale a trace while loading it. The loader sorts by arrival, applies the
 * output filter, then the limit, then makes arrivals relative to the first kept request and
 * divides them by the rate scale.
 *
 * @param limit keep only the first {@code limit} requests; 0 keeps all
 * @param minOutput keep only requests with more than {@code minOutput} output tokens; -1
 *     keeps all
 * @param rateScale arrival-rate multiplier: arrivals are divided by it, so 2.0 replays twice
 *     as fast
 * @param promptPrefixBlocks how many leading Mooncake hash blocks make up a prompt's
 *     identity; 0 uses all of them
 */
public record TraceOptions(int limit, int minOutput, double rateScale, int promptPrefixBlocks) {

    public TraceOptions {
        // Messages use the CLI's option names, since that is where bad values come from.
        if (limit < 0) {
            throw new IllegalArgumentException("--limit must be >= 0 (0 = no limit), got " + limit);
        }
        if (minOutput < -1) {
            throw new IllegalArgumentException(
                    "--min-output must be >= -1 (-1 = no filter), got " + minOutput);
        }
        if (!(rateScale > 0) || Double.isInfinite(rateScale)) {
            throw new IllegalArgumentException("--rate-scale must be finite and > 0, got " + rateScale);
        }
        if (promptPrefixBlocks < 0) {
            throw new IllegalArgumentException(
                    "--prompt-prefix-blocks must be >= 0 (0 = all blocks), got " + promptPrefixBlocks);
        }
    }

    /** No limit, no output filter, real time, prompt identity from all hash blocks. */
    public static TraceOptions defaults() {
        return new TraceOptions(0, -1, 1.0, 0);
    }
}
