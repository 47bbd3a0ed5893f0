package org.balanceroute.wire;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import org.junit.jupiter.api.Test;

/** The two hop bodies exactly as docs/vllm-contract.md says, and the co-located estimate of s_i. */
class CompletionBodiesTest {

    private static final ObjectMapper JSON = new ObjectMapper();

    private static ObjectNode json(String s) throws Exception {
        return (ObjectNode) JSON.readTree(s);
    }

    @Test
    void prefillBodyIsTheClientBodyMutatedAsTheContractSays() throws Exception {
        ObjectNode client = json("{\"model\": \"m\", \"messages\": [{\"role\": \"user\", \"content\": \"hi\"}],"
                + " \"stream\": true, \"stream_options\": {\"include_usage\": true}, \"max_tokens\": 200,"
                + " \"max_completion_tokens\": 200, \"temperature\": 0.7, \"ignore_eos\": true}");
        String before = client.toString();
        ObjectNode prefill = CompletionBodies.prefillHop(client);
        assertEquals(json("{\"model\": \"m\", \"messages\": [{\"role\": \"user\", \"content\": \"hi\"}],"
                + " \"stream\": false, \"max_tokens\": 1, \"max_completion_tokens\": 1, \"temperature\": 0.7,"
                + " \"ignore_eos\": true, \"min_tokens\": 1,"
                + " \"kv_transfer_params\": {\"do_remote_decode\": true, \"do_remote_prefill\": false,"
                + " \"remote_engine_id\": null, \"remote_block_ids\": null, \"remote_host\": null,"
                + " \"remote_port\": null}}"), prefill);
        assertEquals(before, client.toString(), "the client body is not modified");
    }

    @Test
    void prefillBodyAddsNoMaxCompletionTokensWhenTheClientHadNone() throws Exception {
        ObjectNode prefill = CompletionBodies.prefillHop(json("{\"model\": \"m\", \"prompt\": [1, 2, 3]}"));
        assertFalse(prefill.has("max_completion_tokens"));
        assertFalse(prefill.has("stream_options"));
        assertEquals(1, prefill.get("max_tokens").intValue());
        assertEquals(1, prefill.get("min_tokens").intValue());
        assertFalse(prefill.get("stream").booleanValue());
    }

    @Test
    void decodeBodyKeepsStreamAndOptionsAndCarriesTheHandleVerbatim() throws Exception {
        ObjectNode client = json("{\"model\": \"m\", \"prompt\": \"x\", \"stream\": true,"
                + " \"stream_options\": {\"include_usage\": true, \"continuous_usage_stats\": true}, \"max_tokens\": 50}");
        ObjectNode handle = json("{\"do_remote_prefill\": true, \"do_remote_decode\": false,"
                + " \"remote_block_ids\": [1, 2], \"remote_engine_id\": \"e_dp0\", \"remote_request_id\": \"r\","
                + " \"remote_host\": \"127.0.0.1\", \"remote_port\": 7000, \"remote_pcp_size\": 1, \"extra\": {\"a\": [null]}}");
        ObjectNode decode = CompletionBodies.decodeHop(client, handle);
        ObjectNode expected = client.deepCopy();
        expected.set("kv_transfer_params", handle);
        assertEquals(expected, decode);
        assertFalse(client.has("kv_transfer_params"), "the client body is not modified");
    }

    @Test
    void decodeBodyWithoutHandleDropsAnyClientKvParams() throws Exception {
        ObjectNode decode = CompletionBodies.decodeHop(json("{\"model\": \"m\", \"prompt\": \"x\","
                + " \"kv_transfer_params\": {\"forged\": true}}"), null);
        assertFalse(decode.has("kv_transfer_params"));
        assertSame(null, decode.get("kv_transfer_params"));
    }

    @Test
    void coLocatedPromptLengthIsEstimatedFromTheBody() throws Exception {
        assertEquals(5, PromptTokens.estimate(json("{\"prompt\": [1, 2, 3, 4, 5]}")));
        assertEquals(3, PromptTokens.estimate(json("{\"prompt\": \"123456789\"}")), "ceil(9 / 4)");
        assertEquals(2, PromptTokens.estimate(json("{\"prompt\": \"12345678\"}")));
        assertEquals(1, PromptTokens.estimate(json("{\"prompt\": \"\"}")), "at least 1");
        // chat: ceil over the concatenation (4 + 5 + 3 = 12 characters), not a sum of per-message ceilings
        assertEquals(3, PromptTokens.estimate(json("{\"messages\": [{\"role\": \"system\", \"content\": \"abcd\"},"
                + " {\"role\": \"user\", \"content\": [{\"type\": \"text\", \"text\": \"efghi\"}]},"
                + " {\"role\": \"assistant\", \"content\": null}, {\"role\": \"user\", \"content\": \"jkl\"}]}")));
        assertEquals(7, PromptTokens.estimate(json("{\"prompt\": [[1, 2, 3], \"abcdefgh\", [4, 5]]}")),
                "a list of prompts adds up");
    }
}
