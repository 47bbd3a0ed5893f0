package org.balanceroute.proxy.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import org.junit.jupiter.api.Test;

class ResubmissionTest {

    private static final ObjectMapper JSON = new ObjectMapper();

    private static ObjectNode body(String json) throws Exception {
        return (ObjectNode) JSON.readTree(json);
    }

    @Test
    void aTextPromptGetsTheTextAppendedAndTheBudgetReduced() throws Exception {
        ObjectNode original = body("{\"model\": \"m\", \"prompt\": [\"Once\"], \"max_tokens\": 10, \"min_tokens\": 3,"
                + " \"echo\": true}");
        ObjectNode next = Resubmission.body(Endpoint.COMPLETIONS, original, " upon", 4);
        assertEquals("Once upon", next.path("prompt").asText());
        assertEquals(6, next.path("max_tokens").asInt());
        assertEquals(0, next.path("min_tokens").asInt());
        assertFalse(next.path("echo").asBoolean());
        assertEquals("[\"Once\"]", original.path("prompt").toString(), "the original is not modified");
    }

    @Test
    void nothingLeftOfTheBudgetIsNull() throws Exception {
        assertNull(Resubmission.body(Endpoint.COMPLETIONS, body("{\"prompt\": \"a\", \"max_tokens\": 4}"), "b", 4));
        assertNull(Resubmission.body(Endpoint.CHAT_COMPLETIONS,
                body("{\"messages\": [{\"role\": \"user\"}], \"max_completion_tokens\": 2}"), "b", 3));
    }

    @Test
    void aChatGetsAnOpenAssistantMessage() throws Exception {
        ObjectNode next = Resubmission.body(Endpoint.CHAT_COMPLETIONS,
                body("{\"messages\": [{\"role\": \"user\", \"content\": \"hi\"}]}"), "Hel", 1);
        assertEquals(2, next.path("messages").size());
        assertEquals("{\"role\":\"assistant\",\"content\":\"Hel\"}", next.path("messages").get(1).toString());
        assertTrue(next.path("continue_final_message").asBoolean());
        assertFalse(next.path("add_generation_prompt").asBoolean(true));
        assertFalse(next.has("max_tokens"), "no limit given, none added");
    }

    @Test
    void aClientsOwnOpenAssistantMessageIsExtended() throws Exception {
        ObjectNode next = Resubmission.body(Endpoint.CHAT_COMPLETIONS, body("{\"messages\": [{\"role\": \"user\","
                + " \"content\": \"hi\"}, {\"role\": \"assistant\", \"content\": \"Well,\"}],"
                + " \"continue_final_message\": true, \"add_generation_prompt\": false}"), " yes", 1);
        assertEquals(2, next.path("messages").size());
        assertEquals("Well, yes", next.path("messages").get(1).path("content").asText());
    }

    @Test
    void tokenIdsAndSeveralChoicesCannotBeContinued() throws Exception {
        OpenAiError ids = assertThrows(OpenAiError.class,
                () -> Resubmission.body(Endpoint.COMPLETIONS, body("{\"prompt\": [1, 2]}"), "x", 1));
        assertTrue(ids.getMessage().contains("token ids"), ids.getMessage());
        assertThrows(OpenAiError.class,
                () -> Resubmission.body(Endpoint.COMPLETIONS, body("{\"prompt\": [\"a\", \"b\"]}"), "x", 1));
        OpenAiError n = assertThrows(OpenAiError.class,
                () -> Resubmission.body(Endpoint.CHAT_COMPLETIONS, body("{\"messages\": [{}], \"n\": 2}"), "x", 1));
        assertTrue(n.getMessage().contains("n > 1"), n.getMessage());
    }
}
