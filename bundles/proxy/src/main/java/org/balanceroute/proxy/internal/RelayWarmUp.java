package org.balanceroute.proxy.internal;

import com.fasterxml.jackson.databind.node.ObjectNode;
import java.nio.charset.StandardCharsets;
import org.balanceroute.wire.CompletionBodies;
import org.balanceroute.wire.PromptKey;
import org.balanceroute.wire.TokenIdPrompt;

/**
 * Runs the relay's per-event path through its real classes on a synthetic stream, once, off the
 * start-up thread, so that the first requests a fresh runtime serves do not pay for loading and
 * interpreting them: the request validation and prompt key, {@link ChunkScan} on completions and
 * chat chunks (with usage on every chunk and only at the end), {@link TokenCounter},
 * {@link GeneratedText}, and {@link ClientStream} framing and writing into an output that
 * discards. Nothing leaves the process and no router or connector is called. What it cannot
 * reach (Jetty, Jersey, the router's dispatch loop) warms with the first real requests.
 */
final class RelayWarmUp {

    /** Enough events for the scan and the writer to be compiled (C2 compiles a method after about 10k calls). */
    static final int EVENTS = 20_000;

    private static final byte[][] CHUNKS = {
        bytes("{\"id\":\"cmpl-warm\",\"object\":\"text_completion\",\"created\":1,\"model\":\"m\",\"choices\":[{\"index\":0,"
                + "\"text\":\" warm\",\"logprobs\":null,\"finish_reason\":null,\"stop_reason\":null}],\"usage\":{\"prompt_tokens\":"
                + "128,\"total_tokens\":129,\"completion_tokens\":1}}"),
        bytes("{\"id\":\"chatcmpl-warm\",\"object\":\"chat.completion.chunk\",\"created\":1,\"model\":\"m\",\"choices\":[{"
                + "\"index\":0,\"delta\":{\"content\":\" up\"},\"logprobs\":null,\"finish_reason\":null,\"stop_reason\":null}]}"),
        bytes("{\"id\":\"chatcmpl-warm\",\"object\":\"chat.completion.chunk\",\"created\":1,\"model\":\"m\",\"choices\":[{"
                + "\"index\":0,\"delta\":{\"role\":\"assistant\",\"content\":\"\"},\"logprobs\":null,\"finish_reason\":null}]}"),
        bytes("{\"id\":\"cmpl-warm\",\"object\":\"text_completion\",\"created\":1,\"model\":\"m\",\"choices\":[],\"usage\":"
                + "{\"prompt_tokens\":128,\"total_tokens\":144,\"completion_tokens\":16}}"),
    };

    private RelayWarmUp() {
    }

    /** Runs {@code events} synthetic events; returns the bytes framed (so that nothing is optimised away). */
    static long run(int events) {
        byte[] body = bytes(CompletionBodies.streamed("m", TokenIdPrompt.cycling(8), 16, true).toString());
        long sum = 0;
        for (int i = 0; i < 200; i++) {
            ObjectNode b = RequestValidator.validate(Endpoint.COMPLETIONS, body, 1 << 20);
            sum += PromptKey.of(b.path(Endpoint.COMPLETIONS.promptField));
        }
        DiscardOutput out = new DiscardOutput();
        ClientStream stream = new ClientStream(Integer.MAX_VALUE, () -> { });
        stream.start(out);
        ChunkScan scan = new ChunkScan();
        TokenCounter counter = new TokenCounter();
        GeneratedText text = new GeneratedText();
        for (int i = 0; i < events; i++) {
            byte[] c = CHUNKS[i % CHUNKS.length];
            if (scan.scan(c, 0, c.length) && scan.object && !scan.error) {
                sum += counter.onScan(scan);
                if (scan.textFrom >= 0 && i % 64 == 0) {
                    text.appendRaw(c, scan.textFrom, scan.textTo);
                }
            }
            stream.event(c, 0, c.length);
            if (i % 3 == 2) {
                stream.flush();
            }
            if (i % 4096 == 4095) {
                counter = new TokenCounter();
                text = new GeneratedText();
            }
        }
        stream.event("[DONE]");
        stream.close();
        return sum + out.bytes;
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
