package org.balanceroute.itests;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.balanceroute.enginesim.SimCluster;
import org.balanceroute.enginesim.SimConfig;
import org.junit.AfterClass;
import org.junit.BeforeClass;
import org.junit.FixMethodOrder;
import org.junit.Test;
import org.junit.runners.MethodSorters;

/**
 * The fleet operated live, against a real runtime process and a simulated cluster of 12 ranks:
 * the pool {@code default} starts as two decode instances of 4 (ranks 0-3 and 4-7); under load of
 * 256 concurrent streams a worker is drained and undrained through the admin API, an instance of
 * ranks 8-11 is added and one removed by editing the pool's file. Every stream must end whole.
 */
@FixMethodOrder(MethodSorters.NAME_ASCENDING)
public class FleetIT {

    static final String MODEL = "balanceroute-sim";
    static final int STREAMS = 256;
    private static final HttpClient HTTP = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();

    private static SimCluster engines;
    private static RuntimeProcess runtime;
    private static Path poolFile;

    @BeforeClass
    public static void start() throws Exception {
        engines = SimCluster.start(SimConfig.builder().prefill(1).decode(12).portBase(0).timeFactor(0.3)
                .streamInterval(4).build());
        Path work = Files.createTempDirectory(Path.of(System.getProperty("java.io.tmpdir")), "balanceroute-fleet");
        runtime = new RuntimeProcess("fleet", work, pool("a", "b")).connector("healthIntervalMillis = 500");
        poolFile = runtime.home.resolve("config").resolve(RuntimeProcess.POOL_FILE);
        runtime.start(null).awaitUp();
        awaitWorkers(8);
    }

    @AfterClass
    public static void stop() throws Exception {
        if (runtime != null) {
            runtime.close();
        }
        if (engines != null) {
            engines.close();
        }
    }

    /** The pool with these of the instances a (ranks 0-3), b (4-7) and c (8-11), in that order. */
    static String pool(String... instances) {
        StringBuilder b = new StringBuilder("model = " + MODEL + "\nprefillUrls = " + engines.prefillUrl(0)
                + "\ninstances = " + String.join(", ", instances) + "\n");
        for (String i : instances) {
            int first = (i.charAt(0) - 'a') * 4;
            b.append("instance.").append(i).append(".workers = ").append(IntStream.range(first, first + 4)
                    .mapToObj(engines::decodeUrl).collect(Collectors.joining(", "))).append('\n');
            b.append("instance.").append(i).append(".capacity = 64\n");
        }
        return b.toString();
    }

    static void awaitWorkers(int n) throws InterruptedException {
        RuntimeProcess.await(n + " workers in the router, every one available", Duration.ofSeconds(30), () -> {
            JsonNode s = runtime.snapshot();
            return s != null && s.path("workers").size() == n && s.path("totals").path("available").asInt() == n;
        });
    }

    /** running + queued of worker g (-1 while the snapshot does not answer or has no such worker). */
    static int outstanding(JsonNode s, int g) {
        if (s == null || s.path("workers").size() <= g) {
            return -1;
        }
        JsonNode w = s.path("workers").get(g);
        return w.path("running").asInt() + w.path("queued").asInt();
    }

    /** STREAMS closed-loop clients sending streamed completions until stopped; counts what failed. */
    static final class Load implements AutoCloseable {
        final AtomicBoolean stop = new AtomicBoolean();
        final AtomicInteger ok = new AtomicInteger();
        final AtomicInteger failed = new AtomicInteger();
        final List<String> failures = java.util.Collections.synchronizedList(new ArrayList<>());
        final List<CompletableFuture<Void>> users = new ArrayList<>();

        /** Each client asks for its own length, 100..355 tokens, so that arrivals are spread in time. */
        Load() {
            for (int u = 0; u < STREAMS; u++) {
                CompletableFuture<Void> done = new CompletableFuture<>();
                users.add(done);
                next(done, 100 + u);
            }
        }

        private void next(CompletableFuture<Void> done, int maxTokens) {
            if (stop.get()) {
                done.complete(null);
                return;
            }
            stream(maxTokens).whenComplete((tokens, e) -> {
                if (e == null && tokens == maxTokens) {
                    ok.incrementAndGet();
                } else {
                    failed.incrementAndGet();
                    failures.add(e != null ? e.toString() : "completion tokens " + tokens);
                }
                next(done, maxTokens);
            });
        }

