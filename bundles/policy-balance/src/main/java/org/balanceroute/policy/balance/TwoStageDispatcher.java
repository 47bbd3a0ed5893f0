package org.balanceroute.policy.balance;

import org.balanceroute.api.DispatchStep;
import org.balanceroute.api.PoolView;
import org.balanceroute.api.PromptPoolView;

/**
 * Places waiting requests once per decode step, in two stages, maximising a {@link BarrierScore}.
 *
 * <p><b>Stage 1, abundant capacity</b> (total free slots S_tot > S_greedy): take the worker with
 * the most free slots (ties: the larger margin, then the lower index), or with
 * {@code stage1Worker = margin} the worker with the largest margin among those with a free slot
 * (ties: more free slots, then the lower index), and give it the waiting request with the highest F_g({i}) (ties: the larger prompt, then the older). In the safe
 * regime this is "largest request to lightest worker". A scan of the pool per assignment, or,
 * when a step makes more than log2 |pool| of them (start-up, a burst of completions), one sort
 * of the pool and a binary search per assignment ({@link PoolBySize}: F is concave in the
 * request's size); both make the same picks.
 *
 * <p><b>Stage 2, scarce capacity</b>: visit each worker with free slots once, in order of
 * (free slots, margin) descending, re-evaluated after every assignment. For each, take the
 * R_max oldest waiting requests (oldest first bounds waiting time) and search all their subsets
 * Q with 1 <= |Q| <= cap_g for the one maximising F_g(Q) (ties: more requests, then older ones).
 * If F_g(Q*) > 0 assign Q*; otherwise still assign the single candidate with the highest F, so
 * the pool never grows without bound (the starvation guard). O(G * 2^R_max) per step.
 *
 * <p><b>Projected slots</b> ({@code projectedSlots} = k > 0, BR-H): a worker's slots also count
 * those of its running requests the predictor says end within k steps, less the requests
 * already queued there; a request placed beyond the free slots waits in the worker's FCFS queue
 * ({@link DispatchStep#assignQueued}). Both stages use these counts. At 0 only free slots count.
 *
 * <p>Alternatives considered: a subset-sum DP over token counts (exact but its table is as wide
 * as the margin, millions of tokens) and a greedy fill (misses combinations that hit the margin
 * exactly). With R_max <= 16 exhaustive search is cheap and exact. Not thread-safe: one
 * instance per dispatch loop.
 */
public final class TwoStageDispatcher {

    private final BalanceSettings settings;
    private final boolean stage1ByMargin;
    private final int projectedSlots;
    private final BarrierScore score;
    private final long[] subsetSum;
    private final int[] candidateTokens;
    private final PoolBySize bySize = new PoolBySize();
    private int[] freeSlots = new int[0];
    private boolean[] visited = new boolean[0];

    public TwoStageDispatcher(BalanceSettings settings, BarrierScore score) {
        this.settings = settings;
        this.stage1ByMargin = settings.stage1Worker() == BalanceSettings.Stage1Worker.MARGIN;
        this.projectedSlots = settings.projectedSlots();
        this.score = score;
        this.subsetSum = new long[1 << settings.rMax()];
        this.candidateTokens = new int[settings.rMax()];
    }

    public void dispatch(DispatchStep step) {
        PoolView view = step.view();
        PromptPoolView pool = step.pool();
        int workers = view.workers();
        if (freeSlots.length != workers) {
            freeSlots = new int[workers];
            visited = new boolean[workers];
        }
        score.prepare(view);
        int total = 0; // S_tot
        for (int g = 0; g < workers; g++) {
            freeSlots[g] = slots(view, g);
            total += freeSlots[g];
            visited[g] = false;
        }
        int sGreedy = settings.sGreedyFor(workers);
        int greedyPicks = Math.min(total - sGreedy, pool.size());
        if (greedyPicks > Integer.SIZE - Integer.numberOfLeadingZeros(pool.size())) {
            // Many picks: sorting the pool once beats scanning it for each (same picks).
            bySize.build(pool);
            for (; greedyPicks > 0; greedyPicks--) {
                int g = stage1Worker(workers);
                int best = bySize.best(score, g);
                var request = bySize.request(best);
                place(step, bySize.remove(best), g);
                score.assigned(g, request);
                freeSlots[g]--;
            }
        } else {
            for (; greedyPicks > 0; greedyPicks--) {
                int g = stage1Worker(workers);
                assign(step, bestSingle(pool, g, pool.size()), g);
            }
        }
        while (!pool.isEmpty()) {
            int g = pickWorker(workers, true);
            if (g < 0) {
                break;
            }
            visited[g] = true;
            placeBestSubset(step, g);
        }
    }

