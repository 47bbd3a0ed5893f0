package org.balanceroute.benchmarks;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/** The load client's SSE scan: what it counts must not depend on where the reads cut the answer. */
class SseCounterTest {

    private static byte[] capture(String name) throws IOException {
        try (InputStream in = SseCounterTest.class.getResourceAsStream("/relay/" + name)) {
            return in.readAllBytes();
        }
    }

    /**
     * The answer fed in pieces of {@code size} bytes, in heap buffers (as the client reads) at an
     * offset in their arrays, and in direct ones.
     */
    private static Outcome feed(byte[] answer, int size, Window w) {
        Outcome heap = feed(answer, size, w, false);
        Outcome direct = feed(answer, size, w, true);
        assertEquals(heap.tokens(), direct.tokens());
        assertEquals(heap.error(), direct.error());
        return direct;
    }

    private static Outcome feed(byte[] answer, int size, Window w, boolean direct) {
        SseCounter counter = new SseCounter(System.nanoTime(), w);
        for (int at = 0; at < answer.length; at += size) {
            int n = Math.min(size, answer.length - at);
            ByteBuffer b = direct ? ByteBuffer.allocateDirect(n + 7) : ByteBuffer.wrap(new byte[n + 11], 2, n + 7).slice();
            b.position(3);
            b.put(answer, at, n);
            b.flip().position(3);
            counter.feed(b);
            assertEquals(b.limit(), b.position(), "a fed buffer is consumed");
        }
        return counter.outcome(200);
    }

    private static Window open() {
        return new Window(Long.MIN_VALUE, Long.MAX_VALUE);
    }

    @Test
    void countsTheCumulativeUsageWhereverTheReadsCut() throws IOException {
        for (String capture : new String[] {"completions-continuous-usage.sse", "chat-continuous-usage.sse",
                "completions-usage-at-end.sse", "chat-usage-at-end.sse"}) {
            byte[] answer = capture(capture);
            for (int size : new int[] {1, 2, 3, 7, 64, 333, 4096, answer.length}) {
                Window w = open();
                Outcome o = feed(answer, size, w);
                assertNull(o.error(), capture + " in reads of " + size);
                assertEquals(128, o.tokens(), capture + " in reads of " + size);
                assertEquals(2 * 128, w.tokens.sum(), capture + " in reads of " + size + " (heap, then direct buffers)");
                assertTrue(o.firstTokenNanos() >= o.startNanos());
            }
        }
    }

    @Test
    void onlyTokensInsideTheWindowCount() throws IOException {
        Window closed = new Window(0, 0); // no instant is inside
        Outcome o = feed(capture("completions-continuous-usage.sse"), 100, closed);
        assertEquals(128, o.tokens());
        assertEquals(0, closed.tokens.sum());
    }

    @Test
    void carriageReturnsAndNoSpaceAfterData() {
        byte[] answer = ("data:{\"usage\":{\"completion_tokens\":3}}\r\n\r\n"
                + "data: {\"usage\":{\"completion_tokens\" : 5}}\r\n\r\ndata:[DONE]\r\n\r\n").getBytes(StandardCharsets.UTF_8);
        Outcome o = feed(answer, 5, open());
        assertNull(o.error());
        assertEquals(5, o.tokens());
    }

    @Test
    void anAnswerWithoutDoneIsAnError() {
        Outcome o = feed("data: {\"usage\":{\"completion_tokens\":2}}\n\n".getBytes(StandardCharsets.UTF_8), 8, open());
        assertEquals("the stream ended without data: [DONE]", o.error());
        assertEquals(2, o.tokens());
    }

    @Test
    void inBandErrorsAndErrorAnswersAreKept() {
        Outcome inBand = feed("data: {\"error\": {\"message\": \"boom\"}}\n\ndata: [DONE]\n\n".getBytes(StandardCharsets.UTF_8),
                4, open());
        assertEquals("in-band error: data: {\"error\": {\"message\": \"boom\"}}", inBand.error());
        SseCounter counter = new SseCounter(System.nanoTime(), open());
        counter.feed(ByteBuffer.wrap("{\"error\": \"no worker\"}".getBytes(StandardCharsets.UTF_8))); // no newline at the end
        assertEquals("HTTP 503 {\"error\": \"no worker\"}", counter.outcome(503).error());
    }

    @Test
    void theLastCompletionTokensOfALineCounts() {
        byte[] line = "data: {\"completion_tokens\":1,\"usage\":{\"completion_tokens\": 42}}".getBytes(StandardCharsets.UTF_8);
        assertEquals(42, SseCounter.completionTokens(line, 0, line.length));
        assertEquals(-1, SseCounter.completionTokens(line, 0, 20));
    }
}
