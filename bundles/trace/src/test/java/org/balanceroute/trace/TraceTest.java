package org.balanceroute.trace;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The trace value type and its summaries, as a generator would build one. */
class TraceTest {

    @Test
    void summaries() {
        Trace trace = new Trace("gen", TraceFormat.PLAIN, List.of(
                new TraceRequest(0.5, 100, 10, 0),
                new TraceRequest(1.0, 300, 20, 0),
                new TraceRequest(3.0, 200, 60, 0)));
        assertEquals(3, trace.size());
        assertEquals(200.0, trace.meanInputTokens(), 1e-12);
        assertEquals(30.0, trace.meanOutputTokens(), 1e-12);
        assertEquals(2.5, trace.durationSeconds(), 1e-12);
        assertEquals("gen (PLAIN): 3 requests over 2.5 s, mean input 200, mean output 30 tokens",
                trace.toString());
    }

    @Test
    void anEmptyTraceSummarisesAsZero() {
        Trace trace = new Trace("none", TraceFormat.PLAIN, List.of());
        assertEquals(0.0, trace.meanInputTokens());
        assertEquals(0.0, trace.meanOutputTokens());
        assertEquals(0.0, trace.durationSeconds());
    }

    @Test
    void theRequestListIsCopied() {
        List<TraceRequest> requests = new ArrayList<>(List.of(new TraceRequest(0, 1, 1, 0)));
        Trace trace = new Trace("gen", TraceFormat.PLAIN, requests);
        requests.add(new TraceRequest(1, 1, 1, 0));
        assertEquals(1, trace.size());
    }

    @Test
    void arrivalsMustNotGoBackwards() {
        List<TraceRequest> requests = List.of(new TraceRequest(2, 1, 1, 0), new TraceRequest(1, 1, 1, 0));
        assertThrows(IllegalArgumentException.class, () -> new Trace("gen", TraceFormat.PLAIN, requests));
    }

    @Test
    void requestsAreValidated() {
        assertThrows(IllegalArgumentException.class, () -> new TraceRequest(-0.1, 1, 1, 0));
        assertThrows(IllegalArgumentException.class, () -> new TraceRequest(Double.NaN, 1, 1, 0));
        assertThrows(IllegalArgumentException.class, () -> new TraceRequest(Double.POSITIVE_INFINITY, 1, 1, 0));
        assertThrows(IllegalArgumentException.class, () -> new TraceRequest(0, 0, 1, 0));
        assertThrows(IllegalArgumentException.class, () -> new TraceRequest(0, 1, 0, 0));
    }
}
