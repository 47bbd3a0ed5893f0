package org.balanceroute.policy.baseline.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import org.balanceroute.api.RoutingPolicy;
import org.balanceroute.core.PoolState;
import org.balanceroute.core.TrackedRequest;
import org.balanceroute.policy.baseline.PowerOfTwoChoicesPolicy;
import org.balanceroute.policy.baseline.RandomPolicy;
import org.junit.jupiter.api.Test;

class BaselineComponentsTest {

    private static final PoolState CLUSTER = new PoolState(8, 4);
    private static final TrackedRequest REQUEST = new TrackedRequest(1, 100, 0, 10, 0);

    private static int[] picks(RoutingPolicy p, int n) {
        int[] out = new int[n];
        for (int i = 0; i < n; i++) {
            out[i] = p.route(CLUSTER, REQUEST);
        }
        return out;
    }

    @Test
    void everyBaselineRegistersUnderTheSimulatorsName() {
        List<RoutingPolicy> all = List.of(new JoinShortestQueuePolicyComponent(), new RoundRobinPolicyComponent(),
                new LeastTokensPolicyComponent(), new VllmAscendPolicyComponent(),
                new RandomPolicyComponent(Map.of()),
                new PowerOfTwoChoicesPolicyComponent(Map.of()));
        assertEquals(List.of("jsq", "round-robin", "least-tokens", "vllm-ascend", "random", "p2c"),
                all.stream().map(RoutingPolicy::name).toList());
        for (RoutingPolicy p : all) {
            assertFalse(p.usesPromptPool(), p.name());
        }
        assertEquals(Map.of(), all.get(0).parameters());
    }

    @Test
    void seededBaselinesDrawWhatTheSimulatorDraws() {
        RandomPolicyComponent random = new RandomPolicyComponent(Map.of());
        assertEquals(Map.of("seed", 1L), random.parameters());
        assertEquals(java.util.Arrays.toString(picks(new RandomPolicy(new SplittableRandom(1)), 50)),
                java.util.Arrays.toString(picks(random, 50)));

        PowerOfTwoChoicesPolicyComponent p2c = new PowerOfTwoChoicesPolicyComponent(
                Map.of("seed", 9L));
        assertEquals(java.util.Arrays.toString(picks(new PowerOfTwoChoicesPolicy(new SplittableRandom(9)), 50)),
                java.util.Arrays.toString(picks(p2c, 50)));
    }

    @Test
    void aNewSeedRestartsTheSequenceAndTheSameSeedChangesNothing() {
        RandomPolicyComponent random = new RandomPolicyComponent(Map.of());
        int[] first = picks(random, 5);
        random.modified(Map.of("seed", 1L));
        int[] next = picks(random, 5);
        RandomPolicy reference = new RandomPolicy(new SplittableRandom(1));
        picks(reference, 5);
        assertEquals(java.util.Arrays.toString(picks(reference, 5)), java.util.Arrays.toString(next),
                "same seed: the sequence goes on");
        random.modified(Map.of("seed", "not a number"));
        assertEquals(1L, random.seed(), "an invalid seed keeps the one in force");
        random.modified(Map.of("seed", 1234L));
        assertEquals(1234L, random.seed());
        assertEquals(java.util.Arrays.toString(picks(new RandomPolicy(new SplittableRandom(1234)), 20)),
                java.util.Arrays.toString(picks(random, 20)));
        assertEquals(5, first.length);
    }
}
