package org.balanceroute.replay;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.balanceroute.enginesim.SimCluster;
import org.balanceroute.enginesim.SimConfig;
import org.balanceroute.trace.Trace;
import org.balanceroute.trace.TraceRequest;
import org.balanceroute.trace.WorkloadGenerator;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** The replayer over real HTTP against an in-process simulated cluster. */
class ReplayerTest {

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
    void replaysAGeneratedWorkloadAgainstADecodeRank() throws Exception {
        cluster.resetStats();
        Trace trace = new WorkloadGenerator(3, 50).generate(30);
        ReplayResult result = new Replayer(cluster.decodeUrl(0), "balanceroute-sim", 1, 8, null).run(trace.requests());
        assertEquals(30, result.requests());
        assertEquals(30, result.completed(), () -> result.errors().toString());
        assertEquals(0, result.failed());
        long asked = trace.requests().stream().mapToLong(TraceRequest::outputTokens).sum();
        assertEquals(asked, result.outputTokens());
        assertEquals(asked, result.expectedOutputTokens());
        for (RequestOutcome o : result.outcomes()) {
            assertEquals(o.request().outputTokens(), o.outputTokens());
            assertTrue(o.ttftSeconds() > 0 && o.ttftSeconds() < 30, "ttft " + o.ttftSeconds());
            if (o.outputTokens() > 1) {
                assertTrue(o.tpotMillis() > 0, "tpot " + o.tpotMillis());
            }
        }
        assertTrue(result.ttftP50S() <= result.ttftP95S());
        assertTrue(result.throughputTokPerS() > 0);
        // the engine saw the same requests and tokens
        String stats = cluster.statsJson();
        assertTrue(stats.contains("\"completed\":30"), stats);
    }

    @Test
    void severalEndpointsShareTheReplayRoundRobinAndFailuresAreCountedPerEndpoint() throws Exception {
        int port;
        try (ServerSocket s = new ServerSocket(0)) {
            port = s.getLocalPort();
        }
        String dead = "http://127.0.0.1:" + port;
        List<TraceRequest> requests = List.of(new TraceRequest(0, 10, 2, 0), new TraceRequest(0, 10, 3, 0),
                new TraceRequest(0, 10, 4, 0), new TraceRequest(0, 10, 5, 0));
        ReplayResult result = new Replayer(List.of(cluster.decodeUrl(0), dead), "balanceroute-sim", 1, 4, null)
                .run(requests);
        assertEquals(2, result.completed(), () -> result.errors().toString());
        assertEquals(List.of(0, 1, 0, 1), result.outcomes().stream().map(RequestOutcome::target).toList());
        assertEquals(List.of(2, 4), result.outcomes().stream().filter(o -> o.error() == null)
                .map(RequestOutcome::outputTokens).toList(), "the 1st and 3rd went to the live endpoint");
        assertEquals(List.of(0, 2), List.copyOf(result.failedByTarget().values()));
        assertTrue(result.toMap().containsKey("failedByUrl"));
        assertTrue(result.url().contains(", "), result.url());
    }

    @Test
    void continuousUsageAndTheAllRanksEndpoint() throws Exception {
        List<TraceRequest> requests = List.of(new TraceRequest(0, 100, 7, 0), new TraceRequest(0.01, 2000, 1, 0));
        Replayer replayer = new Replayer(cluster.allRanksUrl() + "/v1", null, 1, 4, null).continuousUsage(true);
        assertTrue(replayer.body(requests.get(0)).contains("\"continuous_usage_stats\":true"));
        ReplayResult result = replayer.run(requests);
        assertEquals(2, result.completed(), () -> result.errors().toString());
        assertEquals(8, result.outputTokens());
    }

    @Test
    void theBodyIsATokenIdPrompt() throws Exception {
        Replayer replayer = new Replayer("http://127.0.0.1:1", "m", 1, 1, null);
        String body = replayer.body(new TraceRequest(0, 1002, 5, 0));
        assertTrue(body.startsWith("{\"model\":\"m\",\"prompt\":[1,2,3,"), body.substring(0, 40));
        assertTrue(body.contains(",999,1000,1,2],\"max_tokens\":5,\"ignore_eos\":true,\"stream\":true,"
                + "\"stream_options\":{\"include_usage\":true}}"));
        for (int n : new int[] {1, 999, 1000, 1001, 2000, 2001, 12345}) {
            JsonNode prompt = JSON.readTree(replayer.body(new TraceRequest(0, n, 5, 0))).get("prompt");
            assertEquals(n, prompt.size(), "ids in a prompt of " + n);
            for (int i = 0; i < n; i++) {
                assertEquals(i % Replayer.PROMPT_ID_CYCLE + 1, prompt.get(i).asInt());
            }
        }
    }

