package org.balanceroute.simulator;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.List;
import org.balanceroute.trace.TraceRequest;
import org.junit.jupiter.api.Test;

class OfferedLoadTest {

    /**
     * Two requests, 10 s apart: (s=100, o=4) and (s=200, o=2). Offered: 6 tokens / 10 s = 0.6
     * tok/s. Slot load: 4*100 + 4*3/2 = 406 and 2*200 + 2*1/2 = 401, w = 807 / 6 = 134.5. With
     * G=2, B=4, a=1e-3, b=0.01, c=1e-3 a saturated step lasts 1e-3*4*134.5 + 0.01 + 1e-3*4 = 0.552
     * s and emits 8 tokens: capacity 8 / 0.552 = 14.4928 tok/s.
     */
    @Test
    void estimateMatchesTheHandComputedCase() {
        List<TraceRequest> trace = List.of(new TraceRequest(0, 100, 4, 0), new TraceRequest(10, 200, 2, 0));
        SimulationConfig config = new SimulationConfig(2, 4, 1e-3, 0.01, 1e-3, 0, 0, 1);
        OfferedLoad load = OfferedLoad.of(trace, config);
        assertEquals(134.5, load.meanSlotLoad(), 1e-12);
        assertEquals(0.6, load.offeredTokPerS(), 1e-12);
        assertEquals(8 / 0.552, load.capacityTokPerS(), 1e-9);
        assertEquals(0.6 / (8 / 0.552), load.loadAt(1), 1e-12);
        double scale = load.rateScaleFor(0.5);
        assertEquals(0.5 * (8 / 0.552) / 0.6, scale, 1e-9);
        assertEquals(0.5, load.loadAt(scale), 1e-12);
    }

    @Test
    void needsAnArrivalSpan() {
        SimulationConfig config = SimulationConfig.defaults();
        assertThrows(IllegalArgumentException.class,
                () -> OfferedLoad.of(List.of(new TraceRequest(0, 1, 1, 0)), config));
        assertThrows(IllegalArgumentException.class, () -> OfferedLoad.of(
                List.of(new TraceRequest(3, 1, 1, 0), new TraceRequest(3, 2, 2, 0)), config));
    }

    /** At load 0.5 a balanced Mooncake-like workload keeps up: throughput about equals what is offered. */
    @Test
    void halfLoadIsServedAtTheOfferedRate() {
        List<TraceRequest> trace = DecodeSimulatorTest.workload(3, 2000);
        SimulationConfig config = new SimulationConfig(4, 8, 2e-7, 0.02, 0, 0, 0, 1);
        OfferedLoad load = OfferedLoad.of(trace, config);
        double scale = load.rateScaleFor(0.5);
        List<TraceRequest> scaled = trace.stream().map(t -> new TraceRequest(t.arrivalSeconds() / scale,
                t.inputTokens(), t.outputTokens(), t.promptKey())).toList();
        PolicyCatalog.Setup setup = PolicyCatalog.create("br0", 1,
                org.balanceroute.policy.balance.BalanceSettings.defaults(), id -> 0);
        SimulationResult r = new DecodeSimulator(config).run(scaled, setup.policy(), setup.learners(),
                StepObserver.NONE, n -> { });
        double offered = load.offeredTokPerS() * scale;
        assertEquals(1.0, r.steadyThroughputTokPerS() / offered, 0.15);
    }
}
