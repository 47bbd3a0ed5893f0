package org.balanceroute.policy.balance;

import org.balanceroute.api.PoolView;
import org.balanceroute.api.RequestView;

/**
 * BR-0: {@link FScore#br0} against the current step's margins, each worker judged in its own
 * group (decode instance): m_g = M_group - L_g and the overflow penalty is the group's G - 1,
 * since only a group's ranks wait for each other at its barrier. O(1) per score.
 *
 * <p>Across groups workers are ordered by M - L_g, M the heaviest worker of every group: the
 * F-score alone sees an empty (or light) instance as balanced (its I is 0) and would never feed it
 * while another instance has a margin, though its ranks idle. Within a group the order is the
 * group margin's (a constant shift); with one group it is exactly m_g.
 */
public final class Br0Score implements BarrierScore {

    private long[] load = new long[0];
    private int[] groupOf = new int[0];
    private int[] groupSize = new int[0];
    private long[] groupMax = new long[0];
    private long max;

    @Override
    public void prepare(PoolView view) {
        int n = view.workers();
        int groups = view.groups();
        if (load.length != n) {
            load = new long[n];
            groupOf = new int[n];
        }
        if (groupMax.length != groups) {
            groupMax = new long[groups];
            groupSize = new int[groups];
        }
        for (int i = 0; i < groups; i++) {
            groupSize[i] = view.groupSize(i);
            groupMax[i] = 0;
        }
        max = 0;
        for (int w = 0; w < n; w++) {
            int i = view.group(w);
            groupOf[w] = i;
            load[w] = view.load(w);
            groupMax[i] = Math.max(groupMax[i], load[w]);
            max = Math.max(max, load[w]);
        }
    }

    @Override
    public double score(int worker, long delta) {
        int i = groupOf[worker];
        return FScore.br0(delta, groupMax[i] - load[worker], groupSize[i]);
    }

    @Override
    public double slope(int worker, long delta) {
        // +1 below the margin, 1 - G from it on
        int i = groupOf[worker];
        return delta < groupMax[i] - load[worker] ? 1 : 1 - groupSize[i];
    }

    @Override
    public long orderMargin(int worker) {
        return max - load[worker];
    }

    @Override
    public void assigned(int worker, RequestView request) {
        load[worker] += request.promptTokens();
        int i = groupOf[worker];
        groupMax[i] = Math.max(groupMax[i], load[worker]);
        max = Math.max(max, load[worker]);
    }
}
