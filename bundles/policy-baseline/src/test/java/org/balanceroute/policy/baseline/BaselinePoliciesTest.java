package org.balanceroute.policy.baseline;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.SplittableRandom;
import org.balanceroute.api.PoolView;
import org.balanceroute.api.RequestView;
import org.balanceroute.api.RoutingPolicy;
import org.balanceroute.core.PoolState;
import org.balanceroute.core.Router;
import org.balanceroute.core.TrackedRequest;
import org.junit.jupiter.api.Test;

class BaselinePoliciesTest {

    /** Places arrivals on the worker the test names, to stage a cluster. */
    static final class Placer implements RoutingPolicy {
        int target;
        public String name() { return "placer"; }
        public boolean usesPromptPool() { return false; }
        public int route(PoolView c, RequestView r) { return target; }
    }

    private final PoolState state = new PoolState(3, 2);
    private final Placer placer = new Placer();
    private final Router router = new Router(state, placer, List.of());
    private long ids;

    private TrackedRequest place(int worker, int prompt, int bodyBytes, int decoded) {
        placer.target = worker;
        TrackedRequest r = new TrackedRequest(ids++, prompt, 0, bodyBytes, 0);
        router.submit(r);
        if (decoded > 0) {
            router.onTokens(r, decoded);
        }
        return r;
    }

    private int route(RoutingPolicy policy, int prompt) {
        return policy.route(state, new TrackedRequest(ids++, prompt, 0, 100, 0));
    }

    @Test
    void jsqCountsRunningAndQueuedRequests() {
        place(0, 10, 10, 0);
        place(0, 10, 10, 0);
        place(0, 10, 10, 0); // queued: worker 0 has 3 outstanding
        place(1, 50_000, 10, 0);
        place(1, 50_000, 10, 0);
        place(2, 10, 10, 0);
        assertEquals(2, route(new JoinShortestQueuePolicy(), 5));
    }

    @Test
    void leastTokensCountsLiveLoadAndQueuedPrompts() {
        place(0, 100, 10, 0);
        place(1, 50, 10, 400); // load 450 after decoding
        place(2, 200, 10, 0);
        place(2, 10, 10, 0);
        assertEquals(0, route(new LeastTokensPolicy(), 5));
        place(0, 300, 10, 0);
        place(0, 1, 10, 0); // queued: its prompt counts too
        // outstanding tokens now 401, 450, 210
        assertEquals(2, route(new LeastTokensPolicy(), 5));
        place(2, 300, 10, 0); // 510 (queued)
        assertEquals(0, route(new LeastTokensPolicy(), 5));
    }

    @Test
    void vllmAscendBalancesBodyBytesAndIgnoresDecoding() {
        TrackedRequest longRunner = place(0, 10, 100, 0);
        place(1, 10, 300, 0);
        place(2, 10, 200, 0);
        router.onTokens(longRunner, 100_000); // invisible to the rule
        assertEquals(0, route(new VllmAscendPolicy(), 5));
        router.complete(longRunner); // removed at finish
        assertEquals(0, state.inFlightBytes(0));
    }

    @Test
    void roundRobinCyclesAndRandomAndP2cAreSeeded() {
        RoundRobinPolicy rr = new RoundRobinPolicy();
        assertEquals(List.of(0, 1, 2, 0), List.of(route(rr, 1), route(rr, 1), route(rr, 1), route(rr, 1)));
        int[] a = sequence(new RandomPolicy(new SplittableRandom(1)));
        int[] b = sequence(new RandomPolicy(new SplittableRandom(1)));
        int[] c = sequence(new RandomPolicy(new SplittableRandom(2)));
        assertEquals(java.util.Arrays.toString(a), java.util.Arrays.toString(b));
        assertNotEquals(java.util.Arrays.toString(a), java.util.Arrays.toString(c));
        for (int g : a) {
            assertTrue(g >= 0 && g < 3);
        }
    }

    private int[] sequence(RoutingPolicy p) {
        int[] out = new int[50];
        for (int i = 0; i < out.length; i++) {
            out[i] = route(p, 1);
        }
        return out;
    }

    @Test
    void p2cNeverPicksTheWorseOfItsTwoChoices() {
        place(0, 10, 10, 0);
        place(0, 10, 10, 0);
        place(1, 10, 10, 0);
        // outstanding: 2, 1, 0. Whatever pair is sampled, the busiest worker 0 never wins.
        PowerOfTwoChoicesPolicy p2c = new PowerOfTwoChoicesPolicy(new SplittableRandom(3));
        int[] counts = new int[3];
        for (int i = 0; i < 3000; i++) {
            counts[route(p2c, 1)]++;
        }
        assertEquals(0, counts[0]);
        // worker 2 wins both pairs it is in (2/3), worker 1 wins the pair {0,1} (1/3)
        assertEquals(2000, counts[2], 150);
        assertEquals(1000, counts[1], 150);
    }

    @Test
    void baselinesRouteAtArrival() {
        for (RoutingPolicy p : List.of(new RandomPolicy(new SplittableRandom(1)), new RoundRobinPolicy(),
                new PowerOfTwoChoicesPolicy(new SplittableRandom(1)), new JoinShortestQueuePolicy(),
                new LeastTokensPolicy(), new VllmAscendPolicy())) {
            assertFalse(p.usesPromptPool(), p.name());
        }
    }

    @Test
    void everyBaselineSkipsAnUnavailableWorkerEvenWhenItIsTheBestChoice() {
        place(0, 100, 100, 50);
        place(2, 100, 100, 50); // worker 1 is empty: every load rule prefers it
        router.setWorkerAvailable(1, false);
        for (RoutingPolicy p : List.of(new RandomPolicy(new SplittableRandom(1)), new RoundRobinPolicy(),
                new PowerOfTwoChoicesPolicy(new SplittableRandom(1)), new JoinShortestQueuePolicy(),
                new LeastTokensPolicy(), new VllmAscendPolicy())) {
            int[] counts = new int[3];
            for (int i = 0; i < 300; i++) {
                counts[route(p, 5)]++;
            }
            assertEquals(0, counts[1], p.name() + " routed to the unavailable worker");
        }
        router.setWorkerAvailable(1, true);
        assertEquals(1, route(new JoinShortestQueuePolicy(), 5), "re-admitted");
    }

    @Test
    void randomAndRoundRobinSpreadOverTheAvailableWorkersOnly() {
        router.setWorkerAvailable(0, false);
        RandomPolicy random = new RandomPolicy(new SplittableRandom(5));
        RoundRobinPolicy rr = new RoundRobinPolicy();
        int[] r = new int[3];
        int[] robin = new int[3];
        for (int i = 0; i < 3000; i++) {
            r[route(random, 1)]++;
            robin[route(rr, 1)]++;
        }
        assertEquals(0, r[0]);
        assertEquals(1500, r[1], 150);
        assertEquals(1500, r[2], 150);
        assertEquals(0, robin[0]);
        assertEquals(1500, robin[1]);
        assertEquals(1500, robin[2]);
    }
}
