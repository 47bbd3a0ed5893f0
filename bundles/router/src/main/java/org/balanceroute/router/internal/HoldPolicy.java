package org.balanceroute.router.internal;

import org.balanceroute.api.DispatchStep;
import org.balanceroute.api.PoolView;
import org.balanceroute.api.RequestView;
import org.balanceroute.api.RoutingPolicy;
import org.balanceroute.router.RouterService;

/**
 * What the router runs while neither the configured nor the fallback policy is registered:
 * requests wait in the prompt pool and nothing is placed, so nothing is lost, until a policy
 * appears and takes the pool over.
 */
final class HoldPolicy implements RoutingPolicy {

    @Override
    public String name() {
        return RouterService.NO_POLICY;
    }

    @Override
    public boolean usesPromptPool() {
        return true;
    }

    @Override
    public int route(PoolView view, RequestView request) {
        throw new IllegalStateException("no routing policy is available");
    }

    @Override
    public void dispatch(DispatchStep step) {
        // hold everything until a policy is registered
    }
}
