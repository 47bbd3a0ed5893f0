package org.balanceroute.proxy.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.databind.node.POJONode;
import java.nio.charset.StandardCharsets;
import org.balanceroute.wire.PromptKey;
import org.balanceroute.wire.TokenIdPrompt;
import org.junit.jupiter.api.Test;

class RequestValidatorTest {

    private static final ObjectMapper MAPPER = new ObjectMapper();

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
                "{\"model\": \"m\", \"messages\": [{\"role\": \"user\"}], \"max_completion_tokens\": -3}", 1024).param());
        assertEquals("stream",
                reject(Endpoint.COMPLETIONS, "{\"model\": \"m\", \"prompt\": \"x\", \"stream\": \"yes\"}", 1024).param());
        OpenAiError e = reject(Endpoint.COMPLETIONS, "{nope", 1024);
        assertEquals(400, e.status());
        assertNull(e.param());
    }

    @Test
    void theOtherFieldsHaveTheTypesVllmGivesThem() {
        OpenAiError t = reject(Endpoint.COMPLETIONS, "{\"model\": \"m\", \"prompt\": \"x\", \"temperature\": \"hot\"}", 1024);
        assertEquals("temperature", t.param());
        assertEquals("temperature: Input should be a valid number, unable to parse string as a number", t.getMessage());
        OpenAiError c = reject(Endpoint.CHAT_COMPLETIONS,
                "{\"model\": \"m\", \"messages\": [{\"role\": \"user\", \"content\": 42}]}", 1024);
        assertEquals("messages", c.param());
        assertEquals("messages.0.content: Input should be a valid string or a list of content parts", c.getMessage());
        // a token-id prompt read ahead of the tree passes as the list it is
        RequestValidator.validate(Endpoint.COMPLETIONS,
                "{\"model\": \"m\", \"prompt\": [1, 2], \"top_p\": 0.9}".getBytes(StandardCharsets.UTF_8), 1024);
    }

    @Test
    void promptsTokenIdsMessagesNAndStreamOptionsAreCheckedBeforeAnyEngine() {
        String[][] cases = {
            {"{\"model\": \"m\", \"prompt\": \"\"}", "prompt", "must not be empty"},
            {"{\"model\": \"m\", \"prompt\": [[1, 2], [3]]}", "prompt", "batched prompts"},
            {"{\"model\": \"m\", \"prompt\": [\"a\", \"b\"]}", "prompt", "batched prompts"},
            {"{\"model\": \"m\", \"prompt\": [1, -2]}", "prompt", "[0, 2147483647]"},
            {"{\"model\": \"m\", \"prompt\": [1, 2147483648]}", "prompt", "[0, 2147483647]"},
            {"{\"model\": \"m\", \"prompt\": [1, 2.5]}", "prompt", "[0, 2147483647]"},
            {"{\"model\": \"m\", \"prompt\": [99999999999999999999]}", "prompt", "[0, 2147483647]"},
            {"{\"model\": \"m\", \"prompt\": [1, true]}", "prompt", "[0, 2147483647]"},
            {"{\"model\": \"m\", \"prompt\": \"x\", \"max_tokens\": 131073}", "max_tokens", "[1, 131072]"},
            {"{\"model\": \"m\", \"prompt\": \"x\", \"n\": 2}", "n", "must be 1"},
            {"{\"model\": \"m\", \"prompt\": \"x\", \"stream\": true, \"stream_options\": \"yes\"}",
                "stream_options", "an object"},
            {"{\"model\": \"m\", \"prompt\": \"x\", \"stream_options\": {\"include_usage\": true}}",
                "stream_options", "'stream': true"},
            {"{\"model\": \"m\", \"prompt\": \"x\", \"stream\": true, \"stream_options\": {\"include_usage\": 1}}",
                "stream_options", "include_usage"},
            {"{\"model\": \"m\", \"messages\": [1, 2]}", "messages", "messages[0]"},
            {"{\"model\": \"m\", \"messages\": [{\"role\": \"user\"}, {\"content\": \"x\"}]}", "messages",
                "messages[1]"},
        };
        for (String[] c : cases) {
            Endpoint e = c[0].contains("messages") ? Endpoint.CHAT_COMPLETIONS : Endpoint.COMPLETIONS;
            OpenAiError error = reject(e, c[0], 1 << 20);
            assertEquals(400, error.status(), c[0]);
            assertEquals(c[1], error.param(), c[0]);
            org.junit.jupiter.api.Assertions.assertTrue(error.getMessage().contains(c[2]), c[0] + ": " + error.getMessage());
        }
        RequestValidator.validate(Endpoint.COMPLETIONS, "{\"model\": \"m\", \"prompt\": [0, 2147483647], \"n\": 1}"
                .getBytes(StandardCharsets.UTF_8), 1024);
    }

    @Test
    void onlyJsonMediaTypesAreTaken() {
        for (String ok : new String[] {null, "", "application/json", "Application/JSON; charset=utf-8",
            "application/vnd.api+json"}) {
            RequestValidator.mediaType(ok);
        }
        for (String bad : new String[] {"text/plain", "application/x-www-form-urlencoded", "multipart/form-data; b=x"}) {
            assertEquals(415, assertThrows(OpenAiError.class, () -> RequestValidator.mediaType(bad)).status(), bad);
        }
    }

    @Test
    void tooLargeIs413() {
        OpenAiError e = reject(Endpoint.COMPLETIONS, "{\"model\": \"m\", \"prompt\": \"" + "x".repeat(2000) + "\"}", 1024);
        assertEquals(413, e.status());
        assertEquals(413, e.json().path("error").path("code").asInt());
    }

    /** A valid body comes back as the body the hops are built from: every field as sent, a token-id prompt kept verbatim. */
    @Test
    void validBodiesPassAsTheBodyTheHopsAreBuiltFrom() throws Exception {
        ObjectNode completion = RequestValidator.validate(Endpoint.COMPLETIONS, ("{\"model\": \"m\", \"prompt\": [1, 2],"
                + " \"max_tokens\": 5, \"stream\": true, \"temperature\": 0.5}").getBytes(StandardCharsets.UTF_8), 1024);
        assertEquals("m", completion.get("model").textValue());
        assertEquals(5, completion.get("max_tokens").intValue());
        assertTrue(completion.get("stream").booleanValue());
        assertEquals(0.5, completion.get("temperature").doubleValue(), "a field the proxy does not know goes on");
        // the id list is not re-parsed into a tree: the ids as sent, counted, and the prompt's identity
        TokenIdPrompt ids = (TokenIdPrompt) ((POJONode) completion.get("prompt")).getPojo();
        assertEquals("[1, 2]", ids.json());
        assertEquals(2, ids.count());
        assertEquals(PromptKey.of(MAPPER.readTree("[1, 2]")), ids.key());
        assertEquals(PromptKey.of(MAPPER.readTree("[1, 2]")), PromptKey.of(completion.get("prompt")));
        assertEquals(5, completion.size());

        ObjectNode text = RequestValidator.validate(Endpoint.COMPLETIONS,
                "{\"model\": \"m\", \"prompt\": \"hello\", \"max_tokens\": 1024}".getBytes(StandardCharsets.UTF_8), 1024);
        assertEquals("hello", text.get("prompt").textValue(), "a text prompt stays text");
        assertEquals(1024, text.get("max_tokens").intValue(), "max_tokens at the limit passes");
        assertNull(text.get("stream"), "no stream flag is added: the engine's default holds");

        ObjectNode chat = RequestValidator.validate(Endpoint.CHAT_COMPLETIONS, ("{\"model\": \"m\", \"messages\":"
                + " [{\"role\": \"user\", \"content\": \"hi\"}], \"max_completion_tokens\": 7, \"n\": 1,"
                + " \"stream\": false}").getBytes(StandardCharsets.UTF_8), 1024);
        assertEquals(MAPPER.readTree("[{\"role\": \"user\", \"content\": \"hi\"}]"), chat.get("messages"));
        assertEquals(7, chat.get("max_completion_tokens").intValue());
        assertEquals(1, chat.get("n").intValue());
        assertFalse(chat.get("stream").booleanValue());
        assertNull(chat.get("prompt"));
    }

    @Test
    void requestIdsAreKeptWhenSaneElseMade() {
        assertEquals("abc-1", CompletionFlow.requestId(" abc-1 "));
        assertEquals(36, CompletionFlow.requestId(null).length());
        assertEquals(36, CompletionFlow.requestId("has space").length());
    }
}
