package org.balanceroute.simulator;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import org.balanceroute.api.PoolView;
import org.balanceroute.api.RequestView;
import org.balanceroute.api.RoutingPolicy;
import org.balanceroute.core.DecodeLayout;
import org.balanceroute.core.PoolState;
import org.balanceroute.core.Router;
import org.balanceroute.core.TrackedRequest;
import org.balanceroute.policy.balance.BalanceSettings;
import org.balanceroute.trace.TraceRequest;
import org.junit.jupiter.api.Test;

/** The simulator with several decode instances: each its own barrier on its own clock. */
class GroupsSimulationTest {

    private static SimulationConfig grouped(int[] sizes, int[] capacities, boolean flat) {
        return SimulationConfig.of(DecodeLayout.of(sizes, capacities), 2e-7, 0.02, 0, 0, 0, 1, flat);
    }

    /** Routes request i to worker {@code to[i]}, at arrival. */
    private record Fixed(int[] to) implements RoutingPolicy {
        @Override
        public String name() {
            return "fixed";
        }

        @Override
        public boolean usesPromptPool() {
            return false;
        }

        @Override
        public int route(PoolView view, RequestView request) {
            return to[(int) request.id()];
        }
    }

    /**
     * Instance 0 (two ranks) carries a 1M-token prompt, instance 1 (one rank) a 10-token one: with
     * a = 1e-6 s/token the first steps take about a second each, the second 10 ms. On one clock the
     * light request would wait for the heavy one's barrier every step; on its own it is done in a
     * tenth of a second. In either policy view: the view is the router's, the clocks the engine's.
     */
    @Test
    void eachInstanceStepsOnItsOwnClockFromItsOwnHeaviestRank() {
        List<TraceRequest> trace = List.of(new TraceRequest(0, 1_000_000, 10, 1), new TraceRequest(0, 10, 10, 2));
        for (boolean flat : new boolean[] {false, true}) {
            SimulationConfig config = SimulationConfig.of(DecodeLayout.of(new int[] {2, 1}, 4), 1e-6, 0.01, 0, 0, 0, 1,
                    flat);
            List<double[]> seen = new ArrayList<>(); // time, running on instance 0, running on instance 1
            SimulationResult r = new DecodeSimulator(config).run(trace, new Fixed(new int[] {0, 2}), List.of(),
                    (step, time, view) -> seen.add(new double[] {time, view.running(0), view.running(2)}),
                    n -> { });
            double lightDone = seen.stream().filter(s -> s[2] > 0).mapToDouble(s -> s[0]).max().orElseThrow();
            long lightSteps = seen.stream().filter(s -> s[0] < 1.0).count();
            assertTrue(lightDone < 0.2, "flat " + flat + ": the light instance's last step started at " + lightDone);
            assertTrue(lightSteps >= 10, "flat " + flat + ": steps in the first second " + lightSteps);
            assertEquals(20, r.steps(), "ten steps of each instance");
            assertEquals(2, r.groups());
            assertEquals(1_000_000 + 4.5, r.groupImbalance()[0], 1e-9, "instance 0: one busy rank, one empty");
            assertEquals(0, r.groupImbalance()[1], "an instance of one rank is never imbalanced");
            assertEquals(10 * (1e-6 * 1_000_004.5 + 0.01), r.makespanS(), 1e-6, "the heavy instance sets the end");
        }
    }

    @Test
    void theInstancesImbalancesSumToTheAverage() {
        List<TraceRequest> trace = DecodeSimulatorTest.workload(7, 500);
        for (String policy : List.of("jsq", "br0", "jsq-br0", "brh-survival")) {
            for (boolean flat : new boolean[] {false, true}) {
                SimulationResult r = run(policy, trace, grouped(new int[] {3, 2}, new int[] {4, 6}, flat));
                assertEquals(2, r.groupImbalance().length);
                assertEquals(r.groupImbalance()[0] + r.groupImbalance()[1], r.avgImbalance(), 1e-6, policy);
                assertEquals(r.steadyGroupImbalance()[0] + r.steadyGroupImbalance()[1], r.steadyAvgImbalance(), 1e-6,
                        policy);
                assertEquals(trace.size(), r.requests(), policy);
            }
        }
    }

    @Test
    void oneInstanceGivenAsALayoutIsTheSingleBarrierToTheBit() {
        List<TraceRequest> trace = DecodeSimulatorTest.workload(3, 400);
        SimulationConfig plain = new SimulationConfig(4, 8, 2e-7, 0.02, 0, 0, 0, 1);
        for (boolean flat : new boolean[] {false, true}) {
            SimulationConfig layout = SimulationConfig.of(DecodeLayout.single(4, 8), 2e-7, 0.02, 0, 0, 0, 1, flat);
            for (String policy : List.of("jsq", "br0", "brh-oracle")) {
                SimulationResult a = run(policy, trace, plain), b = run(policy, trace, layout);
                assertEquals(a, b, policy);
                assertEquals(1, b.groups());
                assertEquals(b.avgImbalance(), b.groupImbalance()[0]);
            }
            assertEquals(run("br0", trace, plain).avgImbalance(), run("jsq-br0", trace, layout).avgImbalance(),
                    "one instance: jsq-br0 is br0");
        }
    }

    /** The flat view changes br0's placements; the engine still runs two instances on two clocks. */
    @Test
    void theFlatViewChangesDecisionsNotTheEngine() {
        List<TraceRequest> trace = DecodeSimulatorTest.workload(11, 600);
        SimulationConfig groups = grouped(new int[] {4, 2}, new int[] {8, 8}, false);
        SimulationConfig flat = grouped(new int[] {4, 2}, new int[] {8, 8}, true);
        assertNotEquals(fingerprint("br0", trace, groups), fingerprint("br0", trace, flat));
        assertEquals(fingerprint("jsq", trace, groups), fingerprint("jsq", trace, flat),
                "jsq counts requests: no barrier to see");
        SimulationResult r = run("br0", trace, flat);
        assertEquals(2, r.groups());
        assertEquals(r.groupImbalance()[0] + r.groupImbalance()[1], r.avgImbalance(), 1e-6);
    }

