package org.balanceroute.simulator;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.balanceroute.core.PoolState;
import org.balanceroute.policy.balance.BalanceSettings;
import org.balanceroute.trace.TraceRequest;
import org.junit.jupiter.api.Test;

class SteadyStateTest {

    @Test
    void defaultWindowLeavesOutATenthOfTheSpanAndTheDrain() {
        List<TraceRequest> trace = List.of(new TraceRequest(4, 1, 1, 0), new TraceRequest(14, 1, 1, 0),
                new TraceRequest(9, 1, 1, 0));
        SteadyState.Window w = SteadyState.DEFAULT.window(trace);
        assertEquals(5, w.startS(), 1e-12);
        assertEquals(14, w.endS(), 1e-12);
        assertTrue(w.contains(5));
        assertFalse(w.contains(4.999));
        assertFalse(w.contains(14));
        assertEquals(7, new SteadyState(3).window(trace).startS(), 1e-12);
        assertThrows(IllegalArgumentException.class, () -> new SteadyState(Double.NaN));
    }

    /**
     * One step per second (a=0, b=1). r0 (s=100, o=10) arrives at 0 and runs steps 0..9, r1
     * (s=50, o=4) at 5 runs steps 5..8, r2 at 20 runs step 20. Warm-up 2 s: the window is [2, 20),
     * so the steady steps are exactly those starting at 2..9: 8 steps. The imbalance of a step is
     * the load of its busiest worker less the idle one's 0: r0's 100 + k at step k, plus r1's on
     * the other worker only counts through max - min, which is r0's minus r1's at steps 5..8.
     */
    @Test
    void steadyFiguresCoverExactlyTheStepsStartingInTheWindow() {
        List<TraceRequest> trace = List.of(new TraceRequest(0, 100, 10, 0), new TraceRequest(5, 50, 4, 0),
                new TraceRequest(20, 10, 1, 0));
        SimulationConfig config = new SimulationConfig(2, 4, 0, 1, 0, 0, 0, 1);
        PolicyCatalog.Setup setup = PolicyCatalog.create("jsq", 1, BalanceSettings.defaults(), id -> 0);
        SimulationResult r = new DecodeSimulator(config, ProxyReplicas.SINGLE, new SteadyState(2))
                .run(trace, setup.policy(), setup.learners(), StepObserver.NONE, n -> { });
        assertEquals(2, r.steadyStartS(), 1e-12);
        assertEquals(20, r.steadyEndS(), 1e-12);
        assertEquals(8, r.steadySteps());
        // steps 2,3,4: 102,103,104; steps 5..8: (105-50),(106-51),(107-52),(108-53) = 55 each; step 9: 109
        double expected = (102 + 103 + 104 + 4 * 55 + 109) / 8.0;
        assertEquals(expected, r.steadyAvgImbalance(), 1e-9);
        // tokens: 1 a step at 2,3,4,9, 2 at 5..8: 12 tokens over 8 s
        assertEquals(12 / 8.0, r.steadyThroughputTokPerS(), 1e-12);
        // only r1's first and last tokens (at 6 and 9) fall inside: TPOT (9-6)/3 s
        assertEquals(1000, r.steadyTpotP95Ms(), 1e-9);
    }

    /** The TPOT sample holds the requests whose first token comes after the start and last by the end. */
    @Test
    void steadyTpotTakesOnlyRequestsInsideTheWindow() {
        List<TraceRequest> trace = List.of(new TraceRequest(0, 1, 3, 0), new TraceRequest(1, 1, 3, 0),
                new TraceRequest(2, 1, 3, 0));
        RunMetrics metrics = new RunMetrics(new SteadyState.Window(1, 10));
        metrics.measure(new PoolState(1, 1));
        // TPOTs: 1000 ms (first token at 1: not after the start), 2000 ms (inside), 4000 ms (ends at 11)
        double[] first = {1, 2, 3};
        double[] finish = {3, 6, 11};
        SimulationResult r = metrics.summarize("x", trace, first, finish, 9);
        assertEquals(2000, r.steadyTpotP95Ms(), 1e-9);
        assertEquals(4000, r.tpotP95Ms(), 1e-9);
    }
}
