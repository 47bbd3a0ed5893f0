package org.balanceroute.policy.baseline.internal;

import java.util.Map;
import org.balanceroute.api.RoutingPolicy;
import org.balanceroute.api.SwappablePolicy;

/** A baseline adapter without parameters: one delegate for the component's whole life. */
abstract class FixedPolicy extends SwappablePolicy<RoutingPolicy> {

    FixedPolicy(RoutingPolicy delegate) {
        super(delegate.name(), delegate, policy -> policy, policy -> Map.of());
    }
}
