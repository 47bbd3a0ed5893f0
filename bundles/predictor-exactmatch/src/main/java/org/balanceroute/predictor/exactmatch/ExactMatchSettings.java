package org.balanceroute.predictor.exactmatch;

import org.balanceroute.api.config.ConfigProperties;
import org.balanceroute.api.config.ConfigurationException;

/**
 * Settings of {@link ExactMatchPredictor}.
 *
 * @param minCount lengths a prompt must have recorded before its own history is used instead
 *     of the survival fallback; in [1, maxLengthsPerPrompt] (a larger value could never be met)
 * @param maxPrompts prompts whose history is kept; once reached, new prompts are not added.
 *     In [1, {@link #MAX_PROMPTS}]
 * @param maxLengthsPerPrompt latest lengths kept per prompt (older ones are overwritten). In
 *     [1, {@link #MAX_LENGTHS_PER_PROMPT}]; every prediction scans them, O(K log H)
 */
public record ExactMatchSettings(int minCount, int maxPrompts, int maxLengthsPerPrompt) {

    public static final int DEFAULT_MIN_COUNT = 3;
    public static final int MIN_MIN_COUNT = 1;
    public static final int DEFAULT_MAX_PROMPTS = 1_000_000;
    public static final int MIN_MAX_PROMPTS = 1;
    public static final int DEFAULT_MAX_LENGTHS_PER_PROMPT = 64;
    public static final int MIN_MAX_LENGTHS_PER_PROMPT = 1;

    /** Keeps the open-addressing table (2 slots per prompt, a power of two) within an array. */
    public static final int MAX_PROMPTS = 1 << 29;

    /** Keeps the per-request scan on the dispatch loop's sub-millisecond budget. */
    public static final int MAX_LENGTHS_PER_PROMPT = 4096;

    /**
     * The bounds are these constants, which the component's metatype carries as its min and max;
     * minCount's upper bound is maxLengthsPerPrompt (a rule between two fields, which metatype
     * cannot state: its max for minCount is the largest maxLengthsPerPrompt).
     */
    public ExactMatchSettings {
        if (maxLengthsPerPrompt < MIN_MAX_LENGTHS_PER_PROMPT || maxLengthsPerPrompt > MAX_LENGTHS_PER_PROMPT) {
            throw new IllegalArgumentException("maxLengthsPerPrompt must be in [" + MIN_MAX_LENGTHS_PER_PROMPT + ", "
                    + MAX_LENGTHS_PER_PROMPT + "], got " + maxLengthsPerPrompt);
        }
        if (minCount < MIN_MIN_COUNT || minCount > maxLengthsPerPrompt) {
            throw new IllegalArgumentException("minCount must be in [" + MIN_MIN_COUNT + ", maxLengthsPerPrompt = "
                    + maxLengthsPerPrompt + "], got " + minCount);
        }
        if (maxPrompts < MIN_MAX_PROMPTS || maxPrompts > MAX_PROMPTS) {
            throw new IllegalArgumentException(
                    "maxPrompts must be in [" + MIN_MAX_PROMPTS + ", " + MAX_PROMPTS + "], got " + maxPrompts);
        }
    }

    /**
     * The settings a configuration gives: properties {@code minCount}, {@code maxPrompts},
     * {@code maxLengthsPerPrompt}.
     *
     * @throws ConfigurationException naming the first invalid property and its range
     */
    public static ExactMatchSettings read(ConfigProperties c) {
        int lengths = c.intValue("maxLengthsPerPrompt", DEFAULT_MAX_LENGTHS_PER_PROMPT, MIN_MAX_LENGTHS_PER_PROMPT,
                MAX_LENGTHS_PER_PROMPT);
        int minCount = c.intValue("minCount", DEFAULT_MIN_COUNT, MIN_MIN_COUNT, MAX_LENGTHS_PER_PROMPT);
        c.require(minCount <= lengths, "minCount", "an integer in [" + MIN_MIN_COUNT + ", maxLengthsPerPrompt = "
                + lengths + "]", minCount);
        return new ExactMatchSettings(minCount, c.intValue("maxPrompts", DEFAULT_MAX_PROMPTS, MIN_MAX_PROMPTS,
                MAX_PROMPTS), lengths);
    }

    public static ExactMatchSettings defaults() {
        return new ExactMatchSettings(
                DEFAULT_MIN_COUNT, DEFAULT_MAX_PROMPTS, DEFAULT_MAX_LENGTHS_PER_PROMPT);
    }
}
