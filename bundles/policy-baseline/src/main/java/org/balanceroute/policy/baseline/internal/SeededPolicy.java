package org.balanceroute.policy.baseline.internal;

import java.util.Map;
import java.util.function.LongFunction;
import org.balanceroute.api.RoutingPolicy;

/**
 * A baseline adapter whose policy draws from a seeded generator ({@code SplittableRandom(seed)},
 * as the simulator builds it). A new seed builds a new policy, so the sequence restarts from
 * that seed; the same seed again changes nothing.
 */
abstract class SeededPolicy extends DelegatingPolicy {

    /** Configuration property of the seed. */
    static final String SEED = "seed";

    private final LongFunction<RoutingPolicy> factory;
    private volatile Current current;

    private record Current(long seed, RoutingPolicy policy, Map<String, Object> parameters) {
    }

    SeededPolicy(LongFunction<RoutingPolicy> factory, long seed) {
        this.factory = factory;
        this.current = build(seed);
    }

    private Current build(long seed) {
        return new Current(seed, factory.apply(seed), Map.of(SEED, seed));
    }

    /** Applies a (possibly) new seed; every long is a valid seed. */
    final void reseed(long seed) {
        if (seed != current.seed()) {
            current = build(seed);
        }
    }

    final long seed() {
        return current.seed();
    }

    @Override
    final RoutingPolicy delegate() {
        return current.policy();
    }

    @Override
    public final Map<String, Object> parameters() {
        return current.parameters();
    }
}
