package org.balanceroute.enginesim.internal;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.databind.node.POJONode;
import java.io.IOException;

/**
 * Reads a request body into a JSON tree, except a top-level {@code "prompt"} that is a flat list
 * of token ids: the simulator needs only how many there are, and a 100k-id prompt read into
 * 100k nodes (twice per request: prefill and decode hop) would cost the cluster more CPU than
 * everything else it does. Such a prompt becomes a {@link TokenIds} value; anything else (text,
 * batched lists, a list with a non-integer) is read as a tree, as before.
 */
final class RequestBodies {

    /** A token-id prompt, counted: {@code count} ids (0 for {@code []}). */
    record TokenIds(int count) {
    }

    private RequestBodies() {
    }

    /**
     * @return the body's tree, or null when the body holds no JSON value at all
     * @throws IOException when it is not valid JSON
     */
    static JsonNode read(ObjectMapper mapper, byte[] bytes) throws IOException {
        try (JsonParser p = mapper.getFactory().createParser(bytes)) {
            JsonToken first = p.nextToken();
            if (first == null) {
                return null;
            }
            if (first != JsonToken.START_OBJECT) {
                return mapper.readTree(bytes);
            }
            ObjectNode body = JsonNodeFactory.instance.objectNode();
            for (JsonToken t = p.nextToken(); t == JsonToken.FIELD_NAME; t = p.nextToken()) {
                String name = p.currentName();
                JsonToken value = p.nextToken();
                if (name.equals("prompt") && value == JsonToken.START_ARRAY) {
                    int count = countIds(p);
                    if (count < 0) {
                        return mapper.readTree(bytes); // not a flat id list: the general path
                    }
                    body.set(name, new POJONode(new TokenIds(count)));
                } else {
                    body.set(name, mapper.readTree(p));
                }
            }
            if (p.currentToken() != JsonToken.END_OBJECT || p.nextToken() != null) {
                return mapper.readTree(bytes); // let the tree reader say what is wrong
            }
            return body;
        }
    }

    /** Counts the integers up to the array's end; -1 at the first element that is not one. */
    private static int countIds(JsonParser p) throws IOException {
        int n = 0;
        for (JsonToken t = p.nextToken(); t != JsonToken.END_ARRAY; t = p.nextToken()) {
            if (t != JsonToken.VALUE_NUMBER_INT) {
                return -1;
            }
            n++;
        }
        return n;
    }
}
