package org.balanceroute.itests;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertNotNull;
import static org.junit.Assert.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.balanceroute.enginesim.SimCluster;
import org.balanceroute.enginesim.SimConfig;
import org.junit.After;
import org.junit.Assume;
import org.junit.Test;
import org.balanceroute.router.RouterService;

/**
 * The proxy over real HTTP: the distribution's bundles, the connector pointed (through
 * ConfigAdmin) at a simulated vLLM cluster started in the framework on ephemeral ports, requests
 * sent to the runtime's own port. One cluster for the class (1 prefill, 8 decode ranks: the
 * router's default G), faults and statistics cleared before each test.
 */
public class ProxyIT extends SimClusterTestSupport {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String MODEL = "balanceroute-sim";
    private static final String CONNECTOR_PID = "org.balanceroute.connector.vllm";

    /** One cluster for the class, configured once. */
    private static SimCluster shared;

    private SimCluster startCluster() throws Exception {
        synchronized (ProxyIT.class) {
            if (shared == null) {
                shared = SimCluster.start(SimConfig.builder().prefill(1).decode(8).portBase(0)
                        .allRanksEndpoint(false).timeFactor(0.05).build());
                SimCluster c = shared;
                Runtime.getRuntime().addShutdownHook(new Thread(c::close, "proxy-it-sim-cluster"));
                configureConnector(c);
            }
        }
        shared.applyFaults("{\"clear\": true}");
        shared.resetStats();
        return shared;
    }

    /** As an operator's .cfg edit would: comma-separated strings (FileInstall writes them back as they are). */
    private void configureConnector(SimCluster cluster) throws Exception {
        List<String> decode = new ArrayList<>();
        for (int g = 0; g < 8; g++) {
            decode.add(cluster.decodeUrl(g));
        }
        configureDecode(cluster.prefillUrl(0), decode, 64);
        configure(CONNECTOR_PID, "healthIntervalMillis", "500");
        await("the proxy to reach the simulated cluster (GET /v1/models)", () -> {
            try {
                HttpResponse<String> r = http("GET", "/v1/models", null, false);
                return r.statusCode() == 200 && r.body().contains(MODEL);
            } catch (IOException e) {
                return false;
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return false;
            }
        });
    }

