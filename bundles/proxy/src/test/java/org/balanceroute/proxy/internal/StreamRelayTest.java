package org.balanceroute.proxy.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** On the calling thread (a direct executor), so every assertion sees the writes as they happen. */
class StreamRelayTest {

    private final FlowFakes.Sink sink = new FlowFakes.Sink();
    private final AtomicInteger gone = new AtomicInteger();
    private final StreamRelay relay = new StreamRelay(sink, Runnable::run, 16, gone::incrementAndGet);

    @Test
    void nothingIsWrittenBeforeStartThenAllInOrder() {
        relay.ping();
        relay.event("{\"a\": 1}");
        assertEquals("", sink.written.toString(), "held until the response is handed over");
        relay.start();
        relay.event("[DONE]");
        relay.close();
        assertEquals(": ping\n\ndata: {\"a\": 1}\n\ndata: [DONE]\n\n", sink.written.toString());
        assertTrue(sink.closed);
    }

    @Test
    void aFailedPingWriteReportsTheClientGoneOnce() {
        relay.start();
        sink.gone = true;
        relay.ping();
        relay.ping();
        relay.event("x");
        assertEquals(1, gone.get());
        assertTrue(sink.closed);
    }
}
