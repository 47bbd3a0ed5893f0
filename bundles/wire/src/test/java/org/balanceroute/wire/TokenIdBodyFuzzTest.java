package org.balanceroute.wire;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.fail;

import com.code_intelligence.jazzer.junit.FuzzTest;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.ObjectReader;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

/**
 * The token-id body scanner against Jackson, over any bytes: when it takes a body apart, Jackson
 * reads the same body as the same object, with the same ids in the same order in {@code prompt}
 * and the same other fields; it never takes apart what Jackson refuses; it fails only with an
 * {@link IOException} (malformed JSON). The committed inputs replay in every build.
 */
class TokenIdBodyFuzzTest {

    private static final ObjectMapper MAPPER = new ObjectMapper();
    private static final ObjectReader STRICT = MAPPER.readerFor(JsonNode.class)
            .with(DeserializationFeature.FAIL_ON_TRAILING_TOKENS);

    @FuzzTest(maxDuration = "3m")
    void agreesWithJackson(byte[] body) throws IOException {
        List<Long> ids = new ArrayList<>();
        TokenIdBody read;
        try {
            read = TokenIdBody.read(STRICT, body, ids::add);
        } catch (IOException malformed) {
            return;
        }
        if (read == null) {
            return;
        }
        JsonNode tree;
        try {
            tree = STRICT.readValue(body);
        } catch (IOException e) {
            fail("the scanner took apart a body Jackson refuses: " + e.getMessage());
            return;
        }
        assertNotNull(tree);
        JsonNode prompt = tree.path("prompt");
        if (!prompt.isArray()) {
            fail("the scanner found an id list where Jackson has " + prompt);
        }
        List<Long> jackson = new ArrayList<>();
        for (JsonNode id : prompt) {
            if (!id.isIntegralNumber() || !id.canConvertToLong()) {
                fail("the scanner took " + id + " for an id");
            }
            jackson.add(id.longValue());
        }
        assertEquals(jackson, ids, "the ids");
        assertEquals(jackson.size(), read.count(), "the count");
        assertEquals(prompt, STRICT.readTree(read.listJson()), "the list as sent");
        ObjectNode rest = ((ObjectNode) tree).deepCopy();
        rest.set("prompt", ArrayNode.class.cast(MAPPER.createArrayNode()));
        assertEquals(rest, read.rest(), "the other fields");
    }
}