    @Test
    void errorsAreNamed() throws Exception {
        // a non-200 answer: the body's message
        ReplayResult wrongModel = new Replayer(cluster.decodeUrl(1), "no-such-model", 1, 2, null)
                .run(List.of(new TraceRequest(0, 10, 2, 0)));
        assertEquals(1, wrongModel.failed());
        String message = wrongModel.errors().keySet().iterator().next();
        assertTrue(message.startsWith("HTTP 404: ") && message.contains("no-such-model"), message);

        // nothing listening
        int port;
        try (ServerSocket s = new ServerSocket(0)) {
            port = s.getLocalPort();
        }
        ReplayResult refused = new Replayer("http://127.0.0.1:" + port, null, 1, 2, null)
                .run(List.of(new TraceRequest(0, 10, 2, 0)));
        assertEquals(List.of("connection refused: nothing listens at 127.0.0.1:" + port),
                List.copyOf(refused.errors().keySet()));

        // a bad URL
        IllegalArgumentException bad = assertThrows(IllegalArgumentException.class,
                () -> new Replayer("localhost:8000", null, 1, 1, null));
        assertTrue(bad.getMessage().contains("bad URL 'localhost:8000'"), bad.getMessage());
    }

    @Test
    void aConnectionThatEndsBeforeAnyAnswerIsSentOnceMoreAndCountedApart() throws Exception {
        String answer = "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nConnection: close\r\n\r\n"
                + "data: {\"choices\":[{\"index\":0,\"text\":\"a\"}]}\n\n"
                + "data: {\"choices\":[],\"usage\":{\"completion_tokens\":1}}\n\ndata: [DONE]\n\n";
        // the first connection is closed after the request head, the next ones answered
        try (ServerSocket server = new ServerSocket(0)) {
            Thread t = new Thread(() -> {
                for (int i = 0; !server.isClosed(); i++) {
                    try (java.net.Socket s = server.accept()) {
                        java.io.InputStream in = s.getInputStream();
                        String head = readHead(in);
                        if (i == 0) {
                            continue; // closed without a byte of an answer
                        }
                        int length = Integer.parseInt(head.replaceAll("(?is).*content-length:\\s*(\\d+).*", "$1"));
                        in.readNBytes(length);
                        s.getOutputStream().write(answer.getBytes(StandardCharsets.UTF_8));
                    } catch (IOException | RuntimeException e) {
                        return;
                    }
                }
            });
            t.setDaemon(true);
            t.start();
            ReplayResult result = new Replayer("http://127.0.0.1:" + server.getLocalPort(), "m", 1, 1, null)
                    .run(List.of(new TraceRequest(0, 10, 1, 0)));
            assertEquals(1, result.completed(), () -> result.errors().toString());
            assertEquals(1, result.retried());
            assertEquals(1, result.toMap().get("retried"));
            assertTrue(result.table().contains("1 sent twice"), result.table());
        }
        // a timeout or a refused connect is an answer, never sent twice
        assertFalse(Replayer.endedBeforeAnyAnswer(new java.net.http.HttpTimeoutException("request timed out")));
        assertFalse(Replayer.endedBeforeAnyAnswer(new java.net.ConnectException("refused")));
        assertTrue(Replayer.endedBeforeAnyAnswer(new IOException("HTTP/1.1 header parser received no bytes")));
    }

    private static String readHead(java.io.InputStream in) throws IOException {
        ByteArrayOutputStream head = new ByteArrayOutputStream();
        int matched = 0;
        for (int b = in.read(); b >= 0; b = in.read()) {
            head.write(b);
            matched = (b == '\r' || b == '\n') ? matched + 1 : 0;
            if (matched == 4) {
                break;
            }
        }
        return head.toString(StandardCharsets.ISO_8859_1);
    }

    @Test
    void urlsAreNormalised() {
        assertEquals("http://h:1/v1/completions", Replayer.completionsUri("http://h:1").toString());
        assertEquals("http://h:1/v1/completions", Replayer.completionsUri("http://h:1/").toString());
        assertEquals("http://h:1/v1/completions", Replayer.completionsUri("http://h:1/v1").toString());
        assertEquals("https://h/x/v1/completions", Replayer.completionsUri("https://h/x/v1/completions").toString());
    }
}
