package org.balanceroute.enginesim.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class RequestBodiesTest {

    private static final ObjectMapper JSON = new ObjectMapper();

    private static JsonNode read(String body) throws Exception {
        return RequestBodies.read(JSON, body.getBytes(StandardCharsets.UTF_8));
    }

    private static int promptTokens(String body) throws Exception {
        return CompletionRequest.parse(read(body), false, "m", 16).promptTokens();
    }

    @Test
    void aTokenIdPromptIsCountedAndTheRestReadAsATree() throws Exception {
        JsonNode b = read("{\"model\": \"m\", \"prompt\": [5, 6, 7], \"max_tokens\": 4,"
                + " \"kv_transfer_params\": {\"remote_block_ids\": [1, 2], \"x\": null}}");
        assertTrue(b.get("prompt").isPojo());
        assertEquals(4, b.get("max_tokens").asInt());
        assertEquals(2, b.path("kv_transfer_params").path("remote_block_ids").size());
        assertTrue(b.path("kv_transfer_params").get("x").isNull());
        assertEquals(3, promptTokens("{\"model\": \"m\", \"prompt\": [5, 6, 7]}"));
    }

    @Test
    void otherPromptsAreReadAsBefore() throws Exception {
        assertEquals(2, promptTokens("{\"prompt\": \"abcdefgh\"}"));
        assertTrue(read("{\"prompt\": [[1, 2], [3]]}").get("prompt").isArray());
        assertTrue(read("{\"prompt\": [1, \"a\"]}").get("prompt").isArray());
        ApiException batched = assertThrows(ApiException.class, () -> promptTokens("{\"prompt\": [[1, 2], [3]]}"));
        assertEquals("prompt", batched.param);
        ApiException empty = assertThrows(ApiException.class, () -> promptTokens("{\"prompt\": []}"));
        assertEquals("prompt", empty.param);
    }

    @Test
    void theIdScanAgreesWithAJsonReaderOnEveryLayout() throws Exception {
        assertEquals(3, promptTokens("{\"prompt\":[5,6,7],\"model\":\"m\"}"));
        assertEquals(3, promptTokens("{\"prompt\" : [\n\t5 ,\r\n -6,7 ] }"));
        assertEquals(1, promptTokens("{\"max_tokens\": 2, \"prompt\": [0]}"));
        assertEquals(2, promptTokens("{\"prompt\": [12345678901234567890, 1]}"));
        java.util.SplittableRandom r = new java.util.SplittableRandom(7);
        for (int round = 0; round < 200; round++) {
            int n = 1 + r.nextInt(300);
            StringBuilder list = new StringBuilder("[");
            for (int k = 0; k < n; k++) {
                list.append(k == 0 ? "" : r.nextBoolean() ? "," : " , ").append(r.nextInt(200_000));
            }
            String body = "{\"model\": \"m\", \"prompt\": " + list + "], \"max_tokens\": " + n + "}";
            assertEquals(JSON.readTree(body).get("prompt").size(), promptTokens(body));
            assertEquals(n, read(body).get("max_tokens").asInt());
        }
    }

    @Test
    void aListTheScanRefusesGoesThroughTheJsonReader() throws Exception {
        assertTrue(read("{\"prompt\": [1, 2.5]}").get("prompt").isArray());
        assertTrue(read("{\"prompt\": [1, 2e3]}").get("prompt").isArray());
        assertTrue(read("{\"prompt\": [1, null]}").get("prompt").isArray());
        assertThrows(JsonProcessingException.class, () -> read("{\"prompt\": [01, 2]}"));
        assertThrows(JsonProcessingException.class, () -> read("{\"prompt\": [1, -]}"));
        assertThrows(JsonProcessingException.class, () -> read("{\"prompt\": [1 2]}"));
        assertThrows(JsonProcessingException.class, () -> read("{\"prompt\": [1, 2], \"max_tokens\": }"));
    }

    @Test
    void invalidJsonStillFailsAndNoValueIsNull() throws Exception {
        assertThrows(JsonProcessingException.class, () -> read("{\"prompt\": [1, 2,"));
        assertThrows(JsonProcessingException.class, () -> read("{\"prompt\": [1, 2]} trailing"));
        assertNull(read(""));
        assertTrue(read("[1, 2]").isArray());
    }
}
