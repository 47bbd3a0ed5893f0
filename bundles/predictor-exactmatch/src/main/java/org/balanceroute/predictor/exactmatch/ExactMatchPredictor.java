package org.balanceroute.predictor.exactmatch;

import java.util.Arrays;
import java.util.Objects;
import org.balanceroute.api.RequestView;
import org.balanceroute.api.TerminationPredictor;
import org.balanceroute.predictor.survival.OutputLengthDistribution;
import org.balanceroute.predictor.survival.SurvivalPredictor;
import org.balanceroute.predictor.survival.SurvivalSettings;

/**
 * Exact-match termination predictor (spec section 5): the survival classifier evaluated over
 * the output lengths previously seen for the same prompt ({@link RequestView#promptKey()}).
 *
 * <p>For a request with j decoded tokens whose prompt has at least minCount recorded lengths,
 * some of them > j:
 *
 * <pre>
 *   P(ends within H) = #{lengths in (j, j+H]} / #{lengths > j}
 *   c = min { h in 1..H : #{lengths in (j, j+h]} >= #{lengths in (j, j+H]} / 2 }
 * </pre>
 *
 * (with the survival settings' quantile q in place of 1/2 when it is not the default: the count
 * is then max(1, ceil(q * #{lengths in (j, j+H]})), for the prompt's history and the fallback alike)
 *
 * answering {@link #SURVIVES} when P &lt; confidence or no length lies in (j, j+H]. For an
 * unknown prompt (key {@link RequestView#NO_PROMPT_KEY} or never recorded), fewer than
 * minCount lengths, or a request that outlived every recorded length of its prompt, the answer
 * is the embedded {@link SurvivalPredictor}'s, which learns from every completion.
 *
 * <p>Per-prompt histories live in a primitive open-addressing map (prompt key to a small ring
 * of its latest lengths), so lookups neither box nor allocate. Not thread-safe: the dispatch
 * loop is its only caller. {@link #predictEnd} allocates nothing.
 */
public final class ExactMatchPredictor implements TerminationPredictor {

    public static final String NAME = "exact-match";

    private static final int INITIAL_PROMPTS = 16;
    private static final int INITIAL_RING = 4;

    private final int minCount;
    private final int maxPrompts;
    private final int maxLengthsPerPrompt;
    private final SurvivalPredictor fallback;
    private final double quantile;

    /** Linear-probing table; key 0 marks an empty slot (NO_PROMPT_KEY is never stored). */
    private long[] keys;
    /** Index of keys[i]'s prompt in the per-prompt arrays below. */
    private int[] promptIndexes;
    private int mask;

    /** Per prompt: its ring of latest lengths (grown up to maxLengthsPerPrompt). */
    private int[][] rings;
    /** Per prompt: lengths held in its ring. */
    private int[] sizes;
    /** Per prompt: next ring slot to overwrite once the ring is full (the oldest length). */
    private int[] cursors;
    private int prompts;

    public ExactMatchPredictor(ExactMatchSettings settings, SurvivalSettings survivalSettings) {
        Objects.requireNonNull(settings, "settings");
        this.minCount = settings.minCount();
        this.maxPrompts = settings.maxPrompts();
        this.maxLengthsPerPrompt = settings.maxLengthsPerPrompt();
        this.fallback = new SurvivalPredictor(
                Objects.requireNonNull(survivalSettings, "survivalSettings"));
        this.quantile = survivalSettings.quantile();
        int initialPrompts = Math.min(INITIAL_PROMPTS, maxPrompts);
        keys = new long[tableCapacityFor(initialPrompts)];
        promptIndexes = new int[keys.length];
        mask = keys.length - 1;
        rings = new int[initialPrompts][];
        sizes = new int[initialPrompts];
        cursors = new int[initialPrompts];
    }

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public int predictEnd(RequestView request, int horizon, double confidence) {
        long key = request.promptKey();
        int prompt = key == RequestView.NO_PROMPT_KEY ? -1 : find(key);
        if (prompt < 0 || sizes[prompt] < minCount) {
            return fallback.predictEnd(request, horizon, confidence);
        }
        int[] ring = rings[prompt];
        int size = sizes[prompt];
        int decoded = request.decodedTokens();
        long end = (long) decoded + horizon; // j + H may pass Integer.MAX_VALUE
        int alive = 0;
        int ending = 0;
        for (int i = 0; i < size; i++) {
            int length = ring[i];
            if (length > decoded) {
                alive++;
                if (length <= end) {
                    ending++;
                }
            }
        }
        if (alive == 0) {
            // Outlived its prompt's history: that history no longer says anything about it.
            return fallback.predictEnd(request, horizon, confidence);
        }
        // NaN confidence fails closed, as in the survival classifier.
        if (ending == 0 || !((double) ending / alive >= confidence)) {
            return SURVIVES;
        }
        // The q-quantile of the ends within H, as the fallback's (the median by default).
        int needed = (int) OutputLengthDistribution.quantileRank(quantile, ending);
        int lo = 1;
        int hi = horizon;
        while (lo < hi) {
            int mid = lo + (hi - lo) / 2;
            if (countIn(ring, size, decoded, (long) decoded + mid) >= needed) {
                hi = mid;
            } else {
                lo = mid + 1;
            }
        }
        return lo;
    }

