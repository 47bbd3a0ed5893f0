package org.balanceroute.policy.balance;

import org.balanceroute.api.PoolView;
import org.balanceroute.api.RequestView;

/**
 * The score the {@link TwoStageDispatcher} maximises, with the per-step state it needs. The
 * dispatcher calls {@link #prepare} once at the start of a step, then alternates scoring and
 * {@link #assigned}, so every assignment sees the margins its predecessors left.
 */
public interface BarrierScore {

    /** Reads the cluster at the start of a dispatch step. */
    void prepare(PoolView view);

    /** F_g(Q) for a set of waiting requests whose prompts sum to {@code delta} tokens. */
    double score(int worker, long delta);

    /**
     * F_g(delta + 1) - F_g(delta), computed without cancelling large terms. F is concave in
     * delta, so the slope never increases: the dispatcher binary-searches sizes with it.
     */
    double slope(int worker, long delta);

    /**
     * The margin that orders workers: m_g for BR-0; for BR-H one of the m_{g,h} by
     * {@link BalanceSettings#horizonMargin()} (min over the horizon by default). With several
     * groups, shifted by the worker's group's gap to the heaviest group, so that a light instance's
     * workers come first (the F-score alone sees an empty instance as balanced).
     */
    long orderMargin(int worker);

    /**
     * Running requests of {@code worker} predicted to end within the next {@code steps} steps
     * (read at {@link #prepare}): the slots they free soon. 0 without a predictor.
     */
    default int endingWithin(int worker, int steps) {
        return 0;
    }

    /** Records that {@code request} was just given to {@code worker}. */
    void assigned(int worker, RequestView request);
}
