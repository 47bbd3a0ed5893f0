package org.balanceroute.benchmarks;

import org.balanceroute.api.DispatchStep;
import org.balanceroute.api.PoolView;
import org.balanceroute.api.RequestView;
import org.balanceroute.api.RoutingPolicy;

/** The two helper policies that stage a cluster state through the real {@link org.balanceroute.core.Router}. */
final class StagingPolicies {

    private StagingPolicies() {
    }

    /** Arrival policy that places each request on the worker the builder chose. */
    static final class Placer implements RoutingPolicy {
        int target;

        @Override
        public String name() {
            return "bench-placer";
        }

        @Override
        public boolean usesPromptPool() {
            return false;
        }

        @Override
        public int route(PoolView view, RequestView request) {
            return target;
        }
    }

    /** Pool policy that places nothing: lets the builder stage a prompt pool. */
    static final class Holding implements RoutingPolicy {

        @Override
        public String name() {
            return "bench-holding";
        }

        @Override
        public boolean usesPromptPool() {
            return true;
        }

        @Override
        public int route(PoolView view, RequestView request) {
            return 0;
        }

        @Override
        public void dispatch(DispatchStep step) {
            // hold everything
        }
    }
}
