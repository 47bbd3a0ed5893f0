package org.balanceroute.connector.vllm.internal;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;

/**
 * Runs the connector's per-request and per-event code through its real classes once, off the
 * start-up thread, so that a fresh runtime's first requests do not pay for loading and
 * interpreting it: the two hops' bodies as {@link Payloads} makes and Jackson writes them, a
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
        ObjectNode body = (ObjectNode) MAPPER.readTree("{\"model\":\"m\",\"prompt\":[1,2,3,4,5,6,7,8],\"max_tokens\":16,"
                + "\"stream\":true,\"stream_options\":{\"include_usage\":true}}");
        byte[] answer = ("{\"id\":\"cmpl-w\",\"choices\":[{\"text\":\"a\"}],\"usage\":{\"prompt_tokens\":8},"
                + "\"kv_transfer_params\":{\"do_remote_prefill\":true,\"remote_engine_id\":\"e_dp0\"}}")
                .getBytes(StandardCharsets.UTF_8);
        for (int i = 0; i < 200; i++) {
            sum += MAPPER.writeValueAsBytes(Payloads.prefillBody(body)).length;
            ObjectNode kv = PrefillClient.parse(answer, 0, 1).kvTransferParams();
            sum += MAPPER.writeValueAsBytes(Payloads.decodeBody(body, kv)).length;
        }
        byte[] event = ("data: {\"id\":\"cmpl-w\",\"object\":\"text_completion\",\"choices\":[{\"index\":0,\"text\":\" w\","
                + "\"finish_reason\":null}],\"usage\":{\"prompt_tokens\":8,\"total_tokens\":9,\"completion_tokens\":1}}\n\n")
                .getBytes(StandardCharsets.UTF_8);
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
