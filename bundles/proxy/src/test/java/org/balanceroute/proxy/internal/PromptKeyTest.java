package org.balanceroute.proxy.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.databind.node.POJONode;
import java.nio.charset.StandardCharsets;
import org.balanceroute.wire.PromptKey;
import org.balanceroute.wire.TokenIdPrompt;
import org.junit.jupiter.api.Test;

class PromptKeyTest {

    private static final ObjectMapper MAPPER = new ObjectMapper();

    private static long key(Endpoint e, String json) throws Exception {
        return PromptKey.of(MAPPER.readTree(json).path(e.promptField));
    }

    @Test
    void theSamePromptHasTheSameKeyWhateverElseTheBodySays() throws Exception {
        assertEquals(key(Endpoint.COMPLETIONS, "{\"prompt\": [1, 2, 3], \"max_tokens\": 5}"),
                key(Endpoint.COMPLETIONS, "{\"max_tokens\": 9, \"prompt\": [1,2,3], \"stream\": true}"));
        assertEquals(key(Endpoint.CHAT_COMPLETIONS, "{\"messages\": [{\"role\": \"user\", \"content\": \"hi\"}]}"),
                key(Endpoint.CHAT_COMPLETIONS, "{\"messages\": [{\"role\": \"user\", \"content\": \"hi\"}], \"max_tokens\": 3}"));
    }

    @Test
    void differentPromptsHaveDifferentKeys() throws Exception {
        assertNotEquals(key(Endpoint.COMPLETIONS, "{\"prompt\": [1, 2, 3]}"), key(Endpoint.COMPLETIONS, "{\"prompt\": [1, 2, 4]}"));
        assertNotEquals(key(Endpoint.COMPLETIONS, "{\"prompt\": [1, 2, 3]}"), key(Endpoint.COMPLETIONS, "{\"prompt\": [3, 2, 1]}"));
        assertNotEquals(key(Endpoint.COMPLETIONS, "{\"prompt\": [[1, 2], [3]]}"), key(Endpoint.COMPLETIONS, "{\"prompt\": [[1], [2, 3]]}"));
        assertNotEquals(key(Endpoint.COMPLETIONS, "{\"prompt\": \"1\"}"), key(Endpoint.COMPLETIONS, "{\"prompt\": 1}"));
        assertNotEquals(key(Endpoint.COMPLETIONS, "{\"prompt\": \"ab\"}"), key(Endpoint.COMPLETIONS, "{\"prompt\": \"ba\"}"));
        assertNotEquals(key(Endpoint.CHAT_COMPLETIONS, "{\"messages\": [{\"role\": \"user\", \"content\": \"hi\"}]}"),
                key(Endpoint.CHAT_COMPLETIONS, "{\"messages\": [{\"role\": \"system\", \"content\": \"hi\"}]}"));
    }

    @Test
    void aTokenIdPromptKeptVerbatimHasTheTreeKeyAndIsWrittenBackAsSent() throws Exception {
        String body = "{\"model\": \"m\", \"prompt\": [ 7, 8,9 , -1, 9007199254740993 ], \"max_tokens\": 3}";
        ObjectNode read = (ObjectNode) RequestValidator.read(Endpoint.COMPLETIONS, body.getBytes(StandardCharsets.UTF_8));
        TokenIdPrompt ids = (TokenIdPrompt) ((POJONode) read.get("prompt")).getPojo();
        assertEquals(5, ids.count());
        assertEquals(key(Endpoint.COMPLETIONS, body), PromptKey.of(read.path(Endpoint.COMPLETIONS.promptField)));
        assertEquals("{\"model\":\"m\",\"prompt\":[ 7, 8,9 , -1, 9007199254740993 ],\"max_tokens\":3}",
                MAPPER.writeValueAsString(read));
        assertEquals(MAPPER.readTree(body), MAPPER.readTree(MAPPER.writeValueAsString(read)));
    }

    @Test
    void otherPromptsAreReadAsATree() throws Exception {
        for (String prompt : new String[] {"\"text\"", "[[1, 2], [3]]", "[1, \"a\"]", "[\"a\"]", "[1, 2.5]",
                "[123456789012345678901234567890]"}) {
            String body = "{\"model\": \"m\", \"prompt\": " + prompt + "}";
            ObjectNode read = (ObjectNode) RequestValidator.read(Endpoint.COMPLETIONS, body.getBytes(StandardCharsets.UTF_8));
            assertEquals(MAPPER.readTree(prompt), read.get("prompt"), prompt);
        }
    }

    @Test
    void aKeyIsNeverZero() throws Exception {
        assertNotEquals(0, key(Endpoint.COMPLETIONS, "{}"));
        assertNotEquals(0, key(Endpoint.COMPLETIONS, "{\"prompt\": \"\"}"));
    }
}
