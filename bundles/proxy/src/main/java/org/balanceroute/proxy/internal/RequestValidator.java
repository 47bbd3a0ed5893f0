package org.balanceroute.proxy.internal;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.databind.node.POJONode;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import org.balanceroute.connector.vllm.TokenIdPrompt;

/**
 * Checks a client body before anything goes upstream: size (413), JSON object, {@code model},
 * {@code prompt} (completions) or {@code messages} (chat), {@code max_tokens} /
 * {@code max_completion_tokens} positive integers, {@code stream} a boolean. A failure names the
 * field ({@code param}) in a 400 OpenAI error body.
 */
final class RequestValidator {

    private static final ObjectMapper MAPPER = new ObjectMapper();

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
        try (JsonParser p = MAPPER.getFactory().createParser(raw)) {
            if (p.nextToken() != JsonToken.START_OBJECT) {
                return MAPPER.readTree(raw);
            }
            ObjectNode body = JsonNodeFactory.instance.objectNode();
            for (JsonToken t = p.nextToken(); t == JsonToken.FIELD_NAME; t = p.nextToken()) {
                String name = p.currentName();
                if (p.nextToken() == JsonToken.START_ARRAY && name.equals("prompt")) {
                    TokenIdPrompt ids = tokenIds(p, raw);
                    if (ids == null) {
                        return MAPPER.readTree(raw);
                    }
                    body.set(name, new POJONode(ids));
                } else {
                    body.set(name, MAPPER.readTree(p));
                }
            }
            if (p.currentToken() != JsonToken.END_OBJECT || p.nextToken() != null) {
                return MAPPER.readTree(raw); // let the tree reader decide what is wrong
            }
            return body;
        }
    }

    /** The flat id list the parser is at the start of, or null if it is empty or holds anything else. */
    private static TokenIdPrompt tokenIds(JsonParser p, byte[] raw) throws IOException {
        int start = (int) p.currentTokenLocation().getByteOffset();
        PromptKeys.Ids key = new PromptKeys.Ids();
        int count = 0;
        for (JsonToken t = p.nextToken(); t != JsonToken.END_ARRAY; t = p.nextToken()) {
            if (t != JsonToken.VALUE_NUMBER_INT || p.getNumberType() == JsonParser.NumberType.BIG_INTEGER) {
                return null;
            }
            key.add(p.getLongValue());
            count++;
        }
        if (count == 0 || start < 0) {
            return null;
        }
        int end = (int) p.currentTokenLocation().getByteOffset() + 1;
        // the list is digits, signs, commas and white space: ASCII, so a byte is a char
        return new TokenIdPrompt(new String(raw, start, end - start, StandardCharsets.ISO_8859_1), count, key.key(count));
    }

    private static void positive(ObjectNode body, String field) {
        JsonNode v = body.get(field);
        if (v != null && !v.isNull() && !(v.isIntegralNumber() && v.canConvertToInt() && v.intValue() >= 1)) {
            throw OpenAiError.invalid("'" + field + "' must be an integer >= 1", field);
        }
    }
}
