package org.balanceroute.simulator;

import org.balanceroute.api.PoolView;

/** Sees the cluster at the start of every simulated decode step, after dispatch. */
@FunctionalInterface
public interface StepObserver {

    StepObserver NONE = (step, timeS, view) -> { };

    void onStep(long step, double timeS, PoolView view);
}
