package org.balanceroute.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.balanceroute.enginesim.SimCluster;
import org.balanceroute.enginesim.SimConfig;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** {@code ./balanceroute replay} over real HTTP against an in-process simulated cluster. */
class ReplayCommandTest {

    private static final ObjectMapper JSON = new ObjectMapper();

    private static SimCluster cluster;

    @BeforeAll
    static void start() throws IOException {
        cluster = SimCluster.start(SimConfig.builder().prefill(1).decode(2).portBase(0).timeFactor(0.01).build());
    }

    @AfterAll
    static void stop() {
        cluster.close();
    }

    @Test
    void theCommandPrintsJsonAndNamesBadOptions() throws Exception {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int status = ReplayCommand.run(new String[] {"--url", cluster.decodeUrl(0), "--generate", "5", "--rate", "100",
            "--seed", "9", "--json"}, new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8));
        String json = out.toString(StandardCharsets.UTF_8);
        assertEquals(0, status, err.toString(StandardCharsets.UTF_8));
        assertTrue(json.contains("\"completed\" : 5"), json);
        assertTrue(json.contains("\"ttftP95S\""), json);

        ByteArrayOutputStream err2 = new ByteArrayOutputStream();
        assertEquals(2, ReplayCommand.run(new String[] {"--url", "http://x", "--generate", "0"},
                new PrintStream(new ByteArrayOutputStream()), new PrintStream(err2, true, StandardCharsets.UTF_8)));
        assertTrue(err2.toString(StandardCharsets.UTF_8).contains("--generate must be >= 1"));
        ByteArrayOutputStream out3 = new ByteArrayOutputStream();
        assertEquals(0, ReplayCommand.run(new String[] {"--url", cluster.decodeUrl(0) + "," + cluster.decodeUrl(1),
            "--generate", "4", "--rate", "100", "--json"}, new PrintStream(out3, true, StandardCharsets.UTF_8),
                new PrintStream(new ByteArrayOutputStream())));
        assertTrue(out3.toString(StandardCharsets.UTF_8).contains("\"failedByUrl\""), out3.toString(StandardCharsets.UTF_8));
        assertEquals(2, ReplayCommand.run(new String[] {"--generate", "3"},
                new PrintStream(new ByteArrayOutputStream()), new PrintStream(new ByteArrayOutputStream())));
        assertFalse(json.isEmpty());
    }

    @Test
    void continuousUsageIsAskedForOnlyWithTheOption() throws Exception {
        // a stub endpoint that records each body and answers a one-token stream with usage
        List<String> bodies = new java.util.concurrent.CopyOnWriteArrayList<>();
        com.sun.net.httpserver.HttpServer stub = com.sun.net.httpserver.HttpServer.create(
                new java.net.InetSocketAddress("127.0.0.1", 0), 0);
        stub.createContext("/v1/completions", ex -> {
            bodies.add(new String(ex.getRequestBody().readAllBytes(), StandardCharsets.UTF_8));
            byte[] answer = ("data: {\"choices\":[{\"index\":0,\"text\":\" a\",\"finish_reason\":\"length\"}],"
                    + "\"usage\":{\"prompt_tokens\":1,\"completion_tokens\":1,\"total_tokens\":2}}\n\n"
                    + "data: {\"choices\":[],\"usage\":{\"prompt_tokens\":1,\"completion_tokens\":1,\"total_tokens\":2}}\n\n"
                    + "data: [DONE]\n\n").getBytes(StandardCharsets.UTF_8);
            ex.getResponseHeaders().set("Content-Type", "text/event-stream");
            ex.sendResponseHeaders(200, answer.length);
            ex.getResponseBody().write(answer);
            ex.close();
        });
        stub.start();
        try {
            String url = "http://127.0.0.1:" + stub.getAddress().getPort();
            // one request of one output token
            java.nio.file.Path trace = java.nio.file.Files.createTempFile("replay-one", ".csv");
            java.nio.file.Files.writeString(trace, "arrival_s,input_tokens,output_tokens\n0,4,1\n");
            PrintStream quiet = new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8);
            assertEquals(0, ReplayCommand.run(new String[] {"--url", url, "--trace", trace.toString(), "--model", "m",
                "--continuous-usage"}, quiet, quiet));
            assertEquals(0, ReplayCommand.run(new String[] {"--url", url, "--trace", trace.toString(), "--model", "m"},
                    quiet, quiet));
            java.nio.file.Files.delete(trace);
            assertEquals(2, bodies.size(), bodies.toString());
            JsonNode with = JSON.readTree(bodies.get(0)).path("stream_options");
            JsonNode without = JSON.readTree(bodies.get(1)).path("stream_options");
            assertTrue(with.path("include_usage").asBoolean() && with.path("continuous_usage_stats").asBoolean(),
                    bodies.get(0));
            assertTrue(without.path("include_usage").asBoolean() && !without.has("continuous_usage_stats"), bodies.get(1));
        } finally {
            stub.stop(0);
        }
    }
}
