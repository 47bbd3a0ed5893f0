package org.balanceroute.connector.vllm.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class SseParserTest {

    private static List<String> parse(int chunkSize, String body) {
        List<String> events = new ArrayList<>();
        SseParser p = new SseParser(events::add);
        byte[] b = body.getBytes(StandardCharsets.UTF_8);
        for (int i = 0; i < b.length; i += chunkSize) {
            p.feed(ByteBuffer.wrap(b, i, Math.min(chunkSize, b.length - i)));
        }
        p.finish();
        return events;
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
}
