package org.balanceroute.policy.baseline.internal;

import org.balanceroute.api.RoutingPolicy;
import org.balanceroute.policy.baseline.RoundRobinPolicy;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.ConfigurationPolicy;

/**
 * Registers {@link RoundRobinPolicy} ({@value RoundRobinPolicy#NAME}) as a {@link RoutingPolicy} service with
 * {@code balanceroute.policy=round-robin}. Workers in turn. It has no parameters, so it takes no
 * configuration. Called only from the router's single dispatch thread.
 */
@Component(name = "org.balanceroute.policy.baseline.roundrobin", service = RoutingPolicy.class,
        configurationPolicy = ConfigurationPolicy.IGNORE,
        property = RoutingPolicy.NAME_PROPERTY + "=" + RoundRobinPolicy.NAME)
public final class RoundRobinPolicyComponent extends FixedPolicy {

    public RoundRobinPolicyComponent() {
        super(new RoundRobinPolicy());
    }
}
