package org.balanceroute.proxy.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import com.code_intelligence.jazzer.junit.FuzzTest;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * The request validator over any bytes, for both endpoints: it either returns a body the proxy
 * can send on (an object with a string {@code model}, whose JSON as the hops write it reads back
 * as what the client sent) or refuses it with an {@link OpenAiError} of 400 or 413 carrying a
 * message; nothing else escapes. The committed inputs replay in every build.
 */
class RequestValidatorFuzzTest {

    private static final ObjectMapper MAPPER = new ObjectMapper();

    @FuzzTest(maxDuration = "3m")
    void answersEveryBodyWithABodyOrAnOpenAiError(FuzzedDataProvider data) throws Exception {
        Endpoint endpoint = data.consumeBoolean() ? Endpoint.COMPLETIONS : Endpoint.CHAT_COMPLETIONS;
        byte[] raw = data.consumeRemainingAsBytes();
        ObjectNode body;
        try {
            body = RequestValidator.validate(endpoint, raw, 1 << 16, ProxyConfig.DEFAULT_MAX_TOKENS_LIMIT);
        } catch (OpenAiError e) {
            assertTrue(e.status() == 400 || e.status() == 413, "status " + e.status());
            assertNotNull(e.getMessage());
            assertEquals(e.status(), e.json().path("error").path("code").asInt());
            return;
        }
        assertTrue(body.path("model").isTextual());
        // what the hops write is JSON that reads back as the client's body (the id list verbatim)
        JsonNode written = MAPPER.readTree(MAPPER.writeValueAsString(body));
        assertEquals(MAPPER.readTree(raw), written);
    }
}
