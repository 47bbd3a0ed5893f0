package org.balanceroute.tuner;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.List;
import org.balanceroute.core.TrackedRequest;
import org.balanceroute.trace.TraceRequest;
import org.junit.jupiter.api.Test;

class RecentRequestsTest {

    private static TrackedRequest request(long id, int prompt, long key, double arrivalSeconds) {
        return new TrackedRequest(id, prompt, key, 0, (long) (arrivalSeconds * 1e9));
    }

    @Test
    void windowIsTheRecentArrivalsAsATraceFromTheFirstOfThem() {
        RecentRequests r = new RecentRequests(100);
        // finished out of arrival order
        r.onCompleted(request(1, 100, 7, 10), 5);
        r.onCompleted(request(2, 200, 8, 5), 6);
        r.onCompleted(request(3, 300, 9, 70), 0); // no output counted: recorded as 1
        r.onCompleted(request(4, 400, 9, 40), 8);
        assertEquals(4, r.recorded());
        List<TraceRequest> all = r.window(0);
        assertEquals(List.of(new TraceRequest(0, 200, 6, 8), new TraceRequest(5, 100, 5, 7),
                new TraceRequest(35, 400, 8, 9), new TraceRequest(65, 300, 1, 9)), all);
        // the last 40 s before the newest arrival (70 s): 40 and 70
        assertEquals(List.of(new TraceRequest(0, 400, 8, 9), new TraceRequest(30, 300, 1, 9)),
                r.window(40_000_000_000L));
    }

    @Test
    void holdsTheLastCapacityMinusOne() {
        RecentRequests r = new RecentRequests(4);
        for (int i = 0; i < 10; i++) {
            r.onCompleted(request(i, 10 + i, 0, i), 1);
        }
        List<TraceRequest> w = r.window(0);
        assertEquals(3, w.size());
        assertEquals(List.of(17, 18, 19), w.stream().map(TraceRequest::inputTokens).toList());
        assertThrows(IllegalArgumentException.class, () -> new RecentRequests(1));
    }

    /** A reader racing the writer gets whole entries, in order, never a torn one. */
    @Test
    void aReaderRacingTheWriterSeesConsistentEntries() throws Exception {
        RecentRequests r = new RecentRequests(64);
        Thread writer = new Thread(() -> {
            for (int i = 1; i <= 200_000; i++) {
                r.onCompleted(request(i, i, i, i * 1e-3), i); // prompt = output = key
            }
        });
        writer.start();
        while (writer.isAlive()) {
            for (TraceRequest t : r.window(0)) {
                assertEquals(t.inputTokens(), t.outputTokens());
                assertEquals(t.inputTokens(), t.promptKey());
            }
        }
        writer.join();
    }
}
