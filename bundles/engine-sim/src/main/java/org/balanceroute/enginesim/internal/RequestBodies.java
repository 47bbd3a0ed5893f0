package org.balanceroute.enginesim.internal;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.databind.node.POJONode;
import java.io.IOException;
import org.balanceroute.wire.TokenIdList;

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
                return tree(mapper, bytes);
            }
            for (JsonToken t = p.nextToken(); t == JsonToken.FIELD_NAME; t = p.nextToken()) {
                String name = p.currentName();
                JsonToken value = p.nextToken();
                if (name.equals("prompt") && value == JsonToken.START_ARRAY) {
                    int open = (int) p.currentTokenLocation().getByteOffset();
                    long scanned = TokenIdList.scan(bytes, open, null);
                    if (scanned == TokenIdList.NOT_IDS) {
                        return tree(mapper, bytes); // not a flat id list: the general path
                    }
                    JsonNode body = tree(mapper, TokenIdList.withoutList(bytes, open, scanned));
                    if (body instanceof ObjectNode o) {
                        o.set(name, new POJONode(new TokenIds(TokenIdList.count(scanned))));
                    }
                    return body;
                }
                p.skipChildren();
            }
            return tree(mapper, bytes);
        }
    }

    /** The whole body as a tree; anything after the value is an error. */
    private static JsonNode tree(ObjectMapper mapper, byte[] bytes) throws IOException {
        return mapper.readerFor(JsonNode.class).with(DeserializationFeature.FAIL_ON_TRAILING_TOKENS).readValue(bytes);
    }
}
