package org.balanceroute.proxy.internal;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.ObjectReader;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.databind.node.POJONode;
import java.io.IOException;
import org.balanceroute.connector.vllm.TokenIdPrompt;
import org.balanceroute.wire.TokenIdBody;

/**
 * Checks a client body before anything goes upstream: size (413), JSON object, {@code model},
 * {@code prompt} (completions) or {@code messages} (chat), {@code max_tokens} /
 * {@code max_completion_tokens} positive integers, {@code stream} a boolean. A failure names the
 * field ({@code param}) in a 400 OpenAI error body.
 */
final class RequestValidator {

    private static final ObjectMapper MAPPER = new ObjectMapper();
    /** Reads a whole body; anything after the value is an error. */
    private static final ObjectReader STRICT = MAPPER.readerFor(JsonNode.class)
            .with(DeserializationFeature.FAIL_ON_TRAILING_TOKENS);

    private RequestValidator() {
    }

    static ObjectNode validate(Endpoint endpoint, byte[] raw, int maxBodyBytes) {
        if (raw.length > maxBodyBytes) {
            throw new OpenAiError(413, OpenAiError.INVALID_REQUEST,
                    "the request body is " + raw.length + " bytes, more than the " + maxBodyBytes + " accepted", null);
        }
        JsonNode root;
        try {
            root = read(endpoint, raw);
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
            JsonNode prompt = body.get("prompt");
            boolean ok = prompt != null && (prompt.isTextual() || (prompt.isArray() && !prompt.isEmpty())
                    || (prompt instanceof POJONode pojo && pojo.getPojo() instanceof TokenIdPrompt));
            if (!ok) {
                throw OpenAiError.invalid("'prompt' is required (a string or an array of token ids)", "prompt");
            }
        } else {
            JsonNode messages = body.get("messages");
            if (messages == null || !messages.isArray() || messages.isEmpty()) {
                throw OpenAiError.invalid("'messages' is required (a non-empty array)", "messages");
            }
        }
        positive(body, "max_tokens");
        positive(body, "max_completion_tokens");
        JsonNode stream = body.get("stream");
        if (stream != null && !stream.isNull() && !stream.isBoolean()) {
            throw OpenAiError.invalid("'stream' must be a boolean", "stream");
        }
        return body;
    }

    /**
     * The body as a tree, except a completions {@code prompt} that is a flat, non-empty list of
     * token ids: that one is kept verbatim as a {@link TokenIdPrompt} (counted and hashed while
     * it is read), so neither hop has to write 100k ids out again. Any other shape is read as a
     * tree, as is the whole body when the prompt turns out not to be such a list.
     */
    static JsonNode read(Endpoint endpoint, byte[] raw) throws IOException {
        if (endpoint != Endpoint.COMPLETIONS) {
            return MAPPER.readTree(raw);
        }
        PromptKeys.Ids key = new PromptKeys.Ids();
        TokenIdBody ids = TokenIdBody.read(STRICT, raw, key::add);
        if (ids == null || ids.count() == 0) {
            return STRICT.readValue(raw); // not a non-empty id list: the tree reader has the last word
        }
        ids.rest().set("prompt", new POJONode(new TokenIdPrompt(ids.listJson(), ids.count(), key.key(ids.count()))));
        return ids.rest();
    }

    private static void positive(ObjectNode body, String field) {
        JsonNode v = body.get(field);
        if (v != null && !v.isNull() && !(v.isIntegralNumber() && v.canConvertToInt() && v.intValue() >= 1)) {
            throw OpenAiError.invalid("'" + field + "' must be an integer >= 1", field);
        }
    }
}
