package org.balanceroute.wire;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.databind.node.POJONode;
import java.io.IOException;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** Each field type of vLLM's request schema: what pydantic takes, and its words for what it refuses. */
class VllmRequestSchemaTest {

    private static final ObjectMapper JSON = new ObjectMapper();

    private static VllmRequestSchema.Violation check(String field, String value, boolean chat) throws IOException {
        ObjectNode body = (ObjectNode) JSON.readTree("{\"model\": \"m\"}");
        body.set(field, JSON.readTree(value));
        return VllmRequestSchema.check(body, chat);
    }

    @ParameterizedTest(name = "{0} = {1}")
    @CsvSource(delimiter = '|', value = {
        // numbers: JSON numbers, numeric strings, booleans (pydantic's lax mode)
        "temperature | 0.7", "temperature | 1", "temperature | '\"0.5\"'", "temperature | true", "temperature | '\"inf\"'",
        "top_p | 1.0", "presence_penalty | -2", "frequency_penalty | '\"1e-1\"'",
        // integers: also a float without a fraction and an integer string
        "max_tokens | 16", "max_tokens | 16.0", "max_tokens | 100000000000000000000", "prompt | '[12345678901234567890]'", "max_tokens | '\"16\"'", "n | 1", "seed | -9223372036854775808",
        "logprobs | 5",
        // booleans: also 0/1 and pydantic's words
        "stream | true", "stream | 0", "stream | '\"yes\"'", "stream | '\"False\"'", "echo | false",
        // stop: a string or a list of strings
        "stop | '\"\\n\"'", "stop | '[\"a\", \"b\"]'", "stop | '[]'",
        "stream_options | '{\"include_usage\": true, \"continuous_usage_stats\": \"no\"}'",
        // prompt: text, texts, ids, lists of ids
        "prompt | '\"hi\"'", "prompt | '[\"a\", \"b\"]'", "prompt | '[1, 2, 3]'", "prompt | '[[1, 2], [3]]'",
        "model | '\"m\"'", "user | '\"u\"'", "kv_transfer_params | '{\"do_remote_decode\": true}'",
        // null: not given
        "temperature | null", "stop | null", "stream | null",
        // fields vLLM does not declare are not checked
        "foo | '{\"any\": [1]}'",
    })
    void completionsFieldsVllmTakes(String field, String value) throws IOException {
        assertNull(check(field, value, false));
    }

    @ParameterizedTest(name = "{0} = {1}")
    @CsvSource(delimiter = '|', value = {
        "temperature | '\"hot\"' | temperature: Input should be a valid number, unable to parse string as a number",
        "temperature | '[1]' | temperature: Input should be a valid number",
        "top_p | '{}' | top_p: Input should be a valid number",
        "presence_penalty | '\"x\"' | presence_penalty: Input should be a valid number, unable to parse string as a number",
        "frequency_penalty | '[]' | frequency_penalty: Input should be a valid number",
        "max_tokens | 2.5 | max_tokens: Input should be a valid integer, got a number with a fractional part",
        "max_tokens | '\"five\"' | max_tokens: Input should be a valid integer, unable to parse string as an integer",
        "n | '[2]' | n: Input should be a valid integer",
        "seed | 9223372036854775808 | seed: Input should be less than or equal to 9223372036854775807",
        "seed | -9223372036854775809 | seed: Input should be greater than or equal to -9223372036854775808",
        "logprobs | '{}' | logprobs: Input should be a valid integer",
        "stream | '\"maybe\"' | stream: Input should be a valid boolean, unable to interpret input",
        "stream | 2 | stream: Input should be a valid boolean, unable to interpret input",
        "stream | '{}' | stream: Input should be a valid boolean",
        "stop | 5 | stop: Input should be a valid string or a list of strings",
        "stop | '[\"a\", 1]' | stop: Input should be a valid string or a list of strings",
        "stream_options | '\"yes\"' | stream_options: Input should be a valid dictionary or instance of StreamOptions",
        "stream_options | '{\"include_usage\": \"sure\"}' | stream_options.include_usage: Input should be a valid boolean, unable to interpret input",
        "prompt | 5 | prompt: Input should be a valid string, a list of strings, a list of token ids or a list of such lists",
        "prompt | '[1, \"a\"]' | prompt: Input should be a valid string, a list of strings, a list of token ids or a list of such lists",
        "prompt | '[1.5]' | prompt: Input should be a valid string, a list of strings, a list of token ids or a list of such lists",
        "model | 5 | model: Input should be a valid string",
        "kv_transfer_params | '[]' | kv_transfer_params: Input should be a valid dictionary",
    })
    void completionsFieldsVllmRefuses(String field, String value, String message) throws IOException {
        VllmRequestSchema.Violation v = check(field, value, false);
        assertEquals(new VllmRequestSchema.Violation(field, message), v);
    }

