package org.balanceroute.policy.balance;

import java.util.Arrays;
import org.balanceroute.api.PoolView;
import org.balanceroute.api.RequestView;
import org.balanceroute.api.TerminationPredictor;

/**
 * BR-H: the F-score judged over the next H steps. A termination predictor says, for each
 * running request, whether it ends within H steps and about when (c_i), which projects each
 * worker's load ahead:
 *
 * <pre>
 *   L_g(k+h) = sum over i in A_g(k) with c_i > h of (w_i + h),   M(k+h) = max_g L_g(k+h)
 *   m_{g,h}  = M(k+h) - L_g(k+h)
 *   F_g(Q)   = alpha * (sum_h gamma^h) * Delta - beta * sum_h gamma^h * max(0, Delta - m_{g,h})
 * </pre>
 *
 * Each future step's overflow is judged against that step's own margin. H=0, alpha=1, beta=G
 * is exactly BR-0. With several groups (decode instances) M(k+h) is each group's own: a worker's
 * margins are measured against the projected barrier of its group only; beta is shared.
 *
 * <p>Cost: {@link #prepare} is O(running requests + G*H) (one predictor call per running
 * request, difference arrays for the projection). Scoring is O(log H): a worker's margins are
 * kept sorted with prefix sums of gamma^h and gamma^h * m, so the hinge sum is
 * {@code Delta * D(<Delta) - DM(<Delta)} after one binary search. Stage 2 scores up to
 * 2^R_max subsets per worker, which is why scoring must not be O(H). The sorted margins and the
 * minimum margin are rebuilt lazily, per worker, when first asked for after a change: an
 * assignment that raises a future maximum changes every worker's margins, but the dispatcher
 * only scores the one worker it picked.
 */
public final class HorizonScore implements BarrierScore {

    private static final int HORIZON_BITS = 10; // MAX_HORIZON = 1000 < 2^10

    private final int horizon;
    private final double alpha;
    private final double beta;
    private final double confidence;
    private final BalanceSettings.HorizonMargin orderBy;
    private final boolean projectsQueue;
    private final double[] discount;
    private final double discountSum;
    private final TerminationPredictor predictor;

    private int workers;
    private long[][] projected;   // [g][h] = L_g(k+h)
    private long[][] maxAhead;     // [group][h] = M(k+h) of the group
    private int[] groupOf = new int[0]; // [g]
    private long heaviestNow;      // max over groups of M(k)
    private long[][] sortedMargin; // [g][rank] ascending
    private double[][] prefixD;    // [g][rank]: sum of gamma^h over the first rank margins
    private double[][] prefixDm;   // [g][rank]: sum of gamma^h * m over the first rank margins
    private final long[] sortKeys;
    private boolean[] sortedStale;  // [g]: sortedMargin and prefixes need a rebuild
    private boolean[] minStale;     // [g]: minMargin needs a rescan
    private long[] minMargin;       // [g]
    private final long[] endCount;  // [c]: running requests of one worker active for exactly c more steps
    private final long[] endLoad;   // [c]: their KV loads
    private int[][] endedBy;        // [g][c]: running requests of g predicted active for at most c more steps

    public HorizonScore(BalanceSettings settings, TerminationPredictor predictor) {
        this.horizon = settings.horizon();
        this.alpha = settings.alpha();
        this.beta = settings.beta();
        this.confidence = settings.confidence();
        this.orderBy = settings.horizonMargin();
        this.projectsQueue = settings.projectedSlots() > 0;
        this.predictor = predictor;
        this.discount = new double[horizon + 1];
        double d = 1, sum = 0;
        for (int h = 0; h <= horizon; h++) {
            discount[h] = d;
            sum += d;
            d *= settings.gamma();
        }
        this.discountSum = sum;
        this.maxAhead = new long[0][];
        this.sortKeys = new long[horizon + 1];
        this.endCount = new long[horizon + 2];
        this.endLoad = new long[horizon + 2];
    }

    @Override
    public void prepare(PoolView view) {
        int g = view.workers();
        if (g != workers) {
            workers = g;
            projected = new long[g][horizon + 1];
            sortedMargin = new long[g][horizon + 1];
            prefixD = new double[g][horizon + 2];
            prefixDm = new double[g][horizon + 2];
            sortedStale = new boolean[g];
            minStale = new boolean[g];
            minMargin = new long[g];
            endedBy = new int[g][horizon + 2];
            groupOf = new int[g];
        }
        if (maxAhead.length != view.groups()) {
            maxAhead = new long[view.groups()][horizon + 1];
        }
        for (long[] row : maxAhead) {
            Arrays.fill(row, 0);
        }
        for (int w = 0; w < g; w++) {
            groupOf[w] = view.group(w);
            long[] groupAhead = maxAhead[groupOf[w]];
            Arrays.fill(endCount, 0);
            Arrays.fill(endLoad, 0);
            for (int i = 0, n = view.running(w); i < n; i++) {
                RequestView r = view.active(w, i);
                int c = stepsLeft(r);
                endCount[c]++;
                endLoad[c] += r.kvLoad();
            }
            int[] ended = endedBy[w];
            for (int c = 1; c <= horizon + 1; c++) {
                ended[c] = ended[c - 1] + (int) endCount[c];
            }
            // Suffix sums: at h, the requests still active are those with c > h. With projected
            // slots, requests queued on the worker are counted as running past the horizon (they
            // start within k steps); else a queue it was given would not weigh on its margins.
            long count = projectsQueue ? view.queued(w) : 0;
            long load = projectsQueue ? view.queuedTokens(w) : 0;
            long[] row = projected[w];
            for (int h = horizon; h >= 0; h--) {
                count += endCount[h + 1];
                load += endLoad[h + 1];
                row[h] = load + h * count;
                groupAhead[h] = Math.max(groupAhead[h], row[h]);
            }
        }
        heaviestNow = 0;
        for (long[] row : maxAhead) {
            heaviestNow = Math.max(heaviestNow, row[0]);
        }
        markAllStale();
    }

