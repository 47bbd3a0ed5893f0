package org.balanceroute.proxy.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import jakarta.ws.rs.core.Response;
import org.balanceroute.connector.vllm.PrefillQueueFullException;
import org.balanceroute.connector.vllm.VllmConnector;
import org.junit.jupiter.api.Test;

class TooBusyTest {

    @Test
    void aFullPrefillQueueIs429WithRetryAfterAndAnOpenAiErrorBody() throws Exception {
        Response r = CompletionFlow.tooBusy(new PrefillQueueFullException("queue full"), "rid-1");
        assertEquals(429, r.getStatus());
        assertEquals("1", r.getHeaderString("Retry-After"));
        assertEquals("rid-1", r.getHeaderString(VllmConnector.REQUEST_ID_HEADER));
        JsonNode error = new ObjectMapper().readTree((byte[]) r.getEntity()).path("error");
        assertEquals("queue full", error.path("message").asText());
        assertEquals("rate_limit_exceeded", error.path("type").asText());
        assertEquals(429, error.path("code").asInt());
    }
}
