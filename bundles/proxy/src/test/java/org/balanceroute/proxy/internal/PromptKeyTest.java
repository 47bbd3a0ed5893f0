package org.balanceroute.proxy.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import org.junit.jupiter.api.Test;

class PromptKeyTest {

    private static final ObjectMapper MAPPER = new ObjectMapper();

    private static long key(Endpoint e, String json) throws Exception {
        return CompletionFlow.promptKey(e, (ObjectNode) MAPPER.readTree(json));
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
    void aKeyIsNeverZero() throws Exception {
        assertNotEquals(0, key(Endpoint.COMPLETIONS, "{}"));
        assertNotEquals(0, key(Endpoint.COMPLETIONS, "{\"prompt\": \"\"}"));
    }
}