        /** The stream's completion tokens from its final usage, or -1 when it did not end whole with [DONE]. */
        private static CompletableFuture<Integer> stream(int maxTokens) {
            String body = "{\"model\": \"" + MODEL + "\", \"prompt\": \"" + "tok ".repeat(150) + "\", \"max_tokens\": "
                    + maxTokens + ","
                    + " \"ignore_eos\": true, \"stream\": true, \"stream_options\": {\"include_usage\": true}}";
            HttpRequest request = HttpRequest.newBuilder(URI.create(runtime.base() + "/v1/completions"))
                    .header("Content-Type", "application/json").timeout(Duration.ofSeconds(120))
                    .POST(HttpRequest.BodyPublishers.ofString(body)).build();
            return HTTP.sendAsync(request, HttpResponse.BodyHandlers.ofLines())
                    .thenApply(r -> r.statusCode() != 200 ? -r.statusCode() : RuntimeProcess.completionTokens(r.body()));
        }

        /** Stops sending, waits for every stream in flight to end, and asserts none failed. */
        @Override
        public void close() throws Exception {
            stop.set(true);
            CompletableFuture.allOf(users.toArray(new CompletableFuture[0])).get(180, TimeUnit.SECONDS);
            assertEquals("failed streams (of " + (ok.get() + failed.get()) + "): " + failures.stream().limit(5).toList(),
                    0, failed.get());
            assertTrue("some streams were served", ok.get() > 0);
        }
    }

    static String state(int worker) {
        try {
            JsonNode pools = RuntimeProcess.JSON.readTree(runtime.get("/admin/pools").body());
            for (JsonNode instance : pools.path("pools").get(0).path("instances")) {
                for (JsonNode w : instance.path("workers")) {
                    if (w.path("worker").asInt() == worker) {
                        return w.path("state").asText();
                    }
                }
            }
        } catch (IOException e) {
            return "";
        }
        return "";
    }

    @Test
    public void a_aWorkerDrainedUnderLoadTakesNothingNewItsStreamsEndWholeAndUndrainBringsItBack() throws Exception {
        int g = 5;
        try (Load load = new Load()) {
            RuntimeProcess.await("at least 200 streams in flight and some on worker " + g, Duration.ofSeconds(60), () -> {
                JsonNode s = runtime.snapshot();
                return s != null && s.path("totals").path("running").asInt() + s.path("totals").path("queued").asInt()
                        + s.path("poolDepth").asInt() >= 200 && outstanding(s, g) > 0;
            });
            HttpResponse<String> drain = runtime.post("/admin/pools/default/workers/" + g + "/drain");
            assertEquals(drain.body(), 200, drain.statusCode());
            // from the answer on, nothing is placed there: its running + queued only falls, to 0
            int last = outstanding(runtime.snapshot(), g);
            while (last > 0) {
                int now = outstanding(runtime.snapshot(), g);
                assertTrue("worker " + g + " got a placement after its drain was answered: " + last + " -> " + now,
                        now <= last);
                last = now;
            }
            assertEquals("drained", state(g));
            // one snapshot may catch a neighbour between two streams: any other worker with work will do
            RuntimeProcess.await("the others still serve", Duration.ofSeconds(30), () -> {
                JsonNode s = runtime.snapshot();
                return IntStream.range(0, 8).anyMatch(w -> w != g && outstanding(s, w) > 0);
            });
            HttpResponse<String> undrain = runtime.post("/admin/pools/default/workers/" + g + "/undrain");
            assertEquals(undrain.body(), 200, undrain.statusCode());
            RuntimeProcess.await("placements on worker " + g + " again", Duration.ofSeconds(30),
                    () -> outstanding(runtime.snapshot(), g) > 0);
            assertEquals("serving", state(g));
        }
    }