    @ParameterizedTest(name = "{0} = {1}")
    @CsvSource(delimiter = '|', value = {
        "messages | '[{\"role\": \"user\", \"content\": \"hi\"}]'",
        "messages | '[{\"role\": \"user\", \"content\": [{\"type\": \"text\", \"text\": \"hi\"}]}]'",
        "messages | '[{\"role\": \"assistant\", \"content\": null}, {\"role\": \"user\"}]'",
        "logprobs | true", "top_logprobs | 3", "max_completion_tokens | 8",
    })
    void chatFieldsVllmTakes(String field, String value) throws IOException {
        assertNull(check(field, value, true));
    }

    @ParameterizedTest(name = "{0} = {1}")
    @CsvSource(delimiter = '|', value = {
        "messages | '[{\"role\": \"user\", \"content\": 42}]' | messages.0.content: Input should be a valid string or a list of content parts",
        "messages | '[{\"role\": \"user\", \"content\": \"a\"}, {\"content\": \"b\"}]' | messages.1.role: Field required",
        "messages | '[{\"role\": 1}]' | messages.0.role: Input should be a valid string",
        "messages | '[\"hi\"]' | messages.0: Input should be a valid dictionary",
        "messages | '\"hi\"' | messages: Input should be a valid list",
        "messages | '[{\"role\": \"user\", \"content\": [\"hi\"]}]' | messages.0.content.0: Input should be a content part (an object with a string 'type')",
        "logprobs | 5 | logprobs: Input should be a valid boolean, unable to interpret input",
        "max_completion_tokens | '\"x\"' | max_completion_tokens: Input should be a valid integer, unable to parse string as an integer",
    })
    void chatFieldsVllmRefuses(String field, String value, String message) throws IOException {
        assertEquals(new VllmRequestSchema.Violation(field, message), check(field, value, true));
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', value = {"true | true", "1 | true", "'\"on\"' | true", "'\"N\"' | false", "0.0 | false"})
    void booleansReadAsPydanticReadsThem(String value, boolean expected) throws IOException {
        assertEquals(expected, VllmRequestSchema.bool(JSON.readTree(value)));
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', value = {"5 | 5", "5.0 | 5", "'\" 7 \"' | 7", "true | 1"})
    void integersReadAsPydanticReadsThem(String value, long expected) throws IOException {
        assertEquals(expected, VllmRequestSchema.integer(JSON.readTree(value)));
    }

    @org.junit.jupiter.api.Test
    void aTokenIdPromptReadAheadOfTheTreeIsAList() {
        ObjectNode body = JSON.createObjectNode().put("model", "m");
        body.set("prompt", new POJONode(new Object()));
        assertNull(VllmRequestSchema.check(body, false));
    }

    @org.junit.jupiter.api.Test
    void theFirstWrongFieldInTheBodysOrderIsNamed() throws IOException {
        JsonNode body = JSON.readTree("{\"model\": \"m\", \"stream\": \"x\", \"temperature\": \"hot\"}");
        assertEquals("stream", VllmRequestSchema.check(body, false).field());
    }
}
