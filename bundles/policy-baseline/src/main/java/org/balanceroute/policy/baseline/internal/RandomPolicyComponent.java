package org.balanceroute.policy.baseline.internal;

import java.util.Map;
import java.util.SplittableRandom;
import org.balanceroute.api.RoutingPolicy;
import org.balanceroute.policy.baseline.RandomPolicy;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.metatype.annotations.Designate;

/**
 * Registers {@link RandomPolicy} ({@value RandomPolicy#NAME}: a uniformly random worker at arrival) as a {@link RoutingPolicy}
 * service with {@code balanceroute.policy=random}, seeded by configuration PID
 * {@value #PID} (named by its {@code balanceroute.policy.pid} property; the seed's metatype is
 * {@link SeededPolicy.Config}). Called only from the router's single dispatch thread; a new seed takes effect at the
 * next call and restarts the random sequence.
 */
@Component(name = RandomPolicyComponent.PID, service = RoutingPolicy.class,
        property = {RoutingPolicy.NAME_PROPERTY + "=" + RandomPolicy.NAME,
            RoutingPolicy.CONFIG_PID_PROPERTY + "=" + RandomPolicyComponent.PID})
@Designate(ocd = SeededPolicy.Config.class)
public final class RandomPolicyComponent extends SeededPolicy {

    static final String PID = "org.balanceroute.policy.baseline.random";

    @Activate
    public RandomPolicyComponent(Map<String, Object> properties) {
        super(RandomPolicy.NAME, PID, properties, seed -> new RandomPolicy(new SplittableRandom(seed)));
    }
}
