package org.balanceroute.policy.balance;

import java.util.List;
import java.util.Random;
import org.balanceroute.api.DispatchStep;
import org.balanceroute.api.PoolView;
import org.balanceroute.api.RequestView;
import org.balanceroute.api.RoutingPolicy;
import org.balanceroute.core.PoolState;
import org.balanceroute.core.Router;
import org.balanceroute.core.TrackedRequest;

/** Random cluster states built through the real router. */
final class Fixtures {

    private Fixtures() {
    }

    /** Places requests where the test says, at arrival. */
    static final class Placer implements RoutingPolicy {
        int target;
        public String name() { return "placer"; }
        public boolean usesPromptPool() { return false; }
        public int route(PoolView c, RequestView r) { return target; }
    }

    /** Wraps a pool policy so the fixture can fill workers first, then hand over. */
    static Router randomState(Random random, int workers, int capacity, int poolSize, long[] idCounter) {
        PoolState state = new PoolState(workers, capacity);
        Placer placer = new Placer();
        Router router = new Router(state, placer, List.of());
        for (int g = 0; g < workers; g++) {
            int running = random.nextInt(capacity + 1);
            for (int i = 0; i < running; i++) {
                placer.target = g;
                TrackedRequest r = new TrackedRequest(idCounter[0]++, 1 + random.nextInt(30_000), 0, 0, 0);
                router.submit(r);
                router.onTokens(r, random.nextInt(500));
            }
        }
        router.setPolicy(new Holding());
        for (int i = 0; i < poolSize; i++) {
            router.submit(new TrackedRequest(idCounter[0]++, 1 + random.nextInt(30_000), 0, 0, 0));
        }
        return router;
    }

    /** A pool policy that never places anything: lets a test stage a pool. */
    static final class Holding implements RoutingPolicy {
        public String name() { return "holding"; }
        public boolean usesPromptPool() { return true; }
        public int route(PoolView c, RequestView r) { return 0; }
        public void dispatch(DispatchStep step) { }
    }

    /** A constant predictor for horizon tests: every request ends after exactly c steps, or survives. */
    record ConstantPredictor(int steps) implements org.balanceroute.api.TerminationPredictor {
        public String name() { return "constant"; }
        public int predictEnd(RequestView r, int horizon, double confidence) {
            return steps <= horizon ? steps : SURVIVES;
        }
        public void onCompleted(RequestView r, int n) { }
    }
}
