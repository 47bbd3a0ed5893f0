package org.balanceroute.simulator;

import org.balanceroute.api.ClusterView;

/** Sees the cluster at the start of every simulated decode step, after dispatch. */
@FunctionalInterface
public interface StepObserver {

    StepObserver NONE = (step, timeS, cluster) -> { };

    void onStep(long step, double timeS, ClusterView cluster);
}
