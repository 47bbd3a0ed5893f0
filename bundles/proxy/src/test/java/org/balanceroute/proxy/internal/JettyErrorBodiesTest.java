package org.balanceroute.proxy.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import org.balanceroute.testkit.RawHttp;
import org.eclipse.jetty.server.Connector;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Jetty's own refusals on a real server, set up as Felix HTTP does it: the server started, then
 * the factory's connector added and started.
 */
class JettyErrorBodiesTest {

    private static final ObjectMapper JSON = new ObjectMapper();
    private final Server server = new Server();
    private final JettyErrorBodies bodies = new JettyErrorBodies();
    private int port;

    @BeforeEach
    void start() throws Exception {
        ServerConnector http = new ServerConnector(server);
        http.setHost("127.0.0.1");
        server.addConnector(http);
        server.start();
        port = http.getLocalPort();
        Connector c = bodies.createConnector(server);
        server.addConnector(c);
        c.start();
    }

    @AfterEach
    void stop() throws Exception {
        server.stop();
    }

    private RawHttp.Answer send(String head) throws IOException {
        return RawHttp.send(port, head.getBytes(StandardCharsets.ISO_8859_1), null, 5000);
    }

    private static JsonNode openAiError(RawHttp.Answer a, int status) throws IOException {
        assertEquals(status, a.status(), a.body());
        assertEquals("application/json", a.header("Content-Type"), a.body());
        JsonNode e = JSON.readTree(a.body()).get("error");
        assertEquals(status, e.get("code").asInt(), a.body());
        assertEquals("invalid_request_error", e.get("type").asText(), a.body());
        assertTrue(e.get("param").isNull(), a.body());
        return e;
    }

    @Test
    void aHeaderBlockOverTheLimitIs431NamingTheLimit() throws IOException {
        JsonNode e = openAiError(send("GET /v1/models HTTP/1.1\r\nHost: x\r\nX-Pad: " + "a".repeat(20_000) + "\r\n\r\n"),
                431);
        assertEquals("Request Header Fields Too Large (the request line and headers may take at most 8192 bytes)",
                e.get("message").asText());
    }

    @Test
    void aUriOverTheLimitIs414() throws IOException {
        JsonNode e = openAiError(send("GET /v1/" + "a".repeat(20_000) + " HTTP/1.1\r\nHost: x\r\n\r\n"), 414);
        assertTrue(e.get("message").asText().startsWith("URI Too Long"), e.toString());
    }

    @Test
    void aMalformedRequestLineIs400WithJettysReason() throws IOException {
        JsonNode e = openAiError(send("GARBAGE\r\n\r\n"), 400);
        assertEquals("Bad Request: No URI", e.get("message").asText());
    }

    @Test
    void aHeaderWithoutAColonIs400() throws IOException {
        JsonNode e = openAiError(send("GET /v1/models HTTP/1.1\r\nHost: x\r\nNoColon\r\n\r\n"), 400);
        assertTrue(e.get("message").asText().startsWith("Bad Request: Illegal character"), e.toString());
    }

    @Test
    void anUnknownHttpVersionIs505AServerError() throws IOException {
        RawHttp.Answer a = send("GET /v1/models HTTP/9.9\r\nHost: x\r\n\r\n");
        assertEquals(505, a.status(), a.body());
        assertEquals("server_error", JSON.readTree(a.body()).path("error").path("type").asText(), a.body());
    }

    @Test
    void theServersOwnHandlerIsBackWhenTheComponentStops() throws IOException {
        bodies.deactivate();
        RawHttp.Answer a = send("GARBAGE\r\n\r\n");
        assertEquals(400, a.status());
        assertTrue(a.header("Content-Type").startsWith("text/html"), a.header("Content-Type"));
    }
}