    @Test
    public void b_anInstanceAddedUnderLoadTakesRequestsAndOneRemovedLosesNoStream() throws Exception {
        try (Load load = new Load()) {
            // steady load, requests arriving all the time: the clients start together, so until streams
            // end none arrives, and an added instance could receive nothing however fast the router
            // (measured: its first placement came 0.08-0.49 s after the layout then, 0-0.08 s in steady load)
            RuntimeProcess.await("as many streams ended as there are clients, at least 200 in flight",
                    Duration.ofSeconds(60), () -> {
                        JsonNode s = runtime.snapshot();
                        return load.ok.get() >= STREAMS && s != null && s.path("totals").path("running").asInt() >= 200;
                    });
            long[] before = rankTokens(8, 12);
            RuntimeProcess.writeWatched(poolFile, pool("a", "b", "c"));
            // measured where it happens, not through the admin API (whose answers take up to a second
            // under this load): the engines of instance c (in this JVM) decoding their first token,
            // against the runtime's own log of the new layout's application (one host, one wall clock)
            long firstToken = 0;
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (firstToken == 0 && System.nanoTime() < deadline) {
                long[] now = rankTokens(8, 12);
                for (int i = 0; i < now.length; i++) {
                    if (now[i] > before[i]) {
                        firstToken = System.currentTimeMillis();
                    }
                }
                Thread.sleep(5);
            }
            assertTrue("instance c's engines decoded nothing within 30 s of the pool's file", firstToken > 0);
            long inForce = layoutAppliedAt("(12 workers)");
            double seconds = (firstToken - inForce) / 1e3;
            RuntimeProcess.await("requests on every worker of instance c", Duration.ofSeconds(10), () -> {
                JsonNode s = runtime.snapshot();
                return IntStream.range(8, 12).allMatch(w -> outstanding(s, w) > 0);
            });
            // a figure, not a bound: on a loaded machine it is as slow as the machine (1.13 s seen
            // under ci-repeat --load); what must hold is that instance c takes requests, above
            System.out.printf("FleetIT: an added instance's engines decoded their first token %.3f s after the router"
                    + " applied the new layout%n", seconds);
            // b removed while its streams run: they end on b's engines, whole
            RuntimeProcess.writeWatched(poolFile, pool("a", "c"));
            RuntimeProcess.await("instance b out of the router", Duration.ofSeconds(30),
                    () -> runtime.snapshot() != null && runtime.snapshot().path("workers").size() == 8);
        }
        RuntimeProcess.await("the router idle", Duration.ofSeconds(60), runtime::idle);
        RuntimeProcess.writeWatched(poolFile, pool("a", "b"));
        awaitWorkers(8);
    }

