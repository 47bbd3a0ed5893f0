package org.balanceroute.policy.baseline.internal;

import org.balanceroute.api.RoutingPolicy;

/** A baseline adapter without parameters: one delegate for the component's whole life. */
abstract class FixedPolicy extends DelegatingPolicy {

    private final RoutingPolicy delegate;

    FixedPolicy(RoutingPolicy delegate) {
        this.delegate = delegate;
    }

    @Override
    final RoutingPolicy delegate() {
        return delegate;
    }
}
