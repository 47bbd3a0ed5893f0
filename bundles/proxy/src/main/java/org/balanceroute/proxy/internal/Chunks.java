package org.balanceroute.proxy.internal;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;

/** Reading a parsed stream chunk (the whole-parse path: chunks the scan leaves to Jackson, continuations). */
final class Chunks {

    static final ObjectMapper MAPPER = new ObjectMapper();

    private Chunks() {
    }

    /** The generated text of a chunk's first choice ({@code text}, or {@code delta.content}); null if none. */
    static String generatedText(JsonNode chunk) {
        JsonNode choice = chunk.path("choices").path(0);
        JsonNode text = choice.get("text");
        if (text == null) {
            text = choice.path("delta").get("content");
        }
        return text != null && text.isTextual() ? text.textValue() : null;
    }

    static boolean recomputed(JsonNode chunk) {
        JsonNode stop = chunk.path("choices").path(0).get("stop_reason");
        return stop != null && CompletionFlow.STOP_RECOMPUTED.equals(stop.textValue());
    }

    /** A JSON string's raw contents, decoded. */
    static String unescape(String raw) {
        try {
            return MAPPER.readValue("\"" + raw + "\"", String.class);
        } catch (IOException cannotHappen) {
            return raw; // the scan checked the escapes
        }
    }
}
