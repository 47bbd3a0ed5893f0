package org.balanceroute.policy.balance;

import java.util.Arrays;
import org.balanceroute.api.PromptPoolView;
import org.balanceroute.api.RequestView;

/**
 * Stage 1's index of the prompt pool: waiting requests sorted by (prompt tokens, age), so the
 * request with the highest F_g({i}) is found by binary search instead of a scan of the pool.
 * F_g is concave in Delta: it rises while its slope is positive, then never rises again, so the
 * best single request is the largest one before the peak or the smallest one at or past it
 * (then the largest on a plateau there). Ties keep the scan's rule: the larger request, then the
 * older. Also maps a request back to its current pool position, which shifts as requests
 * leave, with a Fenwick tree over the positions removed. Built once per step that runs Stage 1,
 * O(n log n); each pick O(log n) scores; each removal O(n) array shift plus O(log n).
 */
final class PoolBySize {

    /** Pool positions are packed into the low bits of the sort key. */
    static final int POSITION_BITS = 24;
    static final int MAX_POOL = 1 << POSITION_BITS;

    private long[] keys = new long[0];       // tokens << POSITION_BITS | position at build time
    private RequestView[] byPosition = new RequestView[0];
    private int[] removedTree = new int[1];  // Fenwick tree: positions removed so far
    private int size;
    private int built;

    void build(PromptPoolView pool) {
        int n = pool.size();
        if (n > MAX_POOL) {
            throw new IllegalStateException("prompt pool of " + n + " requests exceeds " + MAX_POOL);
        }
        if (keys.length < n) {
            keys = new long[n];
            byPosition = new RequestView[n];
            removedTree = new int[n + 1];
        } else {
            Arrays.fill(removedTree, 0, built + 1, 0);
        }
        for (int i = 0; i < n; i++) {
            RequestView r = pool.get(i);
            byPosition[i] = r;
            keys[i] = ((long) r.promptTokens() << POSITION_BITS) | i;
        }
        Arrays.sort(keys, 0, n);
        size = n;
        built = n;
    }

    int size() {
        return size;
    }

    private int tokens(int i) {
        return (int) (keys[i] >>> POSITION_BITS);
    }

    private int position(int i) {
        return (int) (keys[i] & (MAX_POOL - 1));
    }

    /** Index (in this index) of the waiting request with the highest F_g; ties larger, then older. */
    int best(BarrierScore score, int g) {
        // j: the first request at or past the peak (where F stops rising)
        int lo = 0, hi = size;
        while (lo < hi) {
            int mid = (lo + hi) >>> 1;
            if (score.slope(g, tokens(mid)) > 0) {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        int j = lo;
        if (j == size) {
            return firstOfSize(tokens(size - 1)); // still rising at the largest: take it
        }
        double peak = score.score(g, tokens(j));
        // Past the peak F never rises; a plateau at the peak level goes to the largest request on it.
        lo = j;
        hi = size - 1;
        while (lo < hi) {
            int mid = (lo + hi + 1) >>> 1;
            if (score.score(g, tokens(mid)) >= peak) {
                lo = mid;
            } else {
                hi = mid - 1;
            }
        }
        int chosen = lo;
        if (j > 0 && score.score(g, tokens(j - 1)) > peak) {
            chosen = j - 1;
        }
        return firstOfSize(tokens(chosen));
    }

    /** The oldest request of a given size: the first key with those tokens. */
    private int firstOfSize(int tokens) {
        long key = (long) tokens << POSITION_BITS;
        int lo = 0, hi = size;
        while (lo < hi) {
            int mid = (lo + hi) >>> 1;
            if (keys[mid] < key) {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        return lo;
    }

    RequestView request(int i) {
        return byPosition[position(i)];
    }

    /** Removes entry i and returns the request's current position in the pool. */
    int remove(int i) {
        int p = position(i);
        System.arraycopy(keys, i + 1, keys, i, size - i - 1);
        size--;
        int removedBefore = 0;
        for (int k = p; k > 0; k -= k & -k) {
            removedBefore += removedTree[k];
        }
        for (int k = p + 1; k <= built; k += k & -k) {
            removedTree[k]++;
        }
        return p - removedBefore;
    }
}
