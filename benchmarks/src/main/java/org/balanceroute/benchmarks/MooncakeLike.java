package org.balanceroute.benchmarks;

import java.util.Random;

/**
 * Seeded synthetic request sizes shaped like the Mooncake conversation trace (12,031 requests:
 * prompt mean 12,035 / median 6,909 / p95 39,552 tokens; output mean 343 / median 350 /
 * p95 698 tokens, 8.5% of outputs shorter than 20 tokens). Synthetic so the benchmark needs no
 * trace file and every run sees the same numbers.
 */
final class MooncakeLike {

    /** Prompt: lognormal, median 7,000, sigma 1.038 (mean ~12,000, p95 ~38,600), clipped to [16, 131,072]. */
    static final double PROMPT_MEDIAN = 7_000;
    static final double PROMPT_SIGMA = 1.038;
    static final int PROMPT_MIN = 16;
    static final int PROMPT_MAX = 131_072;

    /** Output: 8.5% short answers uniform in [1, 19]; the rest normal(350, 215) truncated to [20, 2,000]. */
    static final double OUTPUT_SHORT_FRACTION = 0.085;
    static final double OUTPUT_MEAN = 350;
    static final double OUTPUT_SD = 215;
    static final int OUTPUT_MIN_LONG = 20;
    static final int OUTPUT_MAX = 2_000;

    private MooncakeLike() {
    }

    static int promptTokens(Random random) {
        double s = PROMPT_MEDIAN * Math.exp(PROMPT_SIGMA * random.nextGaussian());
        return (int) Math.max(PROMPT_MIN, Math.min(PROMPT_MAX, s));
    }

    static int outputTokens(Random random) {
        if (random.nextDouble() < OUTPUT_SHORT_FRACTION) {
            return 1 + random.nextInt(OUTPUT_MIN_LONG - 1);
        }
        while (true) {
            long v = Math.round(OUTPUT_MEAN + OUTPUT_SD * random.nextGaussian());
            if (v >= OUTPUT_MIN_LONG && v <= OUTPUT_MAX) {
                return (int) v;
            }
        }
    }

    static int[] outputLengths(long seed, int n) {
        Random random = new Random(seed);
        int[] lengths = new int[n];
        for (int i = 0; i < n; i++) {
            lengths[i] = outputTokens(random);
        }
        return lengths;
    }
}
