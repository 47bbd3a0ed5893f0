package org.balanceroute.proxy.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class RequestValidatorTest {

    private static OpenAiError reject(Endpoint e, String body, int max) {
        return assertThrows(OpenAiError.class,
                () -> RequestValidator.validate(e, body.getBytes(StandardCharsets.UTF_8), max));
    }

    @Test
    void namesTheOffendingField() {
        assertEquals("model", reject(Endpoint.COMPLETIONS, "{\"prompt\": \"x\"}", 1024).param());
        assertEquals("prompt", reject(Endpoint.COMPLETIONS, "{\"model\": \"m\"}", 1024).param());
        assertEquals("prompt", reject(Endpoint.COMPLETIONS, "{\"model\": \"m\", \"prompt\": []}", 1024).param());
        assertEquals("messages", reject(Endpoint.CHAT_COMPLETIONS, "{\"model\": \"m\", \"prompt\": \"x\"}", 1024).param());
        assertEquals("max_tokens",
                reject(Endpoint.COMPLETIONS, "{\"model\": \"m\", \"prompt\": \"x\", \"max_tokens\": 0}", 1024).param());
        assertEquals("max_completion_tokens", reject(Endpoint.CHAT_COMPLETIONS,
                "{\"model\": \"m\", \"messages\": [{}], \"max_completion_tokens\": -3}", 1024).param());
        assertEquals("stream",
                reject(Endpoint.COMPLETIONS, "{\"model\": \"m\", \"prompt\": \"x\", \"stream\": \"yes\"}", 1024).param());
        OpenAiError e = reject(Endpoint.COMPLETIONS, "{nope", 1024);
        assertEquals(400, e.status());
        assertNull(e.param());
    }

    @Test
    void tooLargeIs413() {
        OpenAiError e = reject(Endpoint.COMPLETIONS, "{\"model\": \"m\", \"prompt\": \"" + "x".repeat(2000) + "\"}", 1024);
        assertEquals(413, e.status());
        assertEquals(413, e.json().path("error").path("code").asInt());
    }

    @Test
    void validBodiesPass() {
        RequestValidator.validate(Endpoint.COMPLETIONS,
                "{\"model\": \"m\", \"prompt\": [1, 2], \"max_tokens\": 5, \"stream\": true}".getBytes(StandardCharsets.UTF_8), 1024);
        RequestValidator.validate(Endpoint.CHAT_COMPLETIONS,
                "{\"model\": \"m\", \"messages\": [{\"role\": \"user\", \"content\": \"hi\"}]}".getBytes(StandardCharsets.UTF_8), 1024);
    }

    @Test
    void requestIdsAreKeptWhenSaneElseMade() {
        assertEquals("abc-1", CompletionFlow.requestId(" abc-1 "));
        assertEquals(36, CompletionFlow.requestId(null).length());
        assertEquals(36, CompletionFlow.requestId("has space").length());
    }
}
