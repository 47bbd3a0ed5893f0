package org.balanceroute.proxy.internal;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;

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
            root = MAPPER.readTree(raw);
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
            boolean ok = prompt != null && (prompt.isTextual() || (prompt.isArray() && !prompt.isEmpty()));
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

    private static void positive(ObjectNode body, String field) {
        JsonNode v = body.get(field);
        if (v != null && !v.isNull() && !(v.isIntegralNumber() && v.canConvertToInt() && v.intValue() >= 1)) {
            throw OpenAiError.invalid("'" + field + "' must be an integer >= 1", field);
        }
    }
}
