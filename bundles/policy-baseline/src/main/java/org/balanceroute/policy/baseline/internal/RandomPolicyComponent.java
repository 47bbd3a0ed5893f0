package org.balanceroute.policy.baseline.internal;

import java.util.SplittableRandom;
import org.balanceroute.api.RoutingPolicy;
import org.balanceroute.policy.baseline.RandomPolicy;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Modified;
import org.osgi.service.metatype.annotations.AttributeDefinition;
import org.osgi.service.metatype.annotations.Designate;
import org.osgi.service.metatype.annotations.ObjectClassDefinition;

/**
 * Registers {@link RandomPolicy} ({@value RandomPolicy#NAME}: a uniformly random worker at arrival) as a {@link RoutingPolicy}
 * service with {@code balanceroute.policy=random}, seeded by configuration PID
 * {@value #PID} (named by its {@code balanceroute.policy.pid} property; the seed's metatype
 * below). Called only from the router's single dispatch thread; a new seed takes effect at the
 * next call and restarts the random sequence.
 */
@Component(name = RandomPolicyComponent.PID, service = RoutingPolicy.class,
        property = {RoutingPolicy.NAME_PROPERTY + "=" + RandomPolicy.NAME,
            RoutingPolicy.CONFIG_PID_PROPERTY + "=" + RandomPolicyComponent.PID})
@Designate(ocd = RandomPolicyComponent.Config.class)
public final class RandomPolicyComponent extends SeededPolicy {

    static final String PID = "org.balanceroute.policy.baseline.random";

    @ObjectClassDefinition(name = "BalanceRoute policy: random",
            description = "The random baseline: a uniformly random worker at arrival.")
    @interface Config {

        long DEFAULT_SEED = 1L;

        @AttributeDefinition(name = "Seed",
                description = "Seed of the policy's random generator (any 64-bit integer; default 1). "
                        + "The same seed gives the same sequence of choices.")
        long seed() default DEFAULT_SEED;
    }

    @Activate
    public RandomPolicyComponent(Config config) {
        super(seed -> new RandomPolicy(new SplittableRandom(seed)), config.seed());
    }

    @Modified
    void modified(Config config) {
        reseed(config.seed());
    }
}
