package org.balanceroute.simulator;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.balanceroute.policy.balance.BalanceSettings;
import org.balanceroute.trace.TraceRequest;
import org.junit.jupiter.api.Test;

class HeadroomReferenceTest {

    /** Small bursty workloads: a few dozen requests on 2-4 workers of 4 slots, so the pool fills. */
    static List<TraceRequest> small(long seed) {
        SplittableRandom random = new SplittableRandom(seed);
        List<TraceRequest> out = new ArrayList<>();
        double t = 0;
        for (int i = 0, n = 20 + random.nextInt(30); i < n; i++) {
            t += random.nextDouble() * 0.02;
            out.add(new TraceRequest(t, 1 + random.nextInt(8000), 1 + random.nextInt(120), 0));
        }
        return out;
    }

    @Test
    void neverWorseThanBr0NorThanAnyOfItsMembers() {
        for (long seed = 1; seed <= 25; seed++) {
            List<TraceRequest> trace = small(seed);
            SimulationConfig config = new SimulationConfig(2 + (int) (seed % 3), 4, 2e-7, 0.02, 0, 0, 0, seed);
            SteadyState steady = new SteadyState(0);
            HeadroomReference.Outcome o = HeadroomReference.run(trace, config, steady, BalanceSettings.defaults(), seed);
            PolicyCatalog.Setup br0 = PolicyCatalog.create("br0", seed, BalanceSettings.defaults(), id -> 0);
            SimulationResult b = new DecodeSimulator(config, ProxyReplicas.SINGLE, steady).run(trace, br0.policy(),
                    br0.learners(), StepObserver.NONE, n -> { });
            assertEquals(HeadroomReference.NAME, o.result().policy());
            assertTrue(o.result().steadyAvgImbalance() <= b.steadyAvgImbalance(), seed + ": " + o + " vs " + b);
            for (SimulationResult m : o.members()) {
                assertTrue(o.result().steadyAvgImbalance() <= m.steadyAvgImbalance(), seed + ": " + m);
            }
            assertEquals(trace.stream().mapToLong(TraceRequest::outputTokens).sum(), o.result().outputTokens());
        }
    }

    @Test
    void itsPortfolioHasTheTheoryMemberAndDropsDuplicates() {
        List<HeadroomReference.Member> m = HeadroomReference.members(BalanceSettings.defaults(), 8);
        HeadroomReference.Member theory = m.stream().filter(x -> x.label().startsWith("oracle H=400")).findFirst()
                .orElseThrow();
        assertEquals(400, theory.settings().horizon());
        assertEquals(8, theory.settings().beta());
        assertEquals(1.0, theory.settings().gamma());
        assertEquals(12, theory.settings().rMax());
        // with the paper's settings in force, "br0" and "br0 paper options" are one run
        HeadroomReference.Outcome o = HeadroomReference.run(small(3), new SimulationConfig(2, 4, 2e-7, 0.02, 0, 0, 0,
                1), SteadyState.DEFAULT, BalanceSettings.defaults(), 1);
        assertEquals(m.size() - 2, o.members().size());
    }
}
