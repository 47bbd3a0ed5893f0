package org.balanceroute.policy.baseline.internal;

import java.util.Map;
import java.util.function.LongFunction;
import org.balanceroute.api.RoutingPolicy;
import org.balanceroute.api.SwappablePolicy;
import org.balanceroute.api.config.ConfigProperties;
import org.balanceroute.api.config.ConfigurationException;
import org.osgi.service.component.annotations.Modified;
import org.osgi.service.metatype.annotations.AttributeDefinition;
import org.osgi.service.metatype.annotations.ObjectClassDefinition;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

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

    private static final Logger LOG = LoggerFactory.getLogger(SeededPolicy.class);

    private final String pid;

    /** @throws ConfigurationException if the seed is not an integer (the activation fails) */
    SeededPolicy(String name, String pid, Map<String, ?> properties, LongFunction<RoutingPolicy> factory) {
        super(name, seed(ConfigProperties.of(pid, properties)), factory::apply, seed -> Map.of(SEED, seed));
        this.pid = pid;
    }

    /** Applies a (possibly) new seed; one that is not an integer is logged and the seed in force stays. */
    @Modified
    final void modified(Map<String, Object> properties) {
        ConfigProperties.readUpdate(pid, properties, SeededPolicy::seed,
                e -> LOG.error("policy {}: configuration rejected: {}; keeping seed {}", name(), e.getMessage(), seed()))
                .ifPresent(this::update);
    }

    private static long seed(ConfigProperties c) {
        return c.longValue(SEED, Config.DEFAULT_SEED, Long.MIN_VALUE, Long.MAX_VALUE);
    }

    final long seed() {
        return settings();
    }
}
