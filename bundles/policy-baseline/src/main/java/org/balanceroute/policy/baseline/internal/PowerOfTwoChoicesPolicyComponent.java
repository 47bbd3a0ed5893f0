package org.balanceroute.policy.baseline.internal;

import java.util.Map;
import java.util.SplittableRandom;
import org.balanceroute.api.RoutingPolicy;
import org.balanceroute.policy.baseline.PowerOfTwoChoicesPolicy;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.metatype.annotations.Designate;

/**
 * Registers {@link PowerOfTwoChoicesPolicy} ({@value PowerOfTwoChoicesPolicy#NAME}: two random workers, the one with fewer outstanding requests) as a {@link RoutingPolicy}
 * service with {@code balanceroute.policy=p2c}, seeded by configuration PID
 * {@value #PID} (named by its {@code balanceroute.policy.pid} property; the seed's metatype is
 * {@link SeededPolicy.Config}). Called only from the router's single dispatch thread; a new seed takes effect at the
 * next call and restarts the random sequence.
 */
@Component(name = PowerOfTwoChoicesPolicyComponent.PID, service = RoutingPolicy.class,
        property = {RoutingPolicy.NAME_PROPERTY + "=" + PowerOfTwoChoicesPolicy.NAME,
            RoutingPolicy.CONFIG_PID_PROPERTY + "=" + PowerOfTwoChoicesPolicyComponent.PID})
@Designate(ocd = SeededPolicy.Config.class)
public final class PowerOfTwoChoicesPolicyComponent extends SeededPolicy {

    static final String PID = "org.balanceroute.policy.baseline.p2c";

    @Activate
    public PowerOfTwoChoicesPolicyComponent(Map<String, Object> properties) {
        super(PowerOfTwoChoicesPolicy.NAME, PID, properties, seed -> new PowerOfTwoChoicesPolicy(new SplittableRandom(seed)));
    }
}
