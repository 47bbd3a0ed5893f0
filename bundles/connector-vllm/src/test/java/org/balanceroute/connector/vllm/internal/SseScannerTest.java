package org.balanceroute.connector.vllm.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.balanceroute.connector.vllm.SseScanner;
import org.junit.jupiter.api.Test;

class SseScannerTest {

    /** Collects each event's data as text, and which buffer it was handed in. */
    private static final class Collected implements SseScanner.Events {
        final List<String> data = new ArrayList<>();
        final List<ByteBuffer> buffers = new ArrayList<>();

        @Override
        public void onEvent(ByteBuffer buffer, int offset, int length) {
            byte[] b = new byte[length];
            buffer.get(offset, b);
            data.add(new String(b, StandardCharsets.UTF_8));
            buffers.add(buffer);
        }
    }

    private static List<String> parse(int chunkSize, String body) {
        return parse(chunkSize, body, false);
    }

    /** Feeds {@code body} in chunks of {@code chunkSize} (heap buffers, or direct ones). */
    private static List<String> parse(int chunkSize, String body, boolean direct) {
        Collected events = new Collected();
        SseScanner p = new SseScanner(events);
        byte[] b = body.getBytes(StandardCharsets.UTF_8);
        for (int i = 0; i < b.length; i += chunkSize) {
            p.feed(buffer(b, i, Math.min(chunkSize, b.length - i), direct));
        }
        p.finish();
        return events.data;
    }

    /** A buffer whose content sits at an offset of a larger array (as slices of a network buffer do). */
    private static ByteBuffer buffer(byte[] b, int from, int n, boolean direct) {
        if (direct) {
            ByteBuffer d = ByteBuffer.allocateDirect(n + 7);
            d.position(3);
            d.put(b, from, n);
            return d.flip().position(3);
        }
        byte[] padded = new byte[n + 10];
        System.arraycopy(b, from, padded, 5, n);
        return ByteBuffer.wrap(padded, 5, n).slice();
    }

    @Test
    void eventsComeOutWhateverTheChunkingAndLineEndings() {
        String body = "data: {\"a\": 1}\n\n: ping\n\ndata: {\"b\": \"é\"}\r\n\r\nevent: x\ndata: one\ndata: two\r\rdata: [DONE]\n\n";
        List<String> expected = List.of("{\"a\": 1}", "{\"b\": \"é\"}", "one\ntwo", "[DONE]");
        for (int size : new int[] {1, 2, 3, 7, 1000}) {
            assertEquals(expected, parse(size, body), "chunks of " + size);
        }
    }

    @Test
    void anUnterminatedLastEventIsDispatchedAtTheEnd() {
        assertEquals(List.of("x", "y"), parse(4, "data: x\n\ndata:y"));
    }

    /** Real chunk shapes, LF and CRLF, comments, other fields; every split of the body in two, heap and direct. */
    @Test
    void aSplitAtEveryByteOffsetChangesNothing() {
        String lf = ": ping\n\n"
                + "data: {\"id\":\"chatcmpl-1\",\"object\":\"chat.completion.chunk\",\"choices\":[{\"index\":0,"
                + "\"delta\":{\"role\":\"assistant\",\"content\":\"\"},\"logprobs\":null,\"finish_reason\":null}]}\n\n"
                + "data: {\"id\":\"chatcmpl-1\",\"choices\":[{\"index\":0,\"delta\":{\"content\":\" the\"}}],"
                + "\"usage\":{\"prompt_tokens\":7,\"total_tokens\":8,\"completion_tokens\":1}}\n\n"
                + "id: 7\nretry: 10\ndata: {\"error\": {\"message\": \"cut\", \"type\": \"server_error\"}}\n\n"
                + "data:[DONE]\n\n";
        List<String> expected = List.of(
                "{\"id\":\"chatcmpl-1\",\"object\":\"chat.completion.chunk\",\"choices\":[{\"index\":0,"
                        + "\"delta\":{\"role\":\"assistant\",\"content\":\"\"},\"logprobs\":null,\"finish_reason\":null}]}",
                "{\"id\":\"chatcmpl-1\",\"choices\":[{\"index\":0,\"delta\":{\"content\":\" the\"}}],"
                        + "\"usage\":{\"prompt_tokens\":7,\"total_tokens\":8,\"completion_tokens\":1}}",
                "{\"error\": {\"message\": \"cut\", \"type\": \"server_error\"}}",
                "[DONE]");
        for (String body : List.of(lf, lf.replace("\n", "\r\n"), lf.replace("\n", "\r"))) {
            byte[] b = body.getBytes(StandardCharsets.UTF_8);
            for (boolean direct : new boolean[] {false, true}) {
                for (int cut = 0; cut <= b.length; cut++) {
                    Collected events = new Collected();
                    SseScanner p = new SseScanner(events);
                    p.feed(buffer(b, 0, cut, direct));
                    p.feed(buffer(b, cut, b.length - cut, direct));
                    p.finish();
                    assertEquals(expected, events.data, "cut at " + cut + (direct ? " (direct)" : ""));
                }
                // and one buffer per byte, and three pieces at every pair of offsets (a line split twice)
                assertEquals(expected, parse(1, body, direct));
            }
            for (int c1 = 0; c1 <= b.length; c1 += 3) {
                for (int c2 = c1; c2 <= b.length; c2 += 5) {
                    Collected events = new Collected();
                    SseScanner p = new SseScanner(events);
                    p.feed(buffer(b, 0, c1, false));
                    p.feed(buffer(b, c1, c2 - c1, false));
                    p.feed(buffer(b, c2, b.length - c2, false));
                    p.finish();
                    assertEquals(expected, events.data, "cuts at " + c1 + ", " + c2);
                }
            }
        }
    }

    @Test
    void aWholeEventIsHandedOverInTheBufferItCameIn() {
        Collected events = new Collected();
        SseScanner p = new SseScanner(events);
        ByteBuffer one = ByteBuffer.wrap("data: {\"a\":1}\n\ndata: {\"b\":2}\n\ndata: {\"c\"".getBytes(StandardCharsets.UTF_8));
        p.feed(one);
        assertEquals(List.of("{\"a\":1}", "{\"b\":2}"), events.data);
        assertSame(one, events.buffers.get(0), "in place: no copy");
        assertSame(one, events.buffers.get(1));
        assertEquals(one.limit(), one.position(), "consumed");
        p.feed(ByteBuffer.wrap(":3}\n\n".getBytes(StandardCharsets.UTF_8)));
        assertEquals("{\"c\":3}", events.data.get(2), "carried over the buffers' boundary");
    }

    @Test
    void dataWhoseBlankLineComesInTheNextBufferOutlivesItsBuffer() {
        Collected events = new Collected();
        SseScanner p = new SseScanner(events);
        byte[] first = "data: {\"a\":1}\n".getBytes(StandardCharsets.UTF_8);
        p.feed(ByteBuffer.wrap(first));
        java.util.Arrays.fill(first, (byte) 'X'); // the client reuses its buffer
        p.feed(ByteBuffer.wrap("\n".getBytes(StandardCharsets.UTF_8)));
        assertEquals(List.of("{\"a\":1}"), events.data);
    }

    @Test
    void fieldsThatOnlyLookLikeDataAndLongEventsAreHandled() {
        String big = "x".repeat(70_000);
        assertEquals(List.of("real", big, big), parse(1000, "data\n\ndatum: no\ndataX: no\ndata: real\n\n"
                + "data: " + big + "\n\n" + "data: " + big + "\n\n"));
        assertEquals(List.of("", " two spaces"), parse(3, "data:\n\ndata:  two spaces\n\n"));
    }
}
