package org.balanceroute.simulator;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.balanceroute.policy.balance.BalancePolicy;
import org.balanceroute.policy.balance.BalanceSettings;
import org.balanceroute.predictor.survival.SurvivalSettings;
import org.balanceroute.trace.TraceRequest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@link TraceSimulation}: a name runs the policy the catalog wires, seeded, and the same on every path. */
class TraceSimulationTest {

    private static final SimulationConfig CONFIG = new SimulationConfig(4, 8, 2e-7, 0.02, 0, 0, 0, 5);
    private static final List<TraceRequest> TRACE = DecodeSimulatorTest.workload(11, 300);
    private static final BalanceSettings BALANCE = BalanceSettings.defaults();
    private static final SurvivalSettings PREDICTOR = SurvivalSettings.defaults();

    private static TraceSimulation simulation(ProxyReplicas replicas, List<TraceRequest> warmStart) {
        return new TraceSimulation(CONFIG, replicas, SteadyState.DEFAULT, BALANCE, PREDICTOR, warmStart);
    }

    /** The policy wired by hand, each replica seeded as {@link ProxyReplicas#seedOf} says. */
    private static SimulationResult byHand(String name, ProxyReplicas replicas, List<TraceRequest> warmStart) {
        return new DecodeSimulator(CONFIG, replicas, SteadyState.DEFAULT).run(TRACE,
                r -> PolicyCatalog.create(name, ProxyReplicas.seedOf(CONFIG.seed(), r), BALANCE, PREDICTOR,
                        id -> TRACE.get((int) id).outputTokens(), warmStart),
                StepObserver.NONE, n -> { });
    }

    @Test
    void aNamedPolicyRunsAsTheCatalogWiresIt() {
        List<TraceRequest> warm = DecodeSimulatorTest.workload(3, 100);
        for (String name : List.of("random", "p2c", BalancePolicy.BR0, BalancePolicy.BRH_SURVIVAL)) {
            assertEquals(byHand(name, ProxyReplicas.SINGLE, List.of()),
                    simulation(ProxyReplicas.SINGLE, List.of()).run(TRACE, name, n -> { }), name);
        }
        assertEquals(byHand(BalancePolicy.BRH_EXACT, ProxyReplicas.SINGLE, warm),
                simulation(ProxyReplicas.SINGLE, warm).run(TRACE, BalancePolicy.BRH_EXACT, n -> { }));
        ProxyReplicas gossip = new ProxyReplicas(3, 2, ReplicasMode.GOSSIP);
        assertEquals(byHand("p2c", gossip, List.of()), simulation(gossip, List.of()).run(TRACE, "p2c", n -> { }));
    }

    @Test
    void aSeededRunIsRepeatable() {
        TraceSimulation s = simulation(ProxyReplicas.SINGLE, List.of());
        assertEquals(s.run(TRACE, "random", n -> { }), s.run(TRACE, "random", n -> { }));
    }

    @Test
    void theReferenceIsTheHeadroomPortfolioOnOneProxy() {
        SimulationResult expected = HeadroomReference.run(TRACE, CONFIG, SteadyState.DEFAULT, BALANCE,
                CONFIG.seed()).result();
        ProxyReplicas two = new ProxyReplicas(2, 0, ReplicasMode.DISPATCHER);
        assertEquals(expected, simulation(two, List.of()).run(TRACE, HeadroomReference.NAME, n -> { }));
    }

    @Test
    void everyPolicyInTheOrderGiven() throws IOException {
        List<String> names = List.of("jsq", BalancePolicy.BR0, "round-robin");
        List<int[]> reports = new ArrayList<>();
        List<SimulationResult> all = simulation(ProxyReplicas.SINGLE, List.of()).runAll(TRACE, names, null,
                (elapsed, done) -> reports.add(done));
        assertEquals(names, all.stream().map(SimulationResult::policy).toList());
        for (int i = 0; i < names.size(); i++) {
            assertEquals(byHand(names.get(i), ProxyReplicas.SINGLE, List.of()), all.get(i));
        }
        reports.forEach(done -> assertEquals(names.size(), done.length));
    }

    @Test
    void aSeriesIsACsvAndAChartPerPolicy(@TempDir Path dir) throws IOException {
        SimulationResult r = simulation(ProxyReplicas.SINGLE, List.of()).run(TRACE, "jsq", dir, n -> { });
        assertEquals(byHand("jsq", ProxyReplicas.SINGLE, List.of()), r);
        List<String> csv = Files.readAllLines(dir.resolve("jsq.csv"));
        assertEquals("step,time_s,worker_0,worker_1,worker_2,worker_3", csv.get(0));
        assertEquals(r.steps() + 1, csv.size());
        assertTrue(Files.size(dir.resolve("jsq.png")) > 0);
        simulation(ProxyReplicas.SINGLE, List.of()).run(TRACE, HeadroomReference.NAME, dir, n -> { });
        assertFalse(Files.exists(dir.resolve(HeadroomReference.NAME + ".csv")), "the best of several runs: no series");
    }

    @Test
    void namesItKnows() {
        assertEquals(PolicyCatalog.NAMES.size() + 1, TraceSimulation.POLICIES.size());
        assertEquals(HeadroomReference.NAME, TraceSimulation.POLICIES.get(TraceSimulation.POLICIES.size() - 1));
        assertTrue(TraceSimulation.knows(JsqThenBr0Policy.NAME));
        assertFalse(TraceSimulation.knows("nope"));
        assertThrows(IllegalArgumentException.class,
                () -> simulation(ProxyReplicas.SINGLE, List.of()).run(TRACE, "nope", n -> { }));
    }
}
