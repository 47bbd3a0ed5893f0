package org.balanceroute.simulator;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.balanceroute.trace.TraceRequest;
import org.junit.jupiter.api.Test;

class TraceSampleTest {

    private static final List<TraceRequest> TRACE = DecodeSimulatorTest.workload(7, 500);

    private static List<Double> arrivals(List<TraceRequest> t) {
        return t.stream().map(TraceRequest::arrivalSeconds).toList();
    }

    private static List<String> bodies(List<TraceRequest> t) {
        return t.stream().map(r -> r.inputTokens() + "/" + r.outputTokens()).sorted().toList();
    }

    @Test
    void copyZeroIsTheTraceAsRecorded() {
        assertSame(TRACE, TraceSample.shuffled(TRACE, 1, 0));
        assertEquals(TRACE, TraceSample.superposed(TRACE, 1, 0, 1));
    }

    @Test
    void aCopyKeepsTheArrivalsAndDealsTheSameRequestsOntoThem() {
        List<TraceRequest> copy = TraceSample.shuffled(TRACE, 1, 2);
        assertEquals(arrivals(TRACE), arrivals(copy));
        assertEquals(bodies(TRACE), bodies(copy));
        assertNotEquals(TRACE.stream().map(TraceRequest::outputTokens).toList(),
                copy.stream().map(TraceRequest::outputTokens).toList());
        // so the capacity estimate and the rate scale of a load are the trace's
        SimulationConfig config = SimulationConfig.defaults();
        assertEquals(OfferedLoad.of(TRACE, config).rateScaleFor(1), OfferedLoad.of(copy, config).rateScaleFor(1),
                1e-9);
    }

    @Test
    void theSameSeedGivesTheSameSampleAndAnotherSeedAnother() {
        assertEquals(TraceSample.superposed(TRACE, 5, 1, 2), TraceSample.superposed(TRACE, 5, 1, 2));
        assertNotEquals(TraceSample.superposed(TRACE, 5, 1, 2), TraceSample.superposed(TRACE, 6, 1, 2));
        assertNotEquals(TraceSample.superposed(TRACE, 5, 1, 2), TraceSample.superposed(TRACE, 5, 2, 2));
    }

    /** Sample 1 of a 2-copy cell is copies 2 and 3; sample 0 holds the recorded trace and copy 1. */
    @Test
    void aSampleSuperposesItsCopiesOverTheSameSpan() {
        List<TraceRequest> sample = TraceSample.superposed(TRACE, 3, 1, 2);
        assertEquals(2 * TRACE.size(), sample.size());
        List<TraceRequest> expected = new java.util.ArrayList<>(TraceSample.shuffled(TRACE, 3, 2));
        expected.addAll(TraceSample.shuffled(TRACE, 3, 3));
        assertEquals(bodies(expected), bodies(sample));
        for (int i = 1; i < sample.size(); i++) {
            assertTrue(sample.get(i - 1).arrivalSeconds() <= sample.get(i).arrivalSeconds());
        }
        assertEquals(TRACE.get(0).arrivalSeconds(), sample.get(0).arrivalSeconds());
        assertEquals(TRACE.get(TRACE.size() - 1).arrivalSeconds(), sample.get(sample.size() - 1).arrivalSeconds());
        assertTrue(TraceSample.superposed(TRACE, 3, 0, 2).containsAll(TRACE));
        // twice the tokens over the same span: twice the offered rate, the same capacity
        SimulationConfig config = SimulationConfig.defaults();
        assertEquals(OfferedLoad.of(TRACE, config).rateScaleFor(1) / 2, OfferedLoad.of(sample, config).rateScaleFor(1),
                1e-9);
    }

    @Test
    void copiesNeverSharePromptIdentitiesAndUnknownStaysUnknown() {
        List<TraceRequest> keyed = List.of(new TraceRequest(0, 10, 3, 41), new TraceRequest(1, 20, 4, 42),
                new TraceRequest(2, 30, 5, TraceRequest.NO_PROMPT_KEY));
        Set<Long> original = new HashSet<>();
        keyed.forEach(r -> original.add(r.promptKey()));
        List<TraceRequest> copy = TraceSample.shuffled(keyed, 1, 1);
        for (TraceRequest r : copy) {
            if (r.inputTokens() == 30) {
                assertEquals(TraceRequest.NO_PROMPT_KEY, r.promptKey());
            } else {
                assertTrue(!original.contains(r.promptKey()), "copy 1 reuses prompt key " + r.promptKey());
            }
        }
        assertEquals(2, copy.stream().map(TraceRequest::promptKey).filter(k -> k != 0).distinct().count());
    }

    @Test
    void badArgumentsAreRefused() {
        assertThrows(IllegalArgumentException.class, () -> TraceSample.shuffled(TRACE, 1, -1));
        assertThrows(IllegalArgumentException.class, () -> TraceSample.superposed(TRACE, 1, 0, 0));
    }

    @Test
    void scaledDividesEveryArrivalAndKeepsTheRest() {
        List<TraceRequest> faster = TraceSample.scaled(TRACE, 4);
        assertEquals(TRACE.size(), faster.size());
        for (int i = 0; i < TRACE.size(); i++) {
            TraceRequest t = TRACE.get(i), f = faster.get(i);
            assertEquals(t.arrivalSeconds() / 4, f.arrivalSeconds());
            assertEquals(List.of(t.inputTokens(), t.outputTokens()), List.of(f.inputTokens(), f.outputTokens()));
            assertEquals(t.promptKey(), f.promptKey());
        }
    }
}
