package org.balanceroute.policy.balance;

import org.balanceroute.api.ClusterView;
import org.balanceroute.api.RequestView;

/** BR-0: {@link FScore#br0} against the current step's margins. O(1) per score. */
public final class Br0Score implements BarrierScore {

    private long[] load = new long[0];
    private long max;

    @Override
    public void prepare(ClusterView cluster) {
        int g = cluster.workers();
        if (load.length != g) {
            load = new long[g];
        }
        max = 0;
        for (int w = 0; w < g; w++) {
            load[w] = cluster.load(w);
            max = Math.max(max, load[w]);
        }
    }

    @Override
    public double score(int worker, long delta) {
        return FScore.br0(delta, max - load[worker], load.length);
    }

    @Override
    public double slope(int worker, long delta) {
        // +1 below the margin, 1 - G from it on
        return delta < max - load[worker] ? 1 : 1 - load.length;
    }

    @Override
    public long orderMargin(int worker) {
        return max - load[worker];
    }

    @Override
    public void assigned(int worker, RequestView request) {
        load[worker] += request.promptTokens();
        max = Math.max(max, load[worker]);
    }
}
