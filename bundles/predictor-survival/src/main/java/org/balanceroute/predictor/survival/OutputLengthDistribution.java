package org.balanceroute.predictor.survival;

import java.util.Arrays;
import org.balanceroute.api.TerminationPredictor;

/**
 * Online empirical distribution of output lengths (total decode steps of finished requests,
 * each >= 1), with C(x) = number of observed lengths <= x.
 *
 * <p>Backed by a Fenwick (binary indexed) tree over lengths 1..capacity, capacity a power of
 * two that doubles as longer lengths arrive: {@link #add} and every query are O(log capacity)
 * and allocate nothing except when growing. Not thread-safe: the dispatch loop is its only
 * user.
 */
public final class OutputLengthDistribution {

    /**
     * Longest length accepted (2^24 tokens, far past any context window); it bounds the tree
     * at 2^24 + 1 counters so one corrupt length cannot exhaust the heap.
     */
    public static final int MAX_LENGTH = 1 << 24;

    /** Covers typical output lengths without growing. */
    public static final int DEFAULT_INITIAL_CAPACITY = 1024;

    /** tree[i] = number of lengths in (i - lowbit(i), i]; index 0 unused. */
    private long[] tree;
    private int capacity;
    private long count;

    public OutputLengthDistribution() {
        this(DEFAULT_INITIAL_CAPACITY);
    }

    /**
     * @param initialCapacity longest length held before the first growth, in [1, MAX_LENGTH];
     *     rounded up to a power of two
     */
    public OutputLengthDistribution(int initialCapacity) {
        if (initialCapacity < 1 || initialCapacity > MAX_LENGTH) {
            throw new IllegalArgumentException(
                    "initialCapacity must be in [1, " + MAX_LENGTH + "], got " + initialCapacity);
        }
        capacity = Integer.highestOneBit(initialCapacity);
        if (capacity < initialCapacity) {
            capacity <<= 1;
        }
        tree = new long[capacity + 1];
    }

    /** Records one finished request's output length, in [1, {@link #MAX_LENGTH}]. */
    public void add(int length) {
        if (length < 1 || length > MAX_LENGTH) {
            throw new IllegalArgumentException(
                    "length must be in [1, " + MAX_LENGTH + "], got " + length);
        }
        if (length > capacity) {
            grow(length);
        }
        for (int i = length; i <= capacity; i += i & -i) {
            tree[i]++;
        }
        count++;
    }

    /** Forgets one length recorded by {@link #add} (a sliding window's oldest). */
    public void remove(int length) {
        if (length < 1 || length > capacity || countAtMost(length) - countAtMost(length - 1) == 0) {
            throw new IllegalArgumentException("length " + length + " was not recorded");
        }
        for (int i = length; i <= capacity; i += i & -i) {
            tree[i]--;
        }
        count--;
    }

    /** n: number of lengths observed. */
    public long count() {
        return count;
    }

    /** C(x): number of observed lengths <= x (0 for x < 1, n for x >= every length). */
    public long countAtMost(int length) {
        if (length <= 0) {
            return 0;
        }
        if (length >= capacity) {
            return count;
        }
        long sum = 0;
        for (int i = length; i > 0; i -= i & -i) {
            sum += tree[i];
        }
        return sum;
    }

    /**
     * The gated termination classifier. A request that has decoded j tokens and is still
     * running has o > j, so
     *
     * <pre>
     *   P(ends within H) = (C(j+H) - C(j)) / (n - C(j))
     * </pre>
     *
     * <p>Returns {@link TerminationPredictor#SURVIVES} when n &lt; minSamples, when
     * n - C(j) = 0 (the request outlived every length seen), when no observed length lies in
     * (j, j+H] (nothing to time an end by, even at confidence 0), when P &lt; confidence (also
     * for a NaN confidence: the gate fails closed), or when H &lt; 1 (no step to end in).
     * Otherwise returns the conditional median of the remaining steps,
     *
     * <pre>
     *   c = min { h in 1..H : C(j+h) - C(j) >= (C(j+H) - C(j)) / 2 }
     * </pre>
     *
     * meaning the request is expected to be active for exactly c more decode steps, the
     * current one included: o = j + c.
     *
     * @param decoded j, tokens decoded so far (>= 0)
     * @param horizon H
     * @param confidence the gate, in [0, 1]
     * @param minSamples observations needed before answering anything but SURVIVES
     * @return c in [1, H], or {@link TerminationPredictor#SURVIVES}
     */
    public int endWithin(int decoded, int horizon, double confidence, long minSamples) {
        return endWithin(decoded, horizon, confidence, minSamples, SurvivalSettings.DEFAULT_QUANTILE);
    }

    /**
     * As {@link #endWithin(int, int, double, long)}, with the q-quantile of the remaining steps
     * in place of the median:
     *
     * <pre>
     *   c = min { h in 1..H : C(j+h) - C(j) >= max(1, ceil(q * (C(j+H) - C(j)))) }
     * </pre>
     *
     * which at q = 0.5 is exactly the median above.
     *
     * @param quantile q, in (0, 1]
     */
    public int endWithin(int decoded, int horizon, double confidence, long minSamples, double quantile) {
        if (horizon < 1 || count < minSamples) {
            return TerminationPredictor.SURVIVES;
        }
        long atJ = countAtMost(decoded);
        long alive = count - atJ;
        if (alive == 0) {
            return TerminationPredictor.SURVIVES;
        }
        // j + H can pass Integer.MAX_VALUE; any value >= capacity already means C = n.
        int end = (int) Math.min((long) decoded + horizon, Integer.MAX_VALUE);
        long ending = countAtMost(end) - atJ;
        if (ending == 0 || !((double) ending / alive >= confidence)) {
            return TerminationPredictor.SURVIVES;
        }
        // The target is in (C(j), C(j+H)], so the smallest such length lies in (j, j+H].
        return lowerBound(atJ + quantileRank(quantile, ending)) - decoded;
    }

    /**
     * max(1, ceil(q * n)), in [1, n] for q in (0, 1]: how many of n ordered values lie at or below
     * their q-quantile. At q = 0.5 it is ceil(n / 2), exactly, as 0.5 * n is exact in a double.
     */
    public static long quantileRank(double quantile, long n) {
        return Math.max(1, Math.min(n, (long) Math.ceil(quantile * n)));
    }

    /**
     * Smallest x with C(x) >= target, for 1 <= target <= n: a binary search done as one
     * descent of the tree, O(log capacity).
     */
    private int lowerBound(long target) {
        int pos = 0;
        long remaining = target;
        for (int step = capacity; step > 0; step >>>= 1) {
            int next = pos + step;
            if (next <= capacity && tree[next] < remaining) {
                pos = next;
                remaining -= tree[next];
            }
        }
        return pos + 1;
    }

    /**
     * Doubles the capacity until it holds {@code length}. No rebuild is needed: before a
     * doubling from c to 2c every length is <= c, so the new node 2c (covering (0, 2c]) holds
     * n and every other new node covers a range inside (c, 2c], which is empty.
     */
    private void grow(int length) {
        int newCapacity = capacity;
        while (newCapacity < length) {
            newCapacity <<= 1;
        }
        tree = Arrays.copyOf(tree, newCapacity + 1);
        for (int c = capacity << 1; c <= newCapacity; c <<= 1) {
            tree[c] = count;
        }
        capacity = newCapacity;
    }
}
