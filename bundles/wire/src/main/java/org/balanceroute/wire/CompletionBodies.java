package org.balanceroute.wire;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * The request bodies: the two hops of the vllm-ascend sequential contract (docs/vllm-contract.md, "Two-hop
 * request flow"; vllm-ascend load_balance_proxy_server_example.py), built from the client's body.
 * Both make a shallow copy of it: its top-level fields are replaced, the nodes below them shared
 * (a 100k-id prompt is not copied per hop); the caller's object is never modified.
 */
public final class CompletionBodies {

    private CompletionBodies() {
    }

    /**
     * Prefill hop: {@code kv_transfer_params} asking for a remote decode, {@code stream: false},
     * {@code max_tokens: 1}, {@code min_tokens: 1}, {@code max_completion_tokens: 1} when the body
     * has it, {@code stream_options} removed; everything else as the client sent it.
     */
    public static ObjectNode prefillHop(ObjectNode clientBody) {
        ObjectNode body = JsonNodeFactory.instance.objectNode().setAll(clientBody);
        body.set(KvHandle.FIELD, KvHandle.remoteDecodeRequest());
        body.put("stream", false);
        body.put("max_tokens", 1);
        body.put("min_tokens", 1);
        if (body.has("max_completion_tokens")) {
            body.put("max_completion_tokens", 1);
        }
        body.remove("stream_options");
        return body;
    }

    /**
     * Decode hop: the client body as sent (its {@code stream}, {@code stream_options},
     * {@code max_tokens} kept) plus the prefill's {@code kv_transfer_params}, verbatim; without a
     * handle ({@code null}: co-located mode, or a prefill that returned none) any client
     * {@code kv_transfer_params} is removed, so a client cannot steer the KV transfer.
     */
    public static ObjectNode decodeHop(ObjectNode clientBody, ObjectNode kvTransferParams) {
        ObjectNode body = JsonNodeFactory.instance.objectNode().setAll(clientBody);
        if (kvTransferParams == null) {
            body.remove(KvHandle.FIELD);
        } else {
            body.set(KvHandle.FIELD, kvTransferParams.deepCopy());
        }
        return body;
    }

    /**
     * The client body the replayer and the benchmarks send: a streamed completion of
     * {@code prompt}, {@code max_tokens} tokens with {@code ignore_eos} (so exactly that many),
     * usage in a last chunk, and on every chunk when {@code continuousUsage}.
     *
     * @param model the {@code model} field; null to send none
     */
    public static ObjectNode streamed(String model, TokenIdPrompt prompt, int maxTokens,
            boolean continuousUsage) {
        ObjectNode body = JsonNodeFactory.instance.objectNode();
        if (model != null) {
            body.put("model", model);
        }
        body.putPOJO("prompt", prompt);
        body.put("max_tokens", maxTokens).put("ignore_eos", true).put("stream", true);
        ObjectNode options = body.putObject("stream_options").put("include_usage", true);
        if (continuousUsage) {
            options.put("continuous_usage_stats", true);
        }
        return body;
    }
}
