package org.balanceroute.wire;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * The KV handle, {@code kv_transfer_params} (docs/vllm-contract.md, "Two-hop request flow"): the
 * prefill hop asks for a remote decode with it, the prefill engine answers with the handle of the
 * KV blocks it holds, and the decode hop presents that handle verbatim so its rank pulls those
 * blocks. The proxy treats an answered handle as opaque; the simulated engine issues and checks
 * one.
 */
public final class KvHandle {

    /** The field, at the top level of a request or a prefill's answer. */
    public static final String FIELD = "kv_transfer_params";

    private static final String DO_REMOTE_DECODE = "do_remote_decode";
    private static final String DO_REMOTE_PREFILL = "do_remote_prefill";
    private static final String REMOTE_ENGINE_ID = "remote_engine_id";
    private static final String REMOTE_BLOCK_IDS = "remote_block_ids";
    private static final String REMOTE_HOST = "remote_host";
    private static final String REMOTE_PORT = "remote_port";
    private static final String REMOTE_REQUEST_ID = "remote_request_id";

    private KvHandle() {
    }

    /**
     * What the prefill hop sends: {@code do_remote_decode: true, do_remote_prefill: false} and
     * null engine id, block ids, host and port (the engine fills them in its answer).
     */
    public static ObjectNode remoteDecodeRequest() {
        ObjectNode kv = JsonNodeFactory.instance.objectNode();
        kv.put(DO_REMOTE_DECODE, true);
        kv.put(DO_REMOTE_PREFILL, false);
        kv.putNull(REMOTE_ENGINE_ID);
        kv.putNull(REMOTE_BLOCK_IDS);
        kv.putNull(REMOTE_HOST);
        kv.putNull(REMOTE_PORT);
        return kv;
    }

    /**
     * What a prefill engine answers (the fields vLLM's and vllm-ascend's Mooncake connector
     * fill): {@code do_remote_prefill: true}, block ids 0..blocks-1 of {@code blockSize} tokens,
     * who holds them and under which request id.
     */
    public static ObjectNode issued(String engineId, String host, int port, String requestId, int blocks,
            int blockSize) {
        ObjectNode kv = JsonNodeFactory.instance.objectNode();
        kv.put(DO_REMOTE_PREFILL, true).put(DO_REMOTE_DECODE, false);
        ArrayNode ids = kv.putArray(REMOTE_BLOCK_IDS);
        for (int b = 0; b < blocks; b++) {
            ids.add(b);
        }
        kv.put(REMOTE_ENGINE_ID, engineId).put(REMOTE_HOST, host).put(REMOTE_PORT, port)
                .put(REMOTE_REQUEST_ID, requestId).put("tp_size", 1).put("num_prompt_blocks", blocks)
                .put("remote_block_size", blockSize).put("last_token_id", 0);
        return kv;
    }

    /** The handle in a body (a prefill's answer, a decode request), or null when it has none that is an object. */
    public static ObjectNode in(JsonNode body) {
        return body != null && body.get(FIELD) instanceof ObjectNode kv ? kv : null;
    }

    /** Whether a handle asks for a remote decode (the prefill hop). */
    public static boolean asksRemoteDecode(JsonNode kv) {
        return kv != null && kv.path(DO_REMOTE_DECODE).asBoolean(false);
    }

    /** Whether a handle points at KV a prefill engine holds (the decode hop). */
    public static boolean hasRemotePrefill(JsonNode kv) {
        return kv != null && kv.path(DO_REMOTE_PREFILL).asBoolean(false);
    }

    /** The request id the prefill engine holds the blocks under, or null when it is not text. */
    public static String remoteRequestId(JsonNode kv) {
        return kv.path(REMOTE_REQUEST_ID).isTextual() ? kv.get(REMOTE_REQUEST_ID).asText() : null;
    }

    /** The prefill engine's id, or null. */
    public static String remoteEngineId(JsonNode kv) {
        return kv.path(REMOTE_ENGINE_ID).asText(null);
    }

    /** The prefill engine's host, or null. */
    public static String remoteHost(JsonNode kv) {
        return kv.path(REMOTE_HOST).asText(null);
    }

    /** The prefill engine's port, or null when it is not an int. */
    public static Integer remotePort(JsonNode kv) {
        return kv.path(REMOTE_PORT).canConvertToInt() ? kv.get(REMOTE_PORT).asInt() : null;
    }
}