    @Test
    void eachInstanceKeepsItsOwnCapacity() {
        List<TraceRequest> trace = DecodeSimulatorTest.workload(5, 400);
        SimulationConfig config = grouped(new int[] {2, 2}, new int[] {2, 6}, false);
        for (String policy : List.of("jsq", "round-robin", "br0", "jsq-br0", "brh-oracle")) {
            int[] most = new int[4];
            PolicyCatalog.Setup setup = PolicyCatalog.create(policy, 1, BalanceSettings.defaults(),
                    id -> trace.get((int) id).outputTokens());
            SimulationResult r = new DecodeSimulator(config).run(trace, setup.policy(), setup.learners(),
                    (step, time, view) -> {
                        for (int g = 0; g < 4; g++) {
                            assertTrue(view.running(g) <= (g < 2 ? 2 : 6), policy + " worker " + g);
                            most[g] = Math.max(most[g], view.running(g));
                        }
                    }, n -> { });
            assertEquals(trace.size(), r.requests(), policy);
            assertEquals(6, Math.max(most[2], most[3]), policy + ": the larger B is used");
        }
    }

    @Test
    void offeredCapacityIsTheSumOverTheInstances() {
        List<TraceRequest> trace = DecodeSimulatorTest.workload(5, 400);
        SimulationConfig g8 = new SimulationConfig(8, 64, 2e-7, 0.02, 0, 0, 0, 1);
        SimulationConfig g4 = new SimulationConfig(4, 128, 2e-7, 0.02, 0, 0, 0, 1);
        SimulationConfig both = grouped(new int[] {8, 4}, new int[] {64, 128}, false);
        assertEquals(OfferedLoad.of(trace, g8).capacityTokPerS() + OfferedLoad.of(trace, g4).capacityTokPerS(),
                OfferedLoad.of(trace, both).capacityTokPerS(), 1e-6);
        assertEquals(OfferedLoad.of(trace, g8).capacityTokPerS(),
                OfferedLoad.of(trace, grouped(new int[] {8}, new int[] {64}, false)).capacityTokPerS());
    }

    @Test
    void severalInstancesNeedOneProxy() {
        SimulationConfig config = grouped(new int[] {2, 2}, new int[] {4, 4}, false);
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> new DecodeSimulator(config,
                new ProxyReplicas(2, 0, ReplicasMode.DISPATCHER)).run(List.of(), r -> null, StepObserver.NONE,
                n -> { }));
        assertTrue(e.getMessage().contains("--groups"), e.getMessage());
    }

    /** JSQ picks the instance with the fewest outstanding requests, BR-0 the rank within it. */
    @Test
    void jsqBr0BalancesRequestsAcrossInstancesThenPlacesWithBr0() {
        PoolState state = new PoolState(DecodeLayout.of(new int[] {2, 2}, 4));
        Router router = new Router(state, new JsqThenBr0Policy(BalanceSettings.defaults()), List.of());
        // instance 1 drains while three requests arrive: they all go to instance 0
        router.setWorkerDraining(2, true);
        router.setWorkerDraining(3, true);
        int id = 0;
        for (; id < 3; id++) {
            router.submit(new TrackedRequest(id, 1000, 0, 100, 0));
        }
        router.dispatch();
        assertEquals(3, state.running(0) + state.running(1));
        router.setWorkerDraining(2, false);
        router.setWorkerDraining(3, false);
        // four more: three even out the counts on instance 1, the fourth is a tie, won by the lower index
        int[] prompts = {5000, 100, 3000, 700};
        for (int p : prompts) {
            router.submit(new TrackedRequest(id++, p, 0, 100, 0));
        }
        router.dispatch();
        assertTrue(router.pool().isEmpty());
        assertEquals(4, state.running(0) + state.running(1));
        assertEquals(3, state.running(2) + state.running(3));
        // within instance 1, BR-0's placements of its three over two ranks of their own
        PoolState alone = new PoolState(2, 4);
        Router br0 = new Router(alone, org.balanceroute.policy.balance.BalancePolicy.br0(BalanceSettings.defaults()),
                List.of());
        for (int p : new int[] {5000, 100, 3000}) {
            br0.submit(new TrackedRequest(id++, p, 0, 100, 0));
        }
        br0.dispatch();
        assertEquals(alone.load(0), state.load(2));
        assertEquals(alone.load(1), state.load(3));
        assertEquals(5000 + 100 + 3000, state.load(2) + state.load(3));
    }

    private static SimulationResult run(String policy, List<TraceRequest> trace, SimulationConfig config) {
        PolicyCatalog.Setup setup = PolicyCatalog.create(policy, 1, BalanceSettings.defaults(),
                id -> trace.get((int) id).outputTokens());
        return new DecodeSimulator(config).run(trace, setup.policy(), setup.learners(), StepObserver.NONE, n -> { });
    }

    private static long fingerprint(String policy, List<TraceRequest> trace, SimulationConfig config) {
        PolicyCatalog.Setup setup = PolicyCatalog.create(policy, 1, BalanceSettings.defaults(),
                id -> trace.get((int) id).outputTokens());
        long[] hash = {17};
        new DecodeSimulator(config).run(trace, setup.policy(), setup.learners(), (step, time, view) -> {
            for (int g = 0; g < view.workers(); g++) {
                hash[0] = 31 * hash[0] + view.load(g);
            }
        }, n -> { });
        return hash[0];
    }
}
