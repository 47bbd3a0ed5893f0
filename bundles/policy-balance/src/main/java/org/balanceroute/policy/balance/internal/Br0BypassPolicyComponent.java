package org.balanceroute.policy.balance.internal;

import org.balanceroute.api.ClusterView;
import org.balanceroute.api.RequestView;
import org.balanceroute.api.RoutingPolicy;
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
public final class Br0BypassPolicyComponent implements RoutingPolicy {

    private final Br0BypassPolicy delegate = new Br0BypassPolicy();

    @Override
    public String name() {
        return delegate.name();
    }

    @Override
    public boolean usesPromptPool() {
        return delegate.usesPromptPool();
    }

    @Override
    public int route(ClusterView cluster, RequestView request) {
        return delegate.route(cluster, request);
    }

    @Override
    public String toString() {
        return delegate.name();
    }
}