    @Test
    public void c_anUnknownModelIsTheProxysOwn404() throws Exception {
        HttpResponse<String> r = HTTP.send(HttpRequest.newBuilder(URI.create(runtime.base() + "/v1/completions"))
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString("{\"model\": \"gpt-9\", \"prompt\": \"hi\", \"max_tokens\": 3}"))
                .build(), HttpResponse.BodyHandlers.ofString());
        assertEquals(r.body(), 404, r.statusCode());
        JsonNode error = RuntimeProcess.JSON.readTree(r.body()).path("error");
        assertEquals("NotFoundError", error.path("type").asText());
        assertEquals("model", error.path("param").asText());
        assertEquals(404, error.path("code").asInt());
        assertEquals("The model `gpt-9` does not exist.", error.path("message").asText());
        JsonNode models = RuntimeProcess.JSON.readTree(runtime.get("/v1/models").body());
        assertEquals(MODEL, models.path("data").get(0).path("id").asText());
    }

    /** Pool {@code second}'s file: its own model on its own engines, routed by its own policy. */
    static String secondPool(SimCluster second) {
        return "model = second-model\naliases = second\nprefillUrls = " + second.prefillUrl(0)
                + "\ninstances = d\ninstance.d.workers = " + IntStream.range(0, 4).mapToObj(second::decodeUrl)
                        .collect(Collectors.joining(", ")) + "\npolicy = least-tokens\n";
    }

    /** Pool {@code name} in {@code GET /admin/pools}; null when it is not listed. */
    static JsonNode poolNamed(String name) {
        try {
            for (JsonNode p : RuntimeProcess.JSON.readTree(runtime.get("/admin/pools").body()).path("pools")) {
                if (p.path("pool").asText().equals(name)) {
                    return p;
                }
            }
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
        return null;
    }

    /** A plain completion of {@code model}; the answer's {@code model}, or the status when not 200. */
    static CompletableFuture<String> complete(String model) {
        String body = "{\"model\": \"" + model + "\", \"prompt\": \"" + "tok ".repeat(40) + "\", \"max_tokens\": 8,"
                + " \"ignore_eos\": true}";
        return HTTP.sendAsync(HttpRequest.newBuilder(URI.create(runtime.base() + "/v1/completions"))
                        .header("Content-Type", "application/json").timeout(Duration.ofSeconds(60))
                        .POST(HttpRequest.BodyPublishers.ofString(body)).build(), HttpResponse.BodyHandlers.ofString())
                .thenApply(r -> {
                    try {
                        return r.statusCode() != 200 ? "HTTP " + r.statusCode() + " " + r.body()
                                : RuntimeProcess.JSON.readTree(r.body()).path("model").asText();
                    } catch (IOException e) {
                        return e.toString();
                    }
                });
    }

    @Test
    public void d_aSecondModelAddedLiveIsServedByItsOwnEnginesThroughItsOwnRouterAndPolicy() throws Exception {
        Path file = runtime.home.resolve("config").resolve("org.balanceroute.pool-second.cfg");
        try (SimCluster second = SimCluster.start(SimConfig.builder().prefill(1).decode(4).portBase(0)
                .timeFactor(0.3).model("second-model").build())) {
            RuntimeProcess.writeWatched(file, secondPool(second));
            RuntimeProcess.await("pool second routed, its 4 workers serving", Duration.ofSeconds(30), () -> {
                JsonNode p = poolNamed("second");
                return p != null && p.path("instances").size() == 1
                        && p.path("instances").get(0).path("workers").size() == 4
                        && "serving".equals(p.path("instances").get(0).path("workers").get(3).path("state").asText());
            });
            RuntimeProcess.await("pool second routing with its own policy", Duration.ofSeconds(10),
                    () -> "least-tokens".equals(poolNamed("second").path("activePolicy").asText()));
            assertEquals("br0", poolNamed("default").path("activePolicy").asText());
            engines.resetStats();
            second.resetStats();
            List<CompletableFuture<String>> answers = new ArrayList<>();
            List<String> asked = new ArrayList<>();
            for (int i = 0; i < 40; i++) {
                String model = i % 4 == 0 ? "second" : i % 2 == 0 ? "second-model" : MODEL; // an alias too
                asked.add(model);
                answers.add(complete(model));
            }
            for (int i = 0; i < answers.size(); i++) {
                String expected = asked.get(i).startsWith("second") ? "second-model" : MODEL;
                assertEquals("request " + i + " for " + asked.get(i), expected, answers.get(i).get(60, TimeUnit.SECONDS));
            }
            assertEquals("the first pool's engines served its 20", 20,
                    RuntimeProcess.JSON.readTree(engines.statsJson()).path("completed").asInt());
            assertEquals("the second pool's engines served its 20", 20,
                    RuntimeProcess.JSON.readTree(second.statsJson()).path("completed").asInt());
            assertTrue(RuntimeProcess.JSON.readTree(runtime.get("/v1/models").body()).toString().contains("second-model"));
            // the pool removed: its model is unknown again, the first pool serves on
            Files.delete(file);
            RuntimeProcess.await("pool second gone", Duration.ofSeconds(30), () -> poolNamed("second") == null);
            assertTrue(complete("second-model").get(60, TimeUnit.SECONDS).startsWith("HTTP 404"));
            assertEquals(MODEL, complete(MODEL).get(60, TimeUnit.SECONDS));
        } finally {
            Files.deleteIfExists(file);
        }
    }

    /** Output tokens decoded so far by the engine ranks [from, to) of the simulated cluster. */
    static long[] rankTokens(int from, int to) throws IOException {
        JsonNode ranks = RuntimeProcess.JSON.readTree(engines.statsJson()).path("ranks");
        long[] out = new long[to - from];
        for (int g = from; g < to; g++) {
            out[g - from] = ranks.get(g).path("outputTokens").asLong();
        }
        return out;
    }

    /** Wall-clock ms of the runtime's last log line saying its router applied a layout of {@code workers}, e.g. "(12 workers)". */
    static long layoutAppliedAt(String workers) throws IOException {
        String last = null;
        for (String line : Files.readAllLines(runtime.home.resolve("runtime.log"))) {
            if (line.matches(".*router: the decode pool is now [^ ]+ \\Q" + workers + "\\E.*")) {
                last = line;
            }
        }
        assertTrue("no log line of the layout " + workers, last != null);
        return java.time.LocalDateTime.parse(last.substring(0, 23),
                java.time.format.DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss.SSS"))
                .atZone(java.time.ZoneId.systemDefault()).toInstant().toEpochMilli();
    }
}
