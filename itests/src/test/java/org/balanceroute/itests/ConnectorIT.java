package org.balanceroute.itests;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.balanceroute.enginesim.SimCluster;
import org.balanceroute.enginesim.SimConfig;
import org.balanceroute.router.RouterService;
import org.junit.Test;

/**
 * The engine connector's issue-5 items end to end, against a simulated cluster in the framework
 * (1 prefill server, 8 decode ranks: the router's default G): a decode rank that fails its health
 * check is ejected from routing under a pool policy (br0) and an arrival policy (jsq) and
 * re-admitted when it is back; a full prefill queue is answered 429; co-located mode reaches the
 * decode ranks with no prefill hop. The engine's own per-rank counts referee where requests went.
 */
public class ConnectorIT extends SimClusterTestSupport {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String MODEL = "balanceroute-sim";
    private static final String CONNECTOR_PID = "org.balanceroute.connector.vllm";
    private static final int G = 8;
    private static final int DOWN = 3;

    private static SimCluster shared;

    /** One cluster for the class; prefill takes about 0.1 s of wall time, so concurrent prefills overlap. */
    private SimCluster startCluster() throws Exception {
        synchronized (ConnectorIT.class) {
            if (shared == null) {
                shared = SimCluster.start(SimConfig.builder().prefill(1).decode(G).portBase(0)
                        .allRanksEndpoint(false).timeFactor(0.05).prefillFixed(2.0).build());
                SimCluster c = shared;
                Runtime.getRuntime().addShutdownHook(new Thread(c::close, "connector-it-sim-cluster"));
            }
        }
        shared.applyFaults("{\"clear\": true}");
        List<String> decode = new ArrayList<>();
        for (int g = 0; g < G; g++) {
            decode.add(shared.decodeUrl(g));
        }
        configureDecode(shared.prefillUrl(0), decode, 64);
        configure(CONNECTOR_PID, "healthIntervalMillis", "100", "prefillMaxInFlight", "64", "prefillQueueMax", "4096");
        await("every endpoint healthy through the proxy's GET /health", () -> health().path("status").asText()
                .equals("ok") && health().path("decode").size() == G && health().path("prefill").size() == 1);
        return shared;
    }

    private JsonNode health() {
        try {
            return JSON.readTree(http("GET", "/health", null, false).body());
        } catch (IOException e) {
            return JSON.createObjectNode();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return JSON.createObjectNode();
        }
    }

    /** The connector's mark of decode worker g, as /health shows it (the router is told before the mark is set). */
    private boolean decodeMarkedUp(int g) {
        return health().path("decode").path(g).asBoolean(false);
    }

    /** Decode worker g's {@code balanceroute_worker_available} on GET /metrics: "1.0", "0.0", or null. */
    private String availableMetric(int g) {
        try {
            String prefix = "balanceroute_worker_available{pool=\"default\",instance=\"decode\",worker=\"" + g + "\",} ";
            for (String line : http("GET", "/metrics", null, false).body().split("\n")) {
                if (line.startsWith(prefix)) {
                    return line.substring(prefix.length()).trim();
                }
            }
            return null;
        } catch (IOException e) {
            return null;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return null;
        }
    }

    /** n completions sent at once; their answers. */
    private List<HttpResponse<String>> concurrently(int n, String body) throws Exception {
        return concurrently(n, "/v1/completions", body);
    }

