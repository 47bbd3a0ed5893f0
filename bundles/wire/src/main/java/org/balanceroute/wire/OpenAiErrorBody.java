package org.balanceroute.wire;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The OpenAI error body, {@code {"error": {"message", "type", "param", "code"}}}, the one shape the
 * proxy, its admin API and the simulated engine answer errors in (OpenAI and vLLM clients parse
 * it). A map any JSON writer serialises; {@code param} and {@code code} may be null.
 */
public final class OpenAiErrorBody {

    private OpenAiErrorBody() {
    }

    /**
     * @param param the offending request field, or null
     * @param code vLLM puts the HTTP status here; null where there is none
     */
    public static Map<String, Object> of(String message, String type, String param, Integer code) {
        Map<String, Object> error = new LinkedHashMap<>();
        error.put("message", message);
        error.put("type", type);
        error.put("param", param);
        error.put("code", code);
        return Map.of("error", error);
    }

    /** The {@code error.message} of such a body, or null when it has none that is text. */
    public static String message(JsonNode body) {
        JsonNode message = body == null ? null : body.path("error").path("message");
        return message != null && message.isTextual() ? message.asText() : null;
    }
}
