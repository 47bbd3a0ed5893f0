package org.balanceroute.connector.vllm.internal;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import org.balanceroute.connector.vllm.SseScanner;
import org.balanceroute.wire.CompletionBodies;
import org.balanceroute.wire.KvHandle;
import org.balanceroute.wire.TokenIdPrompt;

/**
 * Runs the connector's per-request and per-event code through its real classes once, off the
 * start-up thread, so that a fresh runtime's first requests do not pay for loading and
 * interpreting it: the two hops' bodies as {@link CompletionBodies} makes and Jackson writes them, a
 * prefill answer parsed, and {@link SseScanner} over a synthetic decode stream cut into reads of
 * several sizes. Nothing is sent.
 */
final class ConnectorWarmUp {

    static final int EVENTS = 20_000;
    private static final ObjectMapper MAPPER = new ObjectMapper();

    private ConnectorWarmUp() {
    }

    static long run(int events) throws Exception {
        long sum = 0;
        ObjectNode body = CompletionBodies.streamed("m", TokenIdPrompt.cycling(8), 16, false);
        ObjectNode prefilled = MAPPER.createObjectNode().put("id", "cmpl-w");
        prefilled.putArray("choices").addObject().put("text", "a");
        prefilled.putObject("usage").put("prompt_tokens", 8);
        prefilled.set(KvHandle.FIELD, KvHandle.issued("e_dp0", "127.0.0.1", 7000, "w", 1, 128));
        byte[] answer = MAPPER.writeValueAsBytes(prefilled);
        for (int i = 0; i < 200; i++) {
            sum += MAPPER.writeValueAsBytes(CompletionBodies.prefillHop(body)).length;
            ObjectNode kv = PrefillClient.parse(answer, 0, 1).kvTransferParams();
            sum += MAPPER.writeValueAsBytes(CompletionBodies.decodeHop(body, kv)).length;
        }
        ObjectNode chunk = MAPPER.createObjectNode().put("id", "cmpl-w").put("object", "text_completion");
        chunk.putArray("choices").addObject().put("index", 0).put("text", " w").putNull("finish_reason");
        chunk.putObject("usage").put("prompt_tokens", 8).put("total_tokens", 9).put("completion_tokens", 1);
        byte[] event = ("data: " + MAPPER.writeValueAsString(chunk) + "\n\n").getBytes(StandardCharsets.UTF_8);
        byte[] stream = new byte[event.length * 16];
        for (int k = 0; k < 16; k++) {
            System.arraycopy(event, 0, stream, k * event.length, event.length);
        }
        long[] seen = new long[1];
        SseScanner scanner = new SseScanner((b, offset, length) -> seen[0] += length);
        int[] reads = {stream.length, event.length, 100, 37};
        for (int fed = 0, r = 0; fed < events; r++) {
            int size = reads[r % reads.length];
            for (int at = 0; at < stream.length; at += size) {
                scanner.feed(ByteBuffer.wrap(stream, at, Math.min(size, stream.length - at)));
            }
            fed += 16;
        }
        return sum + seen[0];
    }
}
