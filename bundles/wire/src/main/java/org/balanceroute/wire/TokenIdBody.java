package org.balanceroute.wire;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectReader;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.function.LongConsumer;

/**
 * A request body whose top-level {@code "prompt"} is a flat list of token ids, read in two parts:
 * the list by {@link TokenIdList#scan} (no JSON token per id), everything else as a tree with
 * {@code "prompt": []} in the list's place. The proxy and the simulated engine both read bodies
 * this way; what they keep of the list differs (its text and key, or its count).
 */
public final class TokenIdBody {

    private final ObjectNode rest;
    private final byte[] body;
    private final int open;
    private final long scanned;

    private TokenIdBody(ObjectNode rest, byte[] body, int open, long scanned) {
        this.rest = rest;
        this.body = body;
        this.open = open;
        this.scanned = scanned;
    }

    /** The body without the list ({@code "prompt": []}). */
    public ObjectNode rest() {
        return rest;
    }

    /** The ids in the list. */
    public int count() {
        return TokenIdList.count(scanned);
    }

    /** The list as it was sent: digits, signs, commas and white space, so a byte is a char. */
    public String listJson() {
        return new String(body, open, TokenIdList.close(scanned) + 1 - open, StandardCharsets.ISO_8859_1);
    }

    /**
     * @param strict reads a whole body as a tree, failing on anything after it
     * @param ids gets every id in order; null when only the count is wanted
     * @return the two parts, or null when the body is not an object with such a prompt (read it
     *     whole then: that reader accepts it or says what is wrong)
     */
    public static TokenIdBody read(ObjectReader strict, byte[] body, LongConsumer ids) throws IOException {
        try (JsonParser p = strict.getFactory().createParser(body)) {
            if (p.nextToken() != JsonToken.START_OBJECT) {
                return null;
            }
            for (JsonToken t = p.nextToken(); t == JsonToken.FIELD_NAME; t = p.nextToken()) {
                String name = p.currentName();
                if (p.nextToken() == JsonToken.START_ARRAY && name.equals("prompt")) {
                    int open = (int) p.currentTokenLocation().getByteOffset();
                    long scanned = TokenIdList.scan(body, open, ids);
                    if (scanned == TokenIdList.NOT_IDS) {
                        return null;
                    }
                    byte[] without = TokenIdList.withoutList(body, open, scanned);
                    if (!onePrompt(strict, without)) {
                        // a second "prompt" later in the body: JSON readers (Jackson, the engine's) take the
                        // last one, so this list is not the prompt; let the tree reader have the body. Counted
                        // by key, not by what the tree holds: a last "prompt": [ ] looks like the placeholder
                        return null;
                    }
                    JsonNode rest = strict.readValue(without);
                    return rest instanceof ObjectNode o ? new TokenIdBody(o, body, open, scanned) : null;
                }
                p.skipChildren();
            }
            return null;
        }
    }

    /** Whether the object (the body with the list cut out: cheap to stream) has one top-level "prompt". */
    private static boolean onePrompt(ObjectReader strict, byte[] object) throws IOException {
        try (JsonParser p = strict.getFactory().createParser(object)) {
            p.nextToken(); // the START_OBJECT the caller has seen
            int prompts = 0;
            for (JsonToken t = p.nextToken(); t == JsonToken.FIELD_NAME; t = p.nextToken()) {
                prompts += p.currentName().equals("prompt") ? 1 : 0;
                p.nextToken();
                p.skipChildren();
            }
            return prompts == 1;
        }
    }
}
