package org.balanceroute.proxy.internal;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.ObjectReader;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.databind.node.POJONode;
import java.io.IOException;
import org.balanceroute.wire.PromptKey;
import org.balanceroute.wire.TokenIdBody;
import org.balanceroute.wire.TokenIdPrompt;
import org.balanceroute.wire.VllmRequestSchema;

/**
 * Checks a client body before anything goes upstream: size (413), JSON object, {@code model},
 * {@code prompt} (completions: a non-empty string, or one flat list of token ids in
 * [0, 2^31-1]; batched prompts are refused) or {@code messages} (chat: objects with a string
 * {@code role}), {@code max_tokens} / {@code max_completion_tokens} integers in
 * [1, maxTokensLimit], {@code n} 1, {@code stream} a boolean, {@code stream_options} an object
 * of booleans and only with {@code stream: true} (vLLM's own rule), then every other field vLLM
 * declares by the type vLLM gives it ({@link VllmRequestSchema}). A failure names the field
 * ({@code param}) in a 400 OpenAI error body. Fields it does not know go on to the engine, which
 * ignores what it does not know (vLLM does).
 */
final class RequestValidator {

    private static final ObjectMapper MAPPER = new ObjectMapper();
    /** Reads a whole body; anything after the value is an error. */
    private static final ObjectReader STRICT = MAPPER.readerFor(JsonNode.class)
            .with(DeserializationFeature.FAIL_ON_TRAILING_TOKENS);

    private RequestValidator() {
    }

    /** {@link #validate(Endpoint, byte[], int, int)} with the default {@code max_tokens} limit. */
    static ObjectNode validate(Endpoint endpoint, byte[] raw, int maxBodyBytes) {
        return validate(endpoint, raw, maxBodyBytes, ProxyConfig.DEFAULT_MAX_TOKENS_LIMIT);
    }

    /**
     * The body, checked; an {@link OpenAiError} (400 naming the field, or 413) when it is not one
     * the proxy sends on.
     *
     * @param maxTokensLimit the largest {@code max_tokens} / {@code max_completion_tokens} accepted
     */
    static ObjectNode validate(Endpoint endpoint, byte[] raw, int maxBodyBytes, int maxTokensLimit) {
        if (raw.length > maxBodyBytes) {
            throw new OpenAiError(413, OpenAiError.INVALID_REQUEST,
                    "the request body is " + raw.length + " bytes, more than the " + maxBodyBytes + " accepted", null);
        }
        JsonNode root;
        try {
            root = read(endpoint, raw, true);
        } catch (OpenAiError e) {
            throw e;
        } catch (Exception e) {
            throw OpenAiError.invalid("the request body is not valid JSON", null);
        }
        if (!(root instanceof ObjectNode body)) {
            throw OpenAiError.invalid("the request body must be a JSON object", null);
        }
        JsonNode model = body.get("model");
        if (model == null || !model.isTextual() || model.asText().isBlank()) {
            throw OpenAiError.invalid("'model' is required (a string)", "model");
        }
        if (endpoint == Endpoint.COMPLETIONS) {
            prompt(body.get("prompt"));
        } else {
            messages(body.get("messages"));
        }
        positive(body, "max_tokens", maxTokensLimit);
        positive(body, "max_completion_tokens", maxTokensLimit);
        JsonNode n = body.get("n");
        if (n != null && !n.isNull() && !(n.isIntegralNumber() && n.canConvertToInt() && n.intValue() == 1)) {
            throw OpenAiError.invalid("'n' must be 1: the router places one decode sequence per request (for n"
                    + " answers send n requests)", "n");
        }
        JsonNode stream = body.get("stream");
        if (stream != null && !stream.isNull() && !stream.isBoolean()) {
            throw OpenAiError.invalid("'stream' must be a boolean", "stream");
        }
        streamOptions(body.get("stream_options"), stream != null && stream.asBoolean(false));
        // the other fields' types as vLLM checks them: refused here, before a prefill is spent on them
        VllmRequestSchema.Violation wrongType = VllmRequestSchema.check(body, endpoint == Endpoint.CHAT_COMPLETIONS);
        if (wrongType != null) {
            throw OpenAiError.invalid(wrongType.message(), wrongType.field());
        }
        return body;
    }

    /**
     * The request's {@code Content-Type}: none (taken as JSON, as simple clients send it),
     * {@code application/json} or a {@code +json} type, with any parameters; anything else is 415
     * (vLLM refuses those too).
     */
    static void mediaType(String contentType) {
        if (contentType == null || contentType.isBlank()) {
            return;
        }
        String type = contentType.split(";", 2)[0].trim().toLowerCase(java.util.Locale.ROOT);
        if (!type.equals("application/json") && !(type.startsWith("application/") && type.endsWith("+json"))) {
            throw new OpenAiError(415, OpenAiError.INVALID_REQUEST, "the request body must be JSON: Content-Type "
                    + "application/json, got '" + (type.length() > 100 ? type.substring(0, 100) + "..." : type) + "'",
                    null);
        }
    }

