package org.balanceroute.policy.baseline.internal;

import org.balanceroute.api.RoutingPolicy;
import org.balanceroute.policy.baseline.JoinShortestQueuePolicy;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.ConfigurationPolicy;

/**
 * Registers {@link JoinShortestQueuePolicy} ({@value JoinShortestQueuePolicy#NAME}) as a {@link RoutingPolicy} service with
 * {@code balanceroute.policy=jsq}. Join the shortest queue (fewest running + queued requests). It has no parameters, so it takes no
 * configuration. Called only from the router's single dispatch thread.
 */
@Component(name = "org.balanceroute.policy.baseline.jsq", service = RoutingPolicy.class,
        configurationPolicy = ConfigurationPolicy.IGNORE,
        property = RoutingPolicy.NAME_PROPERTY + "=" + JoinShortestQueuePolicy.NAME)
public final class JoinShortestQueuePolicyComponent extends FixedPolicy {

    public JoinShortestQueuePolicyComponent() {
        super(new JoinShortestQueuePolicy());
    }
}
