package org.balanceroute.connector.vllm.internal;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * The two request bodies of the vllm-ascend sequential contract (CONTRACT-vllm.md, "Two-hop
 * request flow"; vllm-ascend load_balance_proxy_server_example.py). Both copy the client body:
 * the caller's object is never modified.
 */
public final class Payloads {

    private Payloads() {
    }

    /**
     * Prefill hop: {@code kv_transfer_params} asking for a remote decode, {@code stream: false},
     * {@code max_tokens: 1}, {@code min_tokens: 1}, {@code max_completion_tokens: 1} when the body
     * has it, {@code stream_options} removed; everything else as the client sent it.
     */
    public static ObjectNode prefillBody(ObjectNode clientBody) {
        ObjectNode body = JsonNodeFactory.instance.objectNode().setAll(clientBody);
        ObjectNode kv = JsonNodeFactory.instance.objectNode();
        kv.put("do_remote_decode", true);
        kv.put("do_remote_prefill", false);
        kv.putNull("remote_engine_id");
        kv.putNull("remote_block_ids");
        kv.putNull("remote_host");
        kv.putNull("remote_port");
        body.set("kv_transfer_params", kv);
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
     * handle ({@code null}) any client {@code kv_transfer_params} is removed.
     */
    public static ObjectNode decodeBody(ObjectNode clientBody, ObjectNode kvTransferParams) {
        ObjectNode body = JsonNodeFactory.instance.objectNode().setAll(clientBody);
        if (kvTransferParams == null) {
            body.remove("kv_transfer_params");
        } else {
            body.set("kv_transfer_params", kvTransferParams.deepCopy());
        }
        return body;
    }
}
