package org.balanceroute.enginesim.internal;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.ObjectReader;
import com.fasterxml.jackson.databind.node.POJONode;
import java.io.IOException;
import org.balanceroute.wire.TokenIdBody;

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
        ObjectReader strict = mapper.readerFor(JsonNode.class).with(DeserializationFeature.FAIL_ON_TRAILING_TOKENS);
        if (blank(bytes)) {
            return null;
        }
        TokenIdBody ids = TokenIdBody.read(strict, bytes, null);
        if (ids == null) {
            return strict.readValue(bytes); // not a flat id list: the general path
        }
        ids.rest().set("prompt", new POJONode(new TokenIds(ids.count())));
        return ids.rest();
    }

    private static boolean blank(byte[] bytes) {
        for (byte b : bytes) {
            if (b != ' ' && b != '\n' && b != '\r' && b != '\t') {
                return false;
            }
        }
        return true;
    }
}