    /** c_i clipped to [1, H+1], H+1 meaning "still running after the horizon". */
    private int stepsLeft(RequestView r) {
        if (horizon == 0) {
            return 1;
        }
        int c = predictor.predictEnd(r, horizon, confidence);
        return c == TerminationPredictor.SURVIVES || c > horizon ? horizon + 1 : Math.max(1, c);
    }

    /** Those with c_i <= steps; past the horizon the predictor says nothing, so steps counts up to H. */
    @Override
    public int endingWithin(int worker, int steps) {
        return endedBy[worker][Math.min(steps, horizon)];
    }

    @Override
    public double score(int worker, long delta) {
        int rank = marginsBelow(worker, delta);
        double overflow = delta * prefixD[worker][rank] - prefixDm[worker][rank];
        return alpha * discountSum * delta - beta * overflow;
    }

    /** Margins are integers, so one more token overflows exactly the steps whose margin is <= delta. */
    @Override
    public double slope(int worker, long delta) {
        return alpha * discountSum - beta * prefixD[worker][marginsBelow(worker, delta + 1)];
    }

    /** How many of the worker's H+1 future margins are strictly below delta (those steps overflow). */
    private int marginsBelow(int worker, long delta) {
        if (sortedStale[worker]) {
            rebuild(worker);
        }
        long[] margins = sortedMargin[worker];
        int lo = 0, hi = horizon + 1;
        while (lo < hi) {
            int mid = (lo + hi) >>> 1;
            if (margins[mid] < delta) {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        return lo;
    }

    /**
     * By {@code horizonMargin}: min_h m_{g,h} (O(H) after a change), the gamma-discounted mean
     * of the m_{g,h} (from the sorted margins' prefix sums: O(H log H) after a change), or m_{g,0}.
     */
    @Override
    public long orderMargin(int worker) {
        // a lighter group's workers come first: the gap of its barrier to the heaviest one's, now
        return groupMargin(worker) + heaviestNow - maxAhead[groupOf[worker]][0];
    }

    private long groupMargin(int worker) {
        if (orderBy == BalanceSettings.HorizonMargin.NOW) {
            return maxAhead[groupOf[worker]][0] - projected[worker][0];
        }
        if (orderBy == BalanceSettings.HorizonMargin.MEAN) {
            if (sortedStale[worker]) {
                rebuild(worker);
            }
            return Math.round(prefixDm[worker][horizon + 1] / discountSum);
        }
        if (minStale[worker]) {
            long[] row = projected[worker];
            long[] groupAhead = maxAhead[groupOf[worker]];
            long min = Long.MAX_VALUE;
            for (int h = 0; h <= horizon; h++) {
                min = Math.min(min, groupAhead[h] - row[h]);
            }
            minMargin[worker] = min;
            minStale[worker] = false;
        }
        return minMargin[worker];
    }

    @Override
    public void assigned(int worker, RequestView request) {
        int c = stepsLeft(request);
        long w = request.kvLoad();
        long[] row = projected[worker];
        long[] groupAhead = maxAhead[groupOf[worker]];
        boolean maxRose = false;
        for (int h = 0; h < c && h <= horizon; h++) {
            row[h] += w + h;
            if (row[h] > groupAhead[h]) {
                groupAhead[h] = row[h];
                maxRose = true;
            }
        }
        heaviestNow = Math.max(heaviestNow, groupAhead[0]);
        // A higher barrier changes the margins of every worker of the group; otherwise only this worker's.
        if (maxRose) {
            int group = groupOf[worker];
            for (int g = 0; g < workers; g++) {
                if (groupOf[g] == group) {
                    sortedStale[g] = true;
                    minStale[g] = true;
                }
            }
        } else {
            sortedStale[worker] = true;
            minStale[worker] = true;
        }
    }

    private void markAllStale() {
        Arrays.fill(sortedStale, true);
        Arrays.fill(minStale, true);
    }

    private void rebuild(int worker) {
        long[] row = projected[worker];
        long[] groupAhead = maxAhead[groupOf[worker]];
        for (int h = 0; h <= horizon; h++) {
            sortKeys[h] = ((groupAhead[h] - row[h]) << HORIZON_BITS) | h;
        }
        Arrays.sort(sortKeys);
        long[] margins = sortedMargin[worker];
        double[] pd = prefixD[worker];
        double[] pdm = prefixDm[worker];
        for (int rank = 0; rank <= horizon; rank++) {
            long m = sortKeys[rank] >>> HORIZON_BITS;
            double d = discount[(int) (sortKeys[rank] & ((1 << HORIZON_BITS) - 1))];
            margins[rank] = m;
            pd[rank + 1] = pd[rank] + d;
            pdm[rank + 1] = pdm[rank] + d * m;
        }
        sortedStale[worker] = false;
    }
}