    private HttpResponse<InputStream> post(String path, String body, String requestId) throws Exception {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port() + path))
                .timeout(Duration.ofSeconds(30))
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(body, StandardCharsets.UTF_8));
        if (requestId != null) {
            b.header("X-Request-Id", requestId);
        }
        return HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build()
                .send(b.build(), HttpResponse.BodyHandlers.ofInputStream());
    }

    private static String text(HttpResponse<InputStream> r) throws IOException {
        try (InputStream in = r.body()) {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
    }

    /** The data of every SSE event, in order. */
    private static List<String> events(HttpResponse<InputStream> r) throws IOException {
        List<String> out = new ArrayList<>();
        try (BufferedReader in = new BufferedReader(new InputStreamReader(r.body(), StandardCharsets.UTF_8))) {
            for (String line = in.readLine(); line != null; line = in.readLine()) {
                if (line.startsWith("data: ")) {
                    out.add(line.substring(6));
                }
            }
        }
        return out;
    }

    @Test
    public void streamingChatEndsWithDoneAndTheRequestedTokens() throws Exception {
        {
            SimCluster cluster = startCluster();
            HttpResponse<InputStream> r = post("/v1/chat/completions", "{\"model\": \"" + MODEL + "\", \"messages\":"
                    + " [{\"role\": \"user\", \"content\": \"Tell me about barriers in data-parallel decode.\"}],"
                    + " \"max_tokens\": 24, \"ignore_eos\": true, \"stream\": true,"
                    + " \"stream_options\": {\"include_usage\": true}}", null);
            assertEquals(200, r.statusCode());
            assertTrue(r.headers().firstValue("Content-Type").orElse("").startsWith("text/event-stream"));
            assertTrue(r.headers().firstValue("X-Request-Id").isPresent());
            List<String> events = events(r);
            assertEquals("[DONE]", events.get(events.size() - 1));
            int contentChunks = 0;
            JsonNode usage = null;
            for (String e : events.subList(0, events.size() - 1)) {
                JsonNode chunk = JSON.readTree(e);
                assertFalse("no error in " + e, chunk.has("error"));
                assertEquals("chat.completion.chunk", chunk.path("object").asText());
                for (JsonNode c : chunk.path("choices")) {
                    if (!c.path("delta").path("content").asText("").isEmpty()) {
                        contentChunks++;
                    }
                }
                if (chunk.path("usage").isObject()) {
                    usage = chunk.get("usage");
                }
            }
            assertEquals(24, contentChunks);
            assertNotNull("a usage chunk", usage);
            assertEquals(24, usage.path("completion_tokens").asInt());
            awaitRouterIdle();
            assertEquals(1, JSON.readTree(cluster.statsJson()).path("completed").asInt());
            // the router learned the decode step from this stream's chunks, and /metrics says so
            double step = MetricsIT.scrape(this).getOrDefault("balanceroute_decode_step_seconds{pool=\"default\",}", 0.0);
            assertTrue("observed decode step " + step + " s", step > 0 && step < 1);
        }
    }

    @Test
    public void nonStreamingCompletionCarriesTheKvHandleAndUsage() throws Exception {
        {
            SimCluster cluster = startCluster();
            String prompt = "0123456789abcdefghij0123456789abcdefghij"; // 40 characters: 10 tokens in the simulation
            HttpResponse<InputStream> r = post("/v1/completions", "{\"model\": \"" + MODEL + "\", \"prompt\": \""
                    + prompt + "\", \"max_tokens\": 7, \"ignore_eos\": true}", "it-request-42");
            String body = text(r);
            // a decode request without the prefill's handle (or with a forged one) gets 400 from the simulation
            assertEquals(body, 200, r.statusCode());
            assertEquals("it-request-42", r.headers().firstValue("X-Request-Id").orElse(null));
            JsonNode answer = JSON.readTree(body);
            assertEquals("text_completion", answer.path("object").asText());
            assertEquals(7, answer.path("usage").path("completion_tokens").asInt());
            assertEquals(10, answer.path("usage").path("prompt_tokens").asInt());
            assertEquals("length", answer.path("choices").get(0).path("finish_reason").asText());
            awaitRouterIdle();
        }
    }

    @Test
    public void metricsCountTheOutcomeTtftTpotAndOutputTokensOfEachRequest() throws Exception {
        startCluster();
        await("GET /metrics", () -> MetricsIT.scrape(this).containsKey("balanceroute_requests_total{outcome=\"ok\",}"));
        Map<String, Double> before = MetricsIT.scrape(this);
        HttpResponse<InputStream> r = post("/v1/chat/completions", "{\"model\": \"" + MODEL + "\", \"messages\":"
                + " [{\"role\": \"user\", \"content\": \"Count to eight.\"}],"
                + " \"max_tokens\": 8, \"ignore_eos\": true, \"stream\": true}", null);
        assertEquals(200, r.statusCode());
        List<String> events = events(r);
        assertEquals("[DONE]", events.get(events.size() - 1));
        HttpResponse<InputStream> plain = post("/v1/completions", "{\"model\": \"" + MODEL + "\", \"prompt\": \"x\","
                + " \"max_tokens\": 5, \"ignore_eos\": true}", null);
        assertEquals(200, plain.statusCode());
        plain.body().readAllBytes();
        awaitRouterIdle();
        assertEquals(400, post("/v1/completions", "{\"prompt\": \"x\"}", null).statusCode());
        String tokens = "balanceroute_output_tokens_total";
        await("the stream's 8 output tokens and the plain answer's 5 counted", () ->
                MetricsIT.scrape(this).get(tokens) >= before.get(tokens) + 13);
        assertEquals("exactly those", before.get(tokens) + 13, MetricsIT.scrape(this).get(tokens), 0.0);
        String ok = "balanceroute_requests_total{outcome=\"ok\",}";
        String rejected = "balanceroute_requests_total{outcome=\"rejected\",}";
        String ttft = "balanceroute_time_to_first_token_seconds_count";
        String tpot = "balanceroute_time_per_output_token_seconds_count";
        await("the stream counted ok with its TTFT and TPOT, the bad request rejected", () -> {
            Map<String, Double> after = MetricsIT.scrape(this);
            return after.get(ok) >= before.get(ok) + 2 && after.get(rejected) >= before.get(rejected) + 1
                    && after.get(ttft) >= before.get(ttft) + 1 && after.get(tpot) >= before.get(tpot) + 1;
        });
        Map<String, Double> after = MetricsIT.scrape(this);
        assertTrue("a TTFT was observed", after.get("balanceroute_time_to_first_token_seconds_sum") > 0);
        assertTrue("a TPOT was observed", after.get("balanceroute_time_per_output_token_seconds_sum") > 0);
    }

    @Test
    public void badInputIsAnsweredWithOpenAiErrors() throws Exception {
        awaitEquals("the proxy's resources", 400, () -> {
            try {
                return post("/v1/completions", "{\"prompt\": \"x\"}", null).statusCode();
            } catch (Exception e) {
                return -1;
            }
        });
        assertError(post("/v1/completions", "{\"prompt\": \"x\"}", null), 400, "model");
        assertError(post("/v1/completions", "{\"model\": \"m\"}", null), 400, "prompt");
        assertError(post("/v1/chat/completions", "{\"model\": \"m\"}", null), 400, "messages");
        assertError(post("/v1/completions", "{\"model\": \"m\", \"prompt\": \"x\", \"max_tokens\": 0}", null), 400,
                "max_tokens");
        assertError(post("/v1/completions", "{not json", null), 400, null);
        String big = "{\"model\": \"m\", \"prompt\": \"" + "x".repeat(5 * 1024 * 1024) + "\"}";
        assertError(post("/v1/completions", big, null), 413, null);
    }

    private static void assertError(HttpResponse<InputStream> r, int status, String param) throws IOException {
        String body = text(r);
        assertEquals(body, status, r.statusCode());
        JsonNode error = JSON.readTree(body).path("error");
        assertTrue(body, error.path("message").isTextual());
        assertTrue(body, error.path("type").isTextual());
        if (param == null) {
            assertTrue(body, error.path("param").isNull());
        } else {
            assertEquals(body, param, error.path("param").asText());
        }
    }

    @Test
    public void upstreamFailuresBeforeAndDuringStreaming() throws Exception {
        {
            SimCluster cluster = startCluster();
            String request = "{\"model\": \"" + MODEL + "\", \"prompt\": \"hello world\", \"max_tokens\": 30,"
                    + " \"ignore_eos\": true, \"stream\": true}";
            for (int g = 0; g < 8; g++) {
                cluster.applyFaults("{\"rank\": " + g + ", \"failNext\": 1}");
            }
            String errors = "balanceroute_requests_total{outcome=\"error\",}";
            await("GET /metrics", () -> MetricsIT.scrape(this).containsKey(errors));
            double errorsBefore = MetricsIT.scrape(this).get(errors);
            HttpResponse<InputStream> before = post("/v1/completions", request, null);
            String body = text(before);
            assertEquals(body, 500, before.statusCode());
            assertTrue(body, JSON.readTree(body).path("error").path("message").isTextual());
            awaitRouterIdle();

            cluster.applyFaults("{\"clear\": true}");
            for (int g = 0; g < 8; g++) {
                cluster.applyFaults("{\"rank\": " + g + ", \"cutAfterTokens\": 5}");
            }
            HttpResponse<InputStream> during = post("/v1/completions", request, null);
            assertEquals(200, during.statusCode());
            List<String> events = events(during);
            assertEquals("[DONE]", events.get(events.size() - 1));
            assertTrue(events.toString(), JSON.readTree(events.get(events.size() - 2)).path("error").isObject());
            awaitRouterIdle();
            await("both failures counted as errors", () -> MetricsIT.scrape(this).get(errors) >= errorsBefore + 2);
        }
    }

    @Test
    public void clientDisconnectReleasesTheLoad() throws Exception {
        {
            SimCluster cluster = startCluster();
            String disconnects = "balanceroute_requests_total{outcome=\"client_disconnect\",}";
            await("GET /metrics", () -> MetricsIT.scrape(this).containsKey(disconnects));
            double disconnectsBefore = MetricsIT.scrape(this).get(disconnects);
            HttpResponse<InputStream> r = post("/v1/completions", "{\"model\": \"" + MODEL + "\", \"prompt\":"
                    + " \"a long one\", \"max_tokens\": 20000, \"ignore_eos\": true, \"stream\": true}", null);
            assertEquals(200, r.statusCode());
            InputStream in = r.body();
            BufferedReader reader = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8));
            int seen = 0;
            for (String line = reader.readLine(); line != null && seen < 3; line = reader.readLine()) {
                if (line.startsWith("data: ")) {
                    seen++;
                }
            }
            await("tokens reported to the router", () -> Arrays.stream(router.snapshot().loads()).sum() > 0);
            in.close();
            awaitRouterIdle();
            await("the disconnect counted", () -> MetricsIT.scrape(this).get(disconnects) >= disconnectsBefore + 1);
        }
    }

    // ---------------------------------------------------------------- waiting in the prompt pool

    private static final String PROXY_PID = "org.balanceroute.proxy";
    /** A policy nobody registers: with it configured and as fallback, every request waits in the pool. */
    private static final String HOLD = "it-hold-in-pool";

    /** Sets proxy properties and waits until the component runs with them (DS publishes them as service properties). */
    private void configureProxy(String... keyValues) throws Exception {
        configure(PROXY_PID, (Object[]) keyValues);
        StringBuilder filter = new StringBuilder("(&(component.name=" + PROXY_PID + ")");
        for (int i = 0; i < keyValues.length; i += 2) {
            filter.append('(').append(keyValues[i]).append('=').append(keyValues[i + 1]).append(')');
        }
        String f = filter.append(')').toString();
        await("the proxy configured with " + f, () -> {
            try {
                return context.getAllServiceReferences(null, f) != null;
            } catch (org.osgi.framework.InvalidSyntaxException e) {
                throw new IllegalArgumentException(e);
            }
        });
    }

    /** Every test leaves the router and the proxy as configured in the distribution, whatever it changed. */
    @After
    public void restoreRouterAndProxy() throws Exception {
        restoreRouterPolicy();
        restoreProxyDefaults();
    }

    private void restoreProxyDefaults() throws Exception {
        configureProxy("maxPoolDepth", "4096", "retryAfterSeconds", "1", "placementTimeoutMillis", "300000",
                "pingIntervalMillis", "15000");
    }

    /** No policy available: requests stay in the prompt pool. */
    private void holdRequestsInThePool() throws Exception {
        configure(RouterService.PID, "policy", HOLD, "fallbackPolicy", HOLD);
        awaitEquals("no active policy", RouterService.NO_POLICY, router::activePolicy);
    }

    /** jsq routes at arrival, so the requests held in the pool are placed at once; then the default br0. */
    private void releaseThePool() throws Exception {
        configure(RouterService.PID, "policy", "jsq", "fallbackPolicy", "jsq");
        awaitEquals("jsq active", "jsq", router::activePolicy);
        await("the pool empty", () -> router.poolDepth() == 0);
    }

    private void restoreRouterPolicy() throws Exception {
        configure(RouterService.PID, "policy", "br0", "fallbackPolicy", "jsq");
        awaitEquals("br0 active", "br0", router::activePolicy);
    }

    private CompletableFuture<HttpResponse<String>> postAsync(String path, String body) {
        return HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build().sendAsync(
                HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port() + path)).timeout(Duration.ofSeconds(30))
                        .header("Content-Type", "application/json")
                        .POST(HttpRequest.BodyPublishers.ofString(body, StandardCharsets.UTF_8)).build(),
                HttpResponse.BodyHandlers.ofString());
    }

    private static String completion(int maxTokens, boolean stream) {
        return "{\"model\": \"" + MODEL + "\", \"prompt\": \"waiting for a worker\", \"max_tokens\": " + maxTokens
                + ", \"ignore_eos\": true, \"stream\": " + stream + "}";
    }

    @Test
    public void aFullPoolIsAnswered429WithRetryAfterBeforeThePrefill() throws Exception {
        SimCluster cluster = startCluster();
        String rejected = "balanceroute_requests_total{outcome=\"rejected\",}";
        await("GET /metrics", () -> MetricsIT.scrape(this).containsKey(rejected));
        configureProxy("maxPoolDepth", "1", "retryAfterSeconds", "2", "pingIntervalMillis", "0");
        holdRequestsInThePool();
        CompletableFuture<HttpResponse<String>> waiting = postAsync("/v1/completions", completion(3, false));
        await("one request in the pool", () -> router.poolDepth() == 1);
        // a prefill of the refused request would use up this fault (its retry would then succeed)
        cluster.applyFaults("{\"prefill\": 0, \"failNext\": 1}");
        double rejectedBefore = MetricsIT.scrape(this).get(rejected);

        HttpResponse<InputStream> refused = post("/v1/completions", completion(3, false), null);
        assertEquals("2", refused.headers().firstValue("Retry-After").orElse(null));
        String body = text(refused);
        assertEquals(body, 429, refused.statusCode());
        JsonNode error = JSON.readTree(body).path("error");
        assertTrue(body, error.path("message").asText().contains("prompt pool is full"));
        assertTrue(body, error.path("type").isTextual() && error.has("param") && error.has("code"));
        String faults = HttpClient.newHttpClient().send(HttpRequest.newBuilder(
                URI.create(cluster.prefillUrl(0) + "/sim/faults")).build(), HttpResponse.BodyHandlers.ofString()).body();
        assertEquals("no prefill for the refused request: " + faults, 1,
                JSON.readTree(faults).path("prefill").path(0).path("failNext").asInt());
        cluster.applyFaults("{\"clear\": true}");
        await("the refusal counted", () -> MetricsIT.scrape(this).get(rejected) >= rejectedBefore + 1);

        releaseThePool();
        assertEquals(200, waiting.get().statusCode());
        awaitRouterIdle();
    }

    @Test
    public void aRequestWaitingTooLongInThePoolGets503AndTheProxyKeepsServing() throws Exception {
        startCluster();
        configureProxy("placementTimeoutMillis", "400", "pingIntervalMillis", "0");
        holdRequestsInThePool();
        HttpResponse<InputStream> r = post("/v1/completions", completion(3, true), null);
        String body = text(r);
        assertEquals(body, 503, r.statusCode());
        JsonNode error = JSON.readTree(body).path("error");
        assertTrue(body, error.path("message").asText().contains("waited more than 400 ms"));
        assertTrue(body, error.path("type").isTextual());
        awaitRouterIdle();
        assertEquals(0, router.poolDepth());

        restoreRouterPolicy();
        HttpResponse<InputStream> next = post("/v1/completions", completion(4, false), null);
        assertEquals(text(next), 200, next.statusCode());
        awaitRouterIdle();
    }

    @Test
    public void aStreamWaitingInThePoolIsPingedThenTimesOutInBand() throws Exception {
        startCluster();
        configureProxy("placementTimeoutMillis", "1500", "pingIntervalMillis", "200");
        holdRequestsInThePool();
        HttpResponse<InputStream> r = post("/v1/completions", completion(3, true), null);
        assertEquals("committed early", 200, r.statusCode());
        assertTrue(r.headers().firstValue("Content-Type").orElse("").startsWith("text/event-stream"));
        String stream = text(r);
        assertTrue(stream, stream.startsWith(": ping\n\n: ping\n\n"));
        List<String> data = new ArrayList<>();
        for (String line : stream.split("\n")) {
            if (line.startsWith("data: ")) {
                data.add(line.substring(6));
            }
        }
        assertEquals(stream, 2, data.size());
        assertEquals(stream, 503, JSON.readTree(data.get(0)).path("error").path("code").asInt());
        assertEquals("[DONE]", data.get(1));
        awaitRouterIdle();
    }

    @Test
    public void aPingedStreamContinuesOnTheSameResponseOncePlaced() throws Exception {
        startCluster();
        configureProxy("pingIntervalMillis", "200");
        holdRequestsInThePool();
        HttpResponse<InputStream> r = post("/v1/completions", completion(6, true), null);
        assertEquals(200, r.statusCode());
        BufferedReader reader = new BufferedReader(new InputStreamReader(r.body(), StandardCharsets.UTF_8));
        assertEquals(": ping", reader.readLine());
        releaseThePool();
        List<String> data = new ArrayList<>();
        for (String line = reader.readLine(); line != null; line = reader.readLine()) {
            if (line.startsWith("data: ")) {
                data.add(line.substring(6));
            }
        }
        reader.close();
        assertEquals(data.toString(), "[DONE]", data.get(data.size() - 1));
        int tokens = 0;
        for (String e : data.subList(0, data.size() - 1)) {
            JsonNode chunk = JSON.readTree(e);
            assertFalse(e, chunk.has("error"));
            tokens += chunk.path("choices").path(0).path("text").asText("").isEmpty() ? 0 : 1;
        }
        assertEquals(6, tokens);
        awaitRouterIdle();
    }

    @Test
    public void aClientThatLeavesWhileInThePoolIsTakenOutAtOnce() throws Exception {
        startCluster();
        String disconnects = "balanceroute_requests_total{outcome=\"client_disconnect\",}";
        await("GET /metrics", () -> MetricsIT.scrape(this).containsKey(disconnects));
        double disconnectsBefore = MetricsIT.scrape(this).get(disconnects);
        configureProxy("pingIntervalMillis", "100");
        holdRequestsInThePool();
        HttpResponse<InputStream> r = post("/v1/completions", completion(5, true), null);
        assertEquals(200, r.statusCode());
        InputStream in = r.body();
        assertEquals(':', in.read());
        await("the request in the pool", () -> router.poolDepth() == 1);
        in.close();
        await("the pool empty", () -> router.poolDepth() == 0);
        awaitRouterIdle();
        await("the disconnect counted", () -> MetricsIT.scrape(this).get(disconnects) >= disconnectsBefore + 1);
    }

    /**
     * The official {@code openai} npm client streams a chat completion through the proxy (the
     * script bundles/engine-sim's OpenAiNodeClientTest runs against a decode rank). Skipped
     * without node or the package ({@code .ci/run} installs both).
     */
    @Test
    public void theOfficialOpenAiClientStreamsThroughTheProxy() throws Exception {
        String dir = System.getenv("BALANCEROUTE_OPENAI_NODE_MODULES");
        if (dir == null || dir.isBlank()) {
            dir = System.getProperty("user.home") + "/.cache/balanceroute-npm/node_modules";
        }
        java.nio.file.Path modules = java.nio.file.Path.of(dir);
        Assume.assumeTrue("the openai npm package in " + modules,
                java.nio.file.Files.isRegularFile(modules.resolve("openai/package.json")));
        Assume.assumeTrue("node on the PATH", nodeAvailable());
        startCluster();
        Process p = new ProcessBuilder("node", System.getProperty("balanceroute.openai.script"),
                modules.toAbsolutePath().toString(), "http://127.0.0.1:" + port(), "13")
                .redirectErrorStream(true).start();
        byte[] out = p.getInputStream().readAllBytes();
        assertTrue("node did not finish", p.waitFor(60, java.util.concurrent.TimeUnit.SECONDS));
        String stdout = new String(out, StandardCharsets.UTF_8);
        assertEquals(stdout, 0, p.exitValue());
        JsonNode result = JSON.readTree(stdout);
        assertEquals(stdout, 13, result.path("contentChunks").asInt());
        assertEquals(stdout, 13, result.path("usage").path("completion_tokens").asInt());
        assertEquals(stdout, "length", result.path("finishReason").asText());
        assertEquals(stdout, "assistant", result.path("role").asText());
        awaitRouterIdle();
    }

    private static boolean nodeAvailable() {
        try {
            Process p = new ProcessBuilder("node", "--version").redirectErrorStream(true).start();
            p.getInputStream().readAllBytes();
            return p.waitFor(20, java.util.concurrent.TimeUnit.SECONDS) && p.exitValue() == 0;
        } catch (Exception e) {
            return false;
        }
    }
}
