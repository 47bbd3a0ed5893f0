package org.balanceroute.connector.vllm.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.charset.StandardCharsets;
import org.balanceroute.connector.vllm.PrefillResult;
import org.balanceroute.connector.vllm.UpstreamException;
import org.junit.jupiter.api.Test;

class ParsePrefillTest {

    @Test
    void promptTokensFromUsageAndTheHandleVerbatim() throws Exception {
        String handle = "{\"do_remote_prefill\":true,\"do_remote_decode\":false,\"remote_block_ids\":[4,5],"
                + "\"remote_engine_id\":\"x_dp0\",\"remote_request_id\":\"id\",\"remote_host\":\"h\",\"remote_port\":1,"
                + "\"last_token_id\":17}";
        String body = "{\"id\":\"cmpl-1\",\"choices\":[{\"text\":\"a\"}],\"usage\":{\"prompt_tokens\":123,"
                + "\"completion_tokens\":1},\"kv_transfer_params\":" + handle + "}";
        PrefillResult r = PrefillClient.parse(body.getBytes(StandardCharsets.UTF_8), 2, 1);
        assertEquals(123, r.promptTokens());
        assertEquals(new ObjectMapper().readTree(handle), r.kvTransferParams());
        assertEquals(2, r.instance());
    }

    @Test
    void noHandleIsPassedAsNullAndNoUsageIsAnError() {
        assertNull(PrefillClient.parse("{\"usage\":{\"prompt_tokens\":5}}".getBytes(StandardCharsets.UTF_8),
                0, 1).kvTransferParams());
        UpstreamException e = assertThrows(UpstreamException.class,
                () -> PrefillClient.parse("{\"usage\":{}}".getBytes(StandardCharsets.UTF_8), 0, 1));
        assertEquals(502, e.status());
    }
}
