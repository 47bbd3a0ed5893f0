package org.balanceroute.policy.balance;

import org.balanceroute.api.PoolView;
import org.balanceroute.api.RequestView;

/**
 * BR-0 without the pool: each request is routed on arrival to the worker with the highest
 * F_g({i}), counting prompts queued at a worker as its load. Among workers that absorb the
 * request without raising the barrier (F = s_i for all of them) it takes the one with the most
 * free slots, then the largest margin; when every worker overflows, the lightest. Workers that
 * are not {@link PoolView#available} are skipped (their load still counts in M: their running
 * requests are still in the barrier until they end). Stage 2's subset choice is lost, which is the
 * price of the lowest latency. Each worker is judged in its own group (its M, its G). O(G).
 */
final class ArrivalFScore {

    private ArrivalFScore() {
    }

    static int route(PoolView view, RequestView request) {
        int best = 0;
        long bestF = Long.MIN_VALUE;
        int bestFree = 0;
        long bestMargin = 0;
        for (int group = 0, groups = view.groups(); group < groups; group++) {
            int first = view.groupStart(group);
            int end = first + view.groupSize(group);
            long max = 0;
            for (int g = first; g < end; g++) {
                max = Math.max(max, effectiveLoad(view, g));
            }
            for (int g = first; g < end; g++) {
                if (!view.available(g)) {
                    continue;
                }
                long margin = max - effectiveLoad(view, g);
                long f = FScore.br0(request.promptTokens(), margin, end - first);
                int free = view.freeSlots(g);
                if (f > bestF || (f == bestF && (free > bestFree || (free == bestFree && margin > bestMargin)))) {
                    best = g;
                    bestF = f;
                    bestFree = free;
                    bestMargin = margin;
                }
            }
        }
        return best;
    }

    private static long effectiveLoad(PoolView view, int g) {
        return view.load(g) + view.queuedTokens(g);
    }
}
