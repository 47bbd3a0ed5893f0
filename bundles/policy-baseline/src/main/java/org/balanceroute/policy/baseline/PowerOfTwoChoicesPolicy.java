package org.balanceroute.policy.baseline;

import java.util.random.RandomGenerator;
import org.balanceroute.api.PoolView;
import org.balanceroute.api.RequestView;

/**
 * Power of two choices (Mitzenmacher 2001): sample two distinct available workers, take the one
 * with fewer outstanding requests (ties: the first sampled). Cost O(1) while all are available,
 * else O(G).
 */
public final class PowerOfTwoChoicesPolicy extends ArrivalPolicy {

    public static final String NAME = "p2c";

    private final RandomGenerator random;

    public PowerOfTwoChoicesPolicy(RandomGenerator random) {
        this.random = random;
    }

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public int route(PoolView view, RequestView request) {
        int n = view.availableWorkers();
        if (n <= 1) {
            return nthAvailable(view, 0);
        }
        int a = random.nextInt(n);
        int b = random.nextInt(n - 1);
        if (b >= a) {
            b++; // distinct from a, uniformly
        }
        a = nthAvailable(view, a);
        b = nthAvailable(view, b);
        return view.outstanding(b) < view.outstanding(a) ? b : a;
    }
}
