package org.balanceroute.simulator;

import java.util.Map;
import org.balanceroute.api.DispatchStep;
import org.balanceroute.api.PoolView;
import org.balanceroute.api.PromptPoolView;
import org.balanceroute.api.RequestView;
import org.balanceroute.api.RoutingPolicy;

/**
 * A policy as it is, which also tells of every placement its dispatch makes, so that a replica
 * can send it on (to the engine, to the other replicas). Routes, names and parameters are the
 * policy's own; one recording step is reused, nothing is allocated per placement.
 */
final class PlacementRecorder implements RoutingPolicy {

    /** Told of a dispatch placement just before it is made, with the router's view as it decided. */
    @FunctionalInterface
    interface Listener {
        void placing(PoolView view, int requestId, int worker);
    }

    private final RoutingPolicy policy;
    private final Listener listener;
    private final RecordingStep recording = new RecordingStep();

    PlacementRecorder(RoutingPolicy policy, Listener listener) {
        this.policy = policy;
        this.listener = listener;
    }

    @Override
    public String name() {
        return policy.name();
    }

    @Override
    public boolean usesPromptPool() {
        return policy.usesPromptPool();
    }

    @Override
    public int route(PoolView view, RequestView request) {
        return policy.route(view, request);
    }

    @Override
    public void dispatch(DispatchStep step) {
        recording.step = step;
        try {
            policy.dispatch(recording);
        } finally {
            recording.step = null;
        }
    }

    @Override
    public Map<String, Object> parameters() {
        return policy.parameters();
    }

    private final class RecordingStep implements DispatchStep {

        DispatchStep step;

        @Override
        public PoolView view() {
            return step.view();
        }

        @Override
        public PromptPoolView pool() {
            return step.pool();
        }

        @Override
        public void assign(int poolIndex, int worker) {
            listener.placing(step.view(), (int) step.pool().get(poolIndex).id(), worker);
            step.assign(poolIndex, worker);
        }

        @Override
        public void assignQueued(int poolIndex, int worker) {
            listener.placing(step.view(), (int) step.pool().get(poolIndex).id(), worker);
            step.assignQueued(poolIndex, worker);
        }
    }
}