    /** Free slots, or with projected slots those plus the ones predicted to free within k steps, less the queue. */
    private int slots(PoolView view, int g) {
        int free = view.freeSlots(g);
        if (projectedSlots == 0 || !view.available(g)) {
            return free;
        }
        int projected = view.capacity(g) - view.running(g) - view.queued(g)
                + score.endingWithin(g, projectedSlots);
        return Math.max(free, projected);
    }

    /** Into a free slot if there is one, else into the worker's queue (a projected slot). */
    private static void place(DispatchStep step, int poolIndex, int g) {
        if (step.view().freeSlots(g) > 0) {
            step.assign(poolIndex, g);
        } else {
            step.assignQueued(poolIndex, g);
        }
    }

    private int stage1Worker(int workers) {
        return stage1ByMargin ? lightestWithSlot(workers) : pickWorker(workers, false);
    }

    /** The worker with the largest margin among those with a free slot, then most free slots, then lowest index. */
    private int lightestWithSlot(int workers) {
        int best = -1;
        long bestMargin = Long.MIN_VALUE;
        for (int g = 0; g < workers; g++) {
            if (freeSlots[g] == 0) {
                continue;
            }
            long m = score.orderMargin(g);
            if (best < 0 || m > bestMargin || (m == bestMargin && freeSlots[g] > freeSlots[best])) {
                best = g;
                bestMargin = m;
            }
        }
        return best;
    }

    /**
     * The worker with most free slots, then largest margin, then lowest index; -1 if none is
     * free. Margins are asked for only to break a tie: with BR-H each costs O(H) after a change.
     */
    private int pickWorker(int workers, boolean skipVisited) {
        int mostSlots = 0, tied = 0, first = -1;
        for (int g = 0; g < workers; g++) {
            if (skipVisited && visited[g]) {
                continue;
            }
            if (freeSlots[g] > mostSlots) {
                mostSlots = freeSlots[g];
                tied = 1;
                first = g;
            } else if (freeSlots[g] == mostSlots && mostSlots > 0) {
                tied++;
            }
        }
        if (tied <= 1) {
            return first;
        }
        int best = first;
        long bestMargin = score.orderMargin(first);
        for (int g = first + 1; g < workers; g++) {
            if (freeSlots[g] == mostSlots && !(skipVisited && visited[g])) {
                long margin = score.orderMargin(g);
                if (margin > bestMargin) {
                    best = g;
                    bestMargin = margin;
                }
            }
        }
        return best;
    }

    /** Among the first {@code n} pool entries, the highest F_g({i}); ties: larger, then older. */
    private int bestSingle(PromptPoolView pool, int g, int n) {
        int best = 0;
        int bestTokens = pool.get(0).promptTokens();
        double bestF = score.score(g, bestTokens);
        for (int i = 1; i < n; i++) {
            int s = pool.get(i).promptTokens();
            double f = score.score(g, s);
            if (f > bestF || (f == bestF && s > bestTokens)) {
                best = i;
                bestF = f;
                bestTokens = s;
            }
        }
        return best;
    }

    private void placeBestSubset(DispatchStep step, int g) {
        PromptPoolView pool = step.pool();
        int n = Math.min(settings.rMax(), pool.size());
        for (int i = 0; i < n; i++) {
            candidateTokens[i] = pool.get(i).promptTokens();
        }
        int cap = freeSlots[g];
        int bestMask = 0;
        int bestCount = 0;
        double bestF = Double.NEGATIVE_INFINITY;
        subsetSum[0] = 0;
        for (int mask = 1, end = 1 << n; mask < end; mask++) {
            subsetSum[mask] = subsetSum[mask & (mask - 1)] + candidateTokens[Integer.numberOfTrailingZeros(mask)];
            int count = Integer.bitCount(mask);
            if (count > cap) {
                continue;
            }
            double f = score.score(g, subsetSum[mask]);
            if (f > bestF || (f == bestF && (count > bestCount
                    || (count == bestCount && hasOlder(mask, bestMask))))) {
                bestF = f;
                bestMask = mask;
                bestCount = count;
            }
        }
        if (bestF > 0) {
            // Highest index first, so the lower candidates keep their pool positions.
            for (int i = n - 1; i >= 0; i--) {
                if ((bestMask & (1 << i)) != 0) {
                    assign(step, i, g);
                }
            }
        } else {
            assign(step, bestSingle(pool, g, n), g);
        }
    }

    /** Whether set a holds the oldest request where a and b differ (lower index = older). */
    private static boolean hasOlder(int a, int b) {
        int diff = a ^ b;
        return (a & diff & -diff) != 0;
    }

    private void assign(DispatchStep step, int poolIndex, int g) {
        var request = step.pool().get(poolIndex);
        place(step, poolIndex, g);
        score.assigned(g, request);
        freeSlots[g]--;
    }
}
