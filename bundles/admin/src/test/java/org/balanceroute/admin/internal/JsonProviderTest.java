package org.balanceroute.admin.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import jakarta.ws.rs.WebApplicationException;
import jakarta.ws.rs.core.MediaType;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.lang.annotation.Annotation;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class JsonProviderTest {

    private final JsonProvider provider = new JsonProvider();
    private static final Annotation[] NONE = new Annotation[0];

    @Test
    void writesMapsAndReadsTrees() throws Exception {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("active", "br0");
        m.put("available", List.of("br0", "jsq"));
        assertTrue(provider.isWriteable(LinkedHashMap.class, LinkedHashMap.class, NONE, MediaType.APPLICATION_JSON_TYPE));
        assertFalse(provider.isWriteable(String.class, String.class, NONE, MediaType.APPLICATION_JSON_TYPE));
        assertFalse(provider.isWriteable(Map.class, Map.class, NONE, MediaType.TEXT_PLAIN_TYPE));
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        provider.writeTo(m, Map.class, Map.class, NONE, MediaType.APPLICATION_JSON_TYPE, null, out);
        assertEquals("{\"active\":\"br0\",\"available\":[\"br0\",\"jsq\"]}", out.toString(StandardCharsets.UTF_8));

        @SuppressWarnings({"unchecked", "rawtypes"})
        Object read = provider.readFrom((Class) JsonNode.class, JsonNode.class, NONE, MediaType.APPLICATION_JSON_TYPE,
                null, new ByteArrayInputStream("{\"policy\":\"jsq\"}".getBytes(StandardCharsets.UTF_8)));
        assertEquals("jsq", ((JsonNode) read).get("policy").textValue());
    }

    @Test
    void malformedJsonIsA400InTheErrorShape() {
        @SuppressWarnings({"unchecked", "rawtypes"})
        WebApplicationException e = assertThrows(WebApplicationException.class, () -> provider.readFrom((Class) JsonNode.class,
                JsonNode.class, NONE, MediaType.APPLICATION_JSON_TYPE, null,
                new ByteArrayInputStream("{\"policy\":".getBytes(StandardCharsets.UTF_8))));
        assertEquals(400, e.getResponse().getStatus());
        assertTrue(((String) e.getResponse().getEntity()).contains("\"type\":\"invalid_request_error\""));
    }
}
