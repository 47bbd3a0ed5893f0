package org.balanceroute.enginesim.internal;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.SplittableRandom;
import org.balanceroute.wire.KvHandle;
import org.balanceroute.wire.PromptTokens;
import org.balanceroute.wire.VllmRequestSchema;

/**
 * The parts of an OpenAI {@code /v1/completions} or {@code /v1/chat/completions} body the
 * simulator acts on, validated as vLLM validates them: first every field's type
 * ({@link VllmRequestSchema}, pydantic's rules and words), then what the simulator needs.
 *
 * <p>Prompt length: a token-id array counts its ids; text and chat messages as
 * {@link PromptTokens} estimates them ({@code ceil(chars / 4)}, at least 1; no tokenizer, no chat
 * template), as the proxy does in co-located mode.
 */
record CompletionRequest(boolean chat, String model, int promptTokens, int maxTokens, int minTokens,
                         boolean ignoreEos, boolean stream, boolean includeUsage, boolean continuousUsage,
                         JsonNode kvTransferParams) {

    static CompletionRequest parse(JsonNode body, boolean chat, String servedModel, int defaultMaxTokens)
            throws ApiException {
        if (body == null || !body.isObject()) {
            throw ApiException.badRequest(null, "the request body must be a JSON object");
        }
        VllmRequestSchema.Violation wrongType = VllmRequestSchema.check(body, chat);
        if (wrongType != null) {
            throw ApiException.badRequest(wrongType.field(), wrongType.message());
        }
        String model = servedModel;
        if (body.hasNonNull("model")) {
            model = body.get("model").asText();
            if (!model.equals(servedModel)) {
                throw new ApiException(404, "NotFoundError", "model", "The model `" + model + "` does not exist.");
            }
        }
        int prompt = chat ? chatPromptTokens(body) : promptTokens(body);
        if (body.hasNonNull("n") && !Long.valueOf(1).equals(VllmRequestSchema.integer(body.get("n")))) {
            throw ApiException.badRequest("n", "the simulator serves n=1 only, got n=" + body.get("n"));
        }
        String capField = chat && body.hasNonNull("max_completion_tokens") ? "max_completion_tokens" : "max_tokens";
        int max = defaultMaxTokens;
        if (body.hasNonNull(capField)) {
            max = positiveInt(body, capField, 1);
        }
        int min = body.hasNonNull("min_tokens") ? positiveInt(body, "min_tokens", 0) : 0;
        if (min > max) {
            throw ApiException.badRequest("min_tokens", "min_tokens must be less than or equal to " + capField
                    + "=" + max + ", got " + min);
        }
        boolean ignoreEos = flag(body, "ignore_eos");
        boolean stream = flag(body, "stream");
        JsonNode so = body.get("stream_options");
        boolean includeUsage = false;
        boolean continuous = false;
        if (so != null && !so.isNull()) {
            if (!stream) {
                throw ApiException.badRequest("stream_options", "Stream options can only be defined when `stream=True`.");
            }
            includeUsage = flag(so, "include_usage");
            continuous = flag(so, "continuous_usage_stats");
        }
        continuous |= stream && body.path("continuous_usage_stats").asBoolean(false);
        JsonNode kv = body.get(KvHandle.FIELD);
        return new CompletionRequest(chat, model, prompt, max, min, ignoreEos, stream, includeUsage, continuous,
                kv == null || kv.isNull() ? null : kv);
    }

    /** Tokens this request generates: max_tokens with ignore_eos, else a draw seeded by its id. */
    int outputTokens(long seed, String requestId) {
        if (ignoreEos) {
            return maxTokens;
        }
        int lo = Math.max(1, minTokens);
        SplittableRandom random = new SplittableRandom(seed * 0x9E3779B97F4A7C15L ^ requestId.hashCode());
        return lo + random.nextInt(maxTokens - lo + 1);
    }

    boolean remoteDecode() {
        return KvHandle.asksRemoteDecode(kvTransferParams);
    }

    boolean remotePrefill() {
        return KvHandle.hasRemotePrefill(kvTransferParams);
    }

    /** The prompt's length; its type (text, ids, a batch) the schema checked. */
    private static int promptTokens(JsonNode body) throws ApiException {
        JsonNode p = body.get("prompt");
        if (p == null || p.isNull()) {
            throw ApiException.badRequest("prompt", "field 'prompt' is required");
        }
        if (p.isTextual()) {
            return PromptTokens.ofText(p.asText().length());
        }
        int count = p.isPojo() && ((com.fasterxml.jackson.databind.node.POJONode) p).getPojo()
                instanceof RequestBodies.TokenIds ids ? ids.count() : p.size();
        if (count == 0) {
            throw ApiException.badRequest("prompt", "prompt cannot be empty");
        }
        for (JsonNode t : p) {
            if (t.isArray() || t.isTextual()) {
                throw ApiException.badRequest("prompt", "batched prompts (a list of strings or of token lists)"
                        + " are not supported by the simulator: send one prompt per request");
            }
        }
        return count;
    }

    private static int chatPromptTokens(JsonNode body) throws ApiException {
        JsonNode messages = body.get("messages");
        if (messages == null || !messages.isArray() || messages.isEmpty()) {
            throw ApiException.badRequest("messages", "field 'messages' must be a non-empty list");
        }
        return PromptTokens.ofMessages(messages);
    }

    /** A field the schema passed as an integer, at least {@code min} (and an int). */
    private static int positiveInt(JsonNode body, String field, int min) throws ApiException {
        JsonNode v = body.get(field);
        Long value = VllmRequestSchema.integer(v);
        if (value == null || value < min || value > Integer.MAX_VALUE) {
            throw ApiException.badRequest(field, field + " must be an integer from " + min + " to " + Integer.MAX_VALUE
                    + ", got " + v);
        }
        return value.intValue();
    }

    /** A boolean field the schema passed: true only when given and true. */
    private static boolean flag(JsonNode object, String field) {
        JsonNode v = object.get(field);
        return v != null && !v.isNull() && Boolean.TRUE.equals(VllmRequestSchema.bool(v));
    }
}
