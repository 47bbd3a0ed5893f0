package org.balanceroute.policy.baseline.internal;

import org.balanceroute.api.RoutingPolicy;
import org.balanceroute.policy.baseline.LeastTokensPolicy;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.ConfigurationPolicy;

/**
 * Registers {@link LeastTokensPolicy} ({@value LeastTokensPolicy#NAME}) as a {@link RoutingPolicy} service with
 * {@code balanceroute.policy=least-tokens}. Fewest outstanding KV tokens. It has no parameters, so it takes no
 * configuration. Called only from the router's single dispatch thread.
 */
@Component(name = "org.balanceroute.policy.baseline.leasttokens", service = RoutingPolicy.class,
        configurationPolicy = ConfigurationPolicy.IGNORE,
        property = RoutingPolicy.NAME_PROPERTY + "=" + LeastTokensPolicy.NAME)
public final class LeastTokensPolicyComponent extends FixedPolicy {

    public LeastTokensPolicyComponent() {
        super(new LeastTokensPolicy());
    }
}