    private static void prompt(JsonNode prompt) {
        if (prompt instanceof POJONode pojo && pojo.getPojo() instanceof TokenIdPrompt) {
            return; // a flat list of ids, range-checked while it was read
        }
        if (prompt != null && prompt.isTextual()) {
            if (prompt.asText().isEmpty()) {
                throw OpenAiError.invalid("'prompt' must not be empty", "prompt");
            }
            return;
        }
        if (prompt == null || !prompt.isArray() || prompt.isEmpty()) {
            throw OpenAiError.invalid("'prompt' is required (a string or an array of token ids)", "prompt");
        }
        for (JsonNode id : prompt) {
            if (id.isArray() || id.isTextual()) {
                throw OpenAiError.invalid("batched prompts (a list of strings or of token-id lists) are not supported:"
                        + " send one prompt per request", "prompt");
            }
            if (!validId(id)) {
                throw OpenAiError.invalid(TOKEN_ID_RANGE, "prompt");
            }
        }
    }

    private static final String TOKEN_ID_RANGE = "'prompt' token ids must be integers in [0, " + Integer.MAX_VALUE + "]";

    private static boolean validId(JsonNode id) {
        return id.isIntegralNumber() && id.canConvertToInt() && id.intValue() >= 0;
    }

    private static void messages(JsonNode messages) {
        if (messages == null || !messages.isArray() || messages.isEmpty()) {
            throw OpenAiError.invalid("'messages' is required (a non-empty array)", "messages");
        }
        int i = 0;
        for (JsonNode m : messages) {
            if (!m.isObject() || !m.path("role").isTextual()) {
                throw OpenAiError.invalid("'messages[" + i + "]' must be an object with a string 'role'", "messages");
            }
            i++;
        }
    }

    private static void streamOptions(JsonNode options, boolean streaming) {
        if (options == null || options.isNull()) {
            return;
        }
        if (!options.isObject()) {
            throw OpenAiError.invalid("'stream_options' must be an object", "stream_options");
        }
        if (!streaming) {
            throw OpenAiError.invalid("'stream_options' can only be given with 'stream': true", "stream_options");
        }
        for (String flag : new String[] {"include_usage", "continuous_usage_stats"}) {
            JsonNode v = options.get(flag);
            if (v != null && !v.isNull() && !v.isBoolean()) {
                throw OpenAiError.invalid("'stream_options." + flag + "' must be a boolean", "stream_options");
            }
        }
    }

    /**
     * The body as a tree, except a completions {@code prompt} that is a flat, non-empty list of
     * token ids: that one is kept verbatim as a {@link TokenIdPrompt} (counted and hashed while
     * it is read), so neither hop has to write 100k ids out again. Any other shape is read as a
     * tree, as is the whole body when the prompt turns out not to be such a list.
     */
    static JsonNode read(Endpoint endpoint, byte[] raw) throws IOException {
        return read(endpoint, raw, false);
    }

    /** {@link #read(Endpoint, byte[])}, with {@code checkIds}: an id outside [0, 2^31-1] is a 400. */
    private static JsonNode read(Endpoint endpoint, byte[] raw, boolean checkIds) throws IOException {
        if (endpoint != Endpoint.COMPLETIONS) {
            return MAPPER.readTree(raw);
        }
        PromptKey.Ids key = new PromptKey.Ids();
        boolean[] outOfRange = new boolean[1];
        TokenIdBody ids = TokenIdBody.read(STRICT, raw, id -> {
            if (id < 0 || id > Integer.MAX_VALUE) {
                outOfRange[0] = true;
            }
            key.add(id);
        });
        if (checkIds && ids != null && outOfRange[0]) {
            throw OpenAiError.invalid(TOKEN_ID_RANGE, "prompt");
        }
        if (ids == null || ids.count() == 0) {
            return STRICT.readValue(raw); // not a non-empty id list: the tree reader has the last word
        }
        ids.rest().set("prompt", new POJONode(new TokenIdPrompt(ids.listJson(), ids.count(), key.key(ids.count()))));
        return ids.rest();
    }

    private static void positive(ObjectNode body, String field, int limit) {
        JsonNode v = body.get(field);
        if (v != null && !v.isNull() && !(v.isIntegralNumber() && v.canConvertToInt() && v.intValue() >= 1
                && v.intValue() <= limit)) {
            throw OpenAiError.invalid("'" + field + "' must be an integer in [1, " + limit + "] (the proxy's"
                    + " maxTokensLimit)", field);
        }
    }
}
