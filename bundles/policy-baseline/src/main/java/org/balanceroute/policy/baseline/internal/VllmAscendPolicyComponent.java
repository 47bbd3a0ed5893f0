package org.balanceroute.policy.baseline.internal;

import org.balanceroute.api.RoutingPolicy;
import org.balanceroute.policy.baseline.VllmAscendPolicy;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.ConfigurationPolicy;

/**
 * Registers {@link VllmAscendPolicy} ({@value VllmAscendPolicy#NAME}) as a {@link RoutingPolicy} service with
 * {@code balanceroute.policy=vllm-ascend}. vllm-ascend proxy rule (least in-flight request bytes). It has no parameters, so it takes no
 * configuration. Called only from the router's single dispatch thread.
 */
@Component(name = "org.balanceroute.policy.baseline.vllmascend", service = RoutingPolicy.class,
        configurationPolicy = ConfigurationPolicy.IGNORE,
        property = RoutingPolicy.NAME_PROPERTY + "=" + VllmAscendPolicy.NAME)
public final class VllmAscendPolicyComponent extends FixedPolicy {

    public VllmAscendPolicyComponent() {
        super(new VllmAscendPolicy());
    }
}
