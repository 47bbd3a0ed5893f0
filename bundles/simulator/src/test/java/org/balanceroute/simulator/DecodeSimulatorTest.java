package org.balanceroute.simulator;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import org.balanceroute.api.CompletionListener;
import org.balanceroute.api.PoolView;
import org.balanceroute.api.RequestView;
import org.balanceroute.policy.balance.BalanceSettings;
import org.balanceroute.trace.TraceRequest;
import org.junit.jupiter.api.Test;

class DecodeSimulatorTest {

    private static final SimulationConfig SMALL = new SimulationConfig(4, 8, 2e-7, 0.02, 0, 0, 0, 1);

    /** A bursty synthetic workload: heavy enough that the pool fills. */
    static List<TraceRequest> workload(long seed, int n) {
        SplittableRandom random = new SplittableRandom(seed);
        List<TraceRequest> out = new ArrayList<>();
        double t = 0;
        for (int i = 0; i < n; i++) {
            t += random.nextDouble() * 0.05;
            out.add(new TraceRequest(t, 1 + random.nextInt(20_000), 1 + random.nextInt(300), 1 + random.nextInt(20)));
        }
        return out;
    }

    @Test
    void everyPolicyConservesTokensAndRequestsAndKeepsLoadsConsistent() {
        List<TraceRequest> trace = workload(5, 400);
        long expectedTokens = trace.stream().mapToLong(TraceRequest::outputTokens).sum();
        for (String name : PolicyCatalog.NAMES) {
            PolicyCatalog.Setup setup = PolicyCatalog.create(name, 1, BalanceSettings.defaults(),
                    id -> trace.get((int) id).outputTokens());
            Map<Long, Integer> completions = new HashMap<>();
            List<CompletionListener> learners = new ArrayList<>(setup.learners());
            learners.add((r, n) -> assertEquals(null, completions.put(r.id(), n), "finished twice: " + r));
            StepObserver consistency = (step, time, view) -> checkLoads(view);
            SimulationResult result = new DecodeSimulator(SMALL).run(trace, setup.policy(), learners, consistency,
                    n -> { });
            assertEquals(trace.size(), completions.size(), name);
            for (Map.Entry<Long, Integer> e : completions.entrySet()) {
                assertEquals(trace.get(e.getKey().intValue()).outputTokens(), e.getValue(), name);
            }
            assertEquals(expectedTokens, result.outputTokens(), name);
            assertEquals(trace.size(), result.requests(), name);
            assertTrue(result.steps() >= trace.stream().mapToInt(TraceRequest::outputTokens).max().orElseThrow());
        }
    }

    /** L_g is the sum of its running requests' s_i + j, and no worker runs more than B. */
    private static void checkLoads(PoolView view) {
        for (int g = 0; g < view.workers(); g++) {
            long sum = 0;
            for (int i = 0; i < view.running(g); i++) {
                RequestView r = view.active(g, i);
                sum += r.promptTokens() + r.decodedTokens();
            }
            assertEquals(sum, view.load(g));
            assertTrue(view.running(g) <= view.capacity());
        }
    }

    @Test
    void stepTimeFollowsTheBarrierLaw() {
        // One request, s=100, o=3: loads 100, 101, 102 on the only busy worker; the idle one waits.
        SimulationConfig config = new SimulationConfig(2, 4, 1e-3, 0.01, 0.005, 0, 0, 1);
        List<TraceRequest> trace = List.of(new TraceRequest(0, 100, 3, 0));
        PolicyCatalog.Setup setup = PolicyCatalog.create("jsq", 1, BalanceSettings.defaults(), id -> 3);
        SimulationResult r = new DecodeSimulator(config).run(trace, setup.policy(), List.of(), StepObserver.NONE,
                n -> { });
        assertEquals(3, r.steps());
        assertEquals(1e-3 * (100 + 101 + 102) + 3 * 0.01 + 3 * 0.005, r.makespanS(), 1e-12);
        assertEquals((100 + 101 + 102) / 3.0, r.avgImbalance(), 1e-9);
        assertEquals(2 * (100 + 101 + 102) / 3.0 - (100 + 101 + 102) / 3.0, r.meanI(), 1e-9);
        assertEquals(1e-3 * 100 + 0.015, r.ttftP50S(), 1e-12);
    }

    @Test
    void idleTimeIsSkippedAndPrefillDelaysTheFirstToken() {
        SimulationConfig config = new SimulationConfig(1, 4, 0, 0.01, 0, 0.001, 0.5, 1);
        List<TraceRequest> trace = List.of(new TraceRequest(0, 100, 2, 0), new TraceRequest(100, 200, 2, 0));
        PolicyCatalog.Setup setup = PolicyCatalog.create("br0", 1, BalanceSettings.defaults(), id -> 2);
        SimulationResult r = new DecodeSimulator(config).run(trace, setup.policy(), List.of(), StepObserver.NONE,
                n -> { });
        assertEquals(4, r.steps());
        // second request: arrives at 100, ready at 100 + 0.5 + 0.2, two steps of 10 ms
        assertEquals(100.72, r.makespanS(), 1e-9);
    }

    @Test
    void runsAreDeterministicForASeed() {
        List<TraceRequest> trace = workload(9, 300);
        for (String name : List.of("random", "p2c", "br0", "brh-survival", "brh-exact")) {
            assertEquals(run(trace, name, 7), run(trace, name, 7), name);
        }
        assertNotEquals(run(trace, "random", 7), run(trace, "random", 8), "the seed matters");
    }

    private static SimulationResult run(List<TraceRequest> trace, String name, long seed) {
        SimulationConfig config = new SimulationConfig(4, 8, 2e-7, 0.02, 0, 0, 0, seed);
        PolicyCatalog.Setup setup = PolicyCatalog.create(name, seed, BalanceSettings.defaults(),
                id -> trace.get((int) id).outputTokens());
        return new DecodeSimulator(config).run(trace, setup.policy(), setup.learners(), StepObserver.NONE, n -> { });
    }

    /** The spec's required identity, through whole simulations: every step's loads are the same. */
    @Test
    void brhWithHorizonZeroAlphaOneBetaGIsBr0StepForStep() {
        List<TraceRequest> trace = workload(13, 500);
        BalanceSettings h0 = BalanceSettings.defaults().withHorizon(0, 1, SMALL.workers(), 0.64);
        List<String> br0 = loads(trace, "br0", BalanceSettings.defaults());
        List<String> brh = loads(trace, "brh-survival", h0);
        assertEquals(br0.size(), brh.size());
        assertEquals(br0, brh);
    }

    private static List<String> loads(List<TraceRequest> trace, String name, BalanceSettings settings) {
        PolicyCatalog.Setup setup = PolicyCatalog.create(name, 1, settings, id -> trace.get((int) id).outputTokens());
        List<String> steps = new ArrayList<>();
        new DecodeSimulator(SMALL).run(trace, setup.policy(), setup.learners(), (step, time, view) -> {
            StringBuilder s = new StringBuilder();
            for (int g = 0; g < view.workers(); g++) {
                s.append(view.load(g)).append(',');
            }
            steps.add(s.toString());
        }, n -> { });
        return steps;
    }

    @Test
    void oracleKnowsTheRemainingSteps() {
        OraclePredictor oracle = new OraclePredictor(id -> 10);
        RequestView r = new org.balanceroute.core.TrackedRequest(1, 5, 0, 0, 0);
        assertEquals(10, oracle.predictEnd(r, 80, 0.5));
        assertEquals(org.balanceroute.api.TerminationPredictor.SURVIVES, oracle.predictEnd(r, 9, 0.5));
    }
}
