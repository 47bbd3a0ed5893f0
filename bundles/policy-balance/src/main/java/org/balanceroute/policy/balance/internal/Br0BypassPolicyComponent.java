package org.balanceroute.policy.balance.internal;

import java.util.Map;
import org.balanceroute.api.RoutingPolicy;
import org.balanceroute.api.SwappablePolicy;
import org.balanceroute.policy.balance.Br0BypassPolicy;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.ConfigurationPolicy;

/**
 * Registers {@link Br0BypassPolicy} (BR-0's F-score for the single request at arrival, no
 * pool) as a {@link RoutingPolicy} service with {@code balanceroute.policy=br0-bypass}. It has
 * no tunables (none of the BR settings applies to it), so it takes no configuration. Called only
 * from the router's single dispatch thread.
 */
@Component(name = "org.balanceroute.policy.balance.br0bypass", service = RoutingPolicy.class,
        configurationPolicy = ConfigurationPolicy.IGNORE,
        property = RoutingPolicy.NAME_PROPERTY + "=" + Br0BypassPolicy.NAME)
public final class Br0BypassPolicyComponent extends SwappablePolicy<RoutingPolicy> {

    public Br0BypassPolicyComponent() {
        super(Br0BypassPolicy.NAME, new Br0BypassPolicy(), policy -> policy, policy -> Map.of());
    }
}
