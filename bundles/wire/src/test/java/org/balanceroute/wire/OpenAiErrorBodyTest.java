package org.balanceroute.wire;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class OpenAiErrorBodyTest {

    @Test
    void theFourFieldsInOrderUnderError() {
        Map<String, Object> body = OpenAiErrorBody.of("bad max_tokens", "invalid_request_error", "max_tokens", 400);
        assertEquals(List.of("error"), List.copyOf(body.keySet()));
        @SuppressWarnings("unchecked")
        Map<String, Object> error = (Map<String, Object>) body.get("error");
        assertEquals(List.of("message", "type", "param", "code"), List.copyOf(error.keySet()));
        assertEquals("bad max_tokens", error.get("message"));
        assertEquals("invalid_request_error", error.get("type"));
        assertEquals("max_tokens", error.get("param"));
        assertEquals(400, error.get("code"));
        Map<?, ?> nulls = (Map<?, ?>) OpenAiErrorBody.of("m", "server_error", null, null).get("error");
        assertEquals(null, nulls.get("param"));
        assertEquals(true, nulls.containsKey("code"), "a null code is written, as null");
    }
}
