package org.balanceroute.connector.vllm.internal;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.databind.node.POJONode;
import org.balanceroute.connector.vllm.TokenIdPrompt;

/**
 * The two request bodies of the vllm-ascend sequential contract (docs/vllm-contract.md, "The
 * prefill hop" and "The decode hop"; vllm-ascend load_balance_proxy_server_example.py). Both
 * make a shallow copy of the client body: its top-level fields are replaced, the nodes below
 * them shared (a 100k-id prompt is not copied per hop); the caller's object is never modified.
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
     * handle ({@code null}: co-located mode, or a prefill that returned none) any client
     * {@code kv_transfer_params} is removed, so a client cannot steer the KV transfer.
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

    /**
     * s_i without a prefill hop (co-located mode), as the router needs it before the engine has
     * counted: a token-id prompt counts its ids; text counts {@code ceil(characters / 4)}; chat
     * the same over the concatenated contents of every message (string contents and the
     * {@code text} of content parts); a list of prompts adds up its entries; at least 1. No
     * tokenizer runs in the proxy, so this is an estimate (the simulated engine counts the same
     * way; a real tokenizer differs by a few tens of percent on prose).
     */
    public static int estimatedPromptTokens(ObjectNode clientBody) {
        JsonNode messages = clientBody.get("messages");
        if (messages != null && messages.isArray()) {
            long chars = 0;
            for (JsonNode m : messages) {
                chars += textLength(m.get("content"));
            }
            return atLeastOne(ceilQuarter(chars));
        }
        return atLeastOne(promptTokens(clientBody.get("prompt")));
    }

    private static long promptTokens(JsonNode prompt) {
        if (prompt == null) {
            return 0;
        }
        if (prompt.isTextual()) {
            return ceilQuarter(prompt.asText().length());
        }
        if (prompt instanceof POJONode pojo && pojo.getPojo() instanceof TokenIdPrompt ids) {
            return ids.count();
        }
        if (prompt.isIntegralNumber()) {
            return 1;
        }
        long tokens = 0;
        if (prompt.isArray()) {
            for (JsonNode p : prompt) {
                tokens += promptTokens(p); // token ids count 1 each; a list of prompts adds up
            }
        }
        return tokens;
    }

    private static long textLength(JsonNode content) {
        if (content == null) {
            return 0;
        }
        if (content.isTextual()) {
            return content.asText().length();
        }
        long n = 0;
        if (content.isArray()) {
            for (JsonNode part : content) {
                JsonNode text = part.get("text");
                n += text != null && text.isTextual() ? text.asText().length() : 0;
            }
        }
        return n;
    }

    private static long ceilQuarter(long chars) {
        return (chars + 3) / 4;
    }

    private static int atLeastOne(long tokens) {
        return (int) Math.max(1, Math.min(Integer.MAX_VALUE, tokens));
    }
}
