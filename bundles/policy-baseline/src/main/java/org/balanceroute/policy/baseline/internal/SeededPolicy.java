package org.balanceroute.policy.baseline.internal;

import java.util.Map;
import java.util.function.LongFunction;
import org.balanceroute.api.RoutingPolicy;
import org.balanceroute.api.SwappablePolicy;
import org.osgi.service.component.annotations.Modified;
import org.osgi.service.metatype.annotations.AttributeDefinition;
import org.osgi.service.metatype.annotations.ObjectClassDefinition;

/**
 * A baseline adapter whose policy draws from a seeded generator ({@code SplittableRandom(seed)},
 * as the simulator builds it), configured by {@link Config}: the random and p2c components. A
 * new seed builds a new policy, so the sequence restarts from that seed; the same seed again
 * changes nothing. Every long is a valid seed.
 */
abstract class SeededPolicy extends SwappablePolicy<Long> {

    /** Configuration property of the seed. */
    static final String SEED = "seed";

    /** The seed, the one tunable of a seeded policy: one metatype, designated by the random and p2c PIDs. */
    @ObjectClassDefinition(name = "BalanceRoute policy: random / p2c",
            description = "The seeded baselines: random (a uniformly random worker at arrival) and p2c (two "
                    + "random workers, the one with fewer outstanding requests); each has its own PID.")
    @interface Config {

        long DEFAULT_SEED = 1L;

        @AttributeDefinition(name = "Seed",
                description = "Seed of the policy's random generator (any 64-bit integer; default 1). "
                        + "The same seed gives the same sequence of choices.")
        long seed() default DEFAULT_SEED;
    }

    SeededPolicy(String name, Config config, LongFunction<RoutingPolicy> factory) {
        super(name, config.seed(), factory::apply, seed -> Map.of(SEED, seed));
    }

    /** Applies a (possibly) new seed. */
    @Modified
    final void modified(Config config) {
        update(config.seed());
    }

    final long seed() {
        return settings();
    }
}