    private List<HttpResponse<String>> concurrently(int n, String path, String body) throws Exception {
        HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
        List<CompletableFuture<HttpResponse<String>>> sent = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            sent.add(client.sendAsync(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port() + path))
                    .timeout(Duration.ofSeconds(30)).header("Content-Type", "application/json")
                    .POST(HttpRequest.BodyPublishers.ofString(body, StandardCharsets.UTF_8)).build(),
                    HttpResponse.BodyHandlers.ofString()));
        }
        List<HttpResponse<String>> out = new ArrayList<>();
        for (CompletableFuture<HttpResponse<String>> f : sent) {
            out.add(f.get());
        }
        return out;
    }

    private static String completion(int maxTokens) {
        return "{\"model\": \"" + MODEL + "\", \"prompt\": \"hello world\", \"max_tokens\": " + maxTokens
                + ", \"ignore_eos\": true}";
    }

    /** Per rank, the requests the engine completed since the last reset. */
    private static long[] completedByRank(SimCluster cluster) throws IOException {
        JsonNode ranks = JSON.readTree(cluster.statsJson()).path("ranks");
        long[] out = new long[G];
        for (int g = 0; g < G; g++) {
            out[g] = ranks.path(g).path("completed").asLong();
        }
        return out;
    }

    /** 16 requests at once, all answered 200; what each rank completed. */
    private long[] sixteenRequests(SimCluster cluster) throws Exception {
        cluster.resetStats();
        for (HttpResponse<String> r : concurrently(16, completion(40))) {
            assertEquals(r.body(), 200, r.statusCode());
        }
        awaitRouterIdle();
        long[] done = completedByRank(cluster);
        assertEquals(Arrays.toString(done), 16, Arrays.stream(done).sum());
        return done;
    }

    @Test
    public void aDecodeRankFailingItsHealthCheckIsEjectedAndReadmitted() throws Exception {
        SimCluster cluster = startCluster();
        try {
            for (String policy : List.of("br0", "jsq")) {
                configure(RouterService.PID, "policy", policy, "fallbackPolicy", "jsq");
                awaitEquals("policy " + policy + " active", policy, router::activePolicy);

                cluster.applyFaults("{\"rank\": " + DOWN + ", \"down\": true}");
                await("rank " + DOWN + " marked down", () -> !decodeMarkedUp(DOWN));
                await("/metrics to show rank " + DOWN + " out of routing", () -> "0.0".equals(availableMetric(DOWN)));
                long[] done = sixteenRequests(cluster);
                assertEquals(policy + " sent requests to the ejected rank: " + Arrays.toString(done), 0, done[DOWN]);

                cluster.applyFaults("{\"rank\": " + DOWN + ", \"down\": false}");
                await("rank " + DOWN + " marked up", () -> decodeMarkedUp(DOWN));
                await("/metrics to show rank " + DOWN + " back in routing", () -> "1.0".equals(availableMetric(DOWN)));
                done = sixteenRequests(cluster);
                assertTrue(policy + " never used the re-admitted rank: " + Arrays.toString(done), done[DOWN] > 0);
            }
        } finally {
            cluster.applyFaults("{\"clear\": true}");
            configure(RouterService.PID, "policy", "br0", "fallbackPolicy", "jsq");
        }
    }

    @Test
    public void aFullPrefillQueueIsAnswered429WithRetryAfter() throws Exception {
        SimCluster cluster = startCluster();
        try {
            configure(CONNECTOR_PID, "prefillMaxInFlight", "1", "prefillQueueMax", "0");
            List<HttpResponse<String>> busy = new ArrayList<>();
            // the new budget applies once ConfigAdmin delivers it: retry rounds until one is refused
            await("a round of 4 concurrent requests with one refused", () -> {
                try {
                    List<HttpResponse<String>> round = concurrently(4, completion(2));
                    round.stream().filter(r -> r.statusCode() == 429).findFirst().ifPresent(busy::add);
                    return !busy.isEmpty() && round.stream().anyMatch(r -> r.statusCode() == 200);
                } catch (Exception e) {
                    throw new AssertionError(e);
                }
            });
            HttpResponse<String> r = busy.get(0);
            assertEquals("1", r.headers().firstValue("Retry-After").orElse(null));
            JsonNode error = JSON.readTree(r.body()).path("error");
            assertTrue(r.body(), error.path("message").asText().contains("budget"));
            assertEquals(429, error.path("code").asInt());
            awaitRouterIdle();
        } finally {
            configure(CONNECTOR_PID, "prefillMaxInFlight", "64", "prefillQueueMax", "4096");
        }
        await("the default budget back: 4 concurrent requests all answered 200", () -> {
            try {
                return concurrently(4, completion(2)).stream().allMatch(x -> x.statusCode() == 200);
            } catch (Exception e) {
                throw new AssertionError(e);
            }
        });
    }

    @Test
    public void coLocatedModeReachesTheDecodeRanksWithoutAPrefillHop() throws Exception {
        SimCluster cluster = startCluster();
        try {
            // with the prefill server down, only a request that skips the prefill hop can succeed
            cluster.applyFaults("{\"prefill\": 0, \"down\": true}");
            configurePool("prefillUrls", "");
            await("a completion answered 200 with no prefill tier", () -> {
                try {
                    return concurrently(1, completion(5)).get(0).statusCode() == 200;
                } catch (Exception e) {
                    throw new AssertionError(e);
                }
            });
            HttpResponse<String> r = concurrently(1, "/v1/chat/completions", "{\"model\": \"" + MODEL + "\","
                    + " \"messages\": [{\"role\": \"user\", \"content\": \"thirteen char\"}], \"max_tokens\": 3,"
                    + " \"ignore_eos\": true}").get(0);
            assertEquals(r.body(), 200, r.statusCode());
            assertEquals(4, JSON.readTree(r.body()).path("usage").path("prompt_tokens").asInt());
            JsonNode h = health();
            assertEquals(h.toString(), "ok", h.path("status").asText());
            assertEquals(0, h.path("prefill").size());
            awaitRouterIdle();
        } finally {
            cluster.applyFaults("{\"clear\": true}");
            configurePool("prefillUrls", cluster.prefillUrl(0));
        }
    }
}