    /**
     * Records the output length for the request's prompt (when it has a key, and while the
     * table has room or already knows the prompt) and always feeds the survival fallback.
     * Lengths < 1 are ignored.
     */
    @Override
    public void onCompleted(RequestView request, int outputTokens) {
        fallback.onCompleted(request, outputTokens);
        record(request.promptKey(), outputTokens);
    }

    /**
     * Preloads completions, e.g. from a trace, under the same rules as {@link #onCompleted}.
     *
     * @param promptKeys prompt key of each completion ({@link RequestView#NO_PROMPT_KEY} when
     *     unknown)
     * @param outputLengths output length of each completion, same length as promptKeys
     */
    public void warmStart(long[] promptKeys, int[] outputLengths) {
        Objects.requireNonNull(promptKeys, "promptKeys");
        Objects.requireNonNull(outputLengths, "outputLengths");
        if (promptKeys.length != outputLengths.length) {
            throw new IllegalArgumentException("promptKeys and outputLengths differ in length: "
                    + promptKeys.length + " vs " + outputLengths.length);
        }
        fallback.warmStart(outputLengths);
        for (int i = 0; i < promptKeys.length; i++) {
            record(promptKeys[i], outputLengths[i]);
        }
    }

    /** Prompts with a recorded history (at most maxPrompts). */
    public int promptCount() {
        return prompts;
    }

    private static int countIn(int[] ring, int size, int decoded, long end) {
        int count = 0;
        for (int i = 0; i < size; i++) {
            int length = ring[i];
            if (length > decoded && length <= end) {
                count++;
            }
        }
        return count;
    }

    private void record(long key, int length) {
        if (key == RequestView.NO_PROMPT_KEY || length < 1) {
            return;
        }
        int prompt = find(key);
        if (prompt < 0) {
            if (prompts == maxPrompts) {
                return;
            }
            prompt = insert(key);
        }
        int[] ring = rings[prompt];
        int size = sizes[prompt];
        if (size < maxLengthsPerPrompt) {
            if (size == ring.length) {
                ring = Arrays.copyOf(ring, Math.min(2 * size, maxLengthsPerPrompt));
                rings[prompt] = ring;
            }
            ring[size] = length;
            sizes[prompt] = size + 1;
        } else {
            // Full: the ring was filled in order, so cursor walks from the oldest entry.
            int cursor = cursors[prompt];
            ring[cursor] = length;
            cursors[prompt] = cursor + 1 == maxLengthsPerPrompt ? 0 : cursor + 1;
        }
    }

    /** Index of the prompt's history, or -1 when the prompt is not in the table. */
    private int find(long key) {
        for (int slot = hash(key) & mask; ; slot = (slot + 1) & mask) {
            long k = keys[slot];
            if (k == key) {
                return promptIndexes[slot];
            }
            if (k == 0) {
                return -1;
            }
        }
    }

    /** Adds a prompt known to be absent, with room left under maxPrompts. */
    private int insert(long key) {
        int prompt = prompts;
        if (prompt == rings.length) {
            int grown = (int) Math.min(2L * prompt, maxPrompts);
            rings = Arrays.copyOf(rings, grown);
            sizes = Arrays.copyOf(sizes, grown);
            cursors = Arrays.copyOf(cursors, grown);
        }
        if (keys.length < tableCapacityFor(prompt + 1)) {
            rehash(keys.length << 1);
        }
        place(key, prompt);
        rings[prompt] = new int[Math.min(INITIAL_RING, maxLengthsPerPrompt)];
        prompts = prompt + 1;
        return prompt;
    }

    private void rehash(int capacity) {
        long[] oldKeys = keys;
        int[] oldIndexes = promptIndexes;
        keys = new long[capacity];
        promptIndexes = new int[capacity];
        mask = capacity - 1;
        for (int slot = 0; slot < oldKeys.length; slot++) {
            if (oldKeys[slot] != 0) {
                place(oldKeys[slot], oldIndexes[slot]);
            }
        }
    }

    private void place(long key, int prompt) {
        int slot = hash(key) & mask;
        while (keys[slot] != 0) {
            slot = (slot + 1) & mask;
        }
        keys[slot] = key;
        promptIndexes[slot] = prompt;
    }

    /** Power of two keeping the load factor at or below 1/2, so probe runs stay short. */
    private static int tableCapacityFor(int entries) {
        return Integer.highestOneBit(Math.max(entries, 1) * 2 - 1) << 1;
    }

    /** MurmurHash3's 64-bit finalizer: prompt keys need not be well mixed in their low bits. */
    private static int hash(long key) {
        long h = key;
        h ^= h >>> 33;
        h *= 0xff51afd7ed558ccdL;
        h ^= h >>> 33;
        h *= 0xc4ceb9fe1a85ec53L;
        h ^= h >>> 33;
        return (int) h;
    }
}
