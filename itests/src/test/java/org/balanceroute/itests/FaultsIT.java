package org.balanceroute.itests;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.balanceroute.enginesim.SimCluster;
import org.balanceroute.enginesim.SimConfig;
import org.balanceroute.testkit.RawHttp;
import org.junit.After;
import org.junit.AfterClass;
import org.junit.BeforeClass;
import org.junit.FixMethodOrder;
import org.junit.Test;
import org.junit.runners.MethodSorters;

/**
 * Faults through the simulated cluster's fault knobs ({@code POST /sim/faults}) and the OS (a port
 * that accepts and closes, a client socket that stops reading), against a real runtime process:
 * each with its expected outcome, and after each the router's snapshot back to no load. The
 * connector checks health every 200 ms here (5 s by default), so that marks follow faults quickly.
 */
@FixMethodOrder(MethodSorters.NAME_ASCENDING)
public class FaultsIT {

    static final String MODEL = "balanceroute-sim";
    static final int DECODE = 4;
    /** A KV handle lives this long here (vLLM: 480 s), so that one can expire in a test. */
    static final double HANDLE_TTL_SECONDS = 3;
    /**
     * The longest wait in the prompt pool (300 s by default): long enough for a request held past
     * the handle's lifetime in e_ and its policy's return, short enough to see the 503 in d_.
     */
    static final long PLACEMENT_TIMEOUT_MILLIS = 8000;
    /** A client that takes nothing for this long is cut (the shipped default is 30 s). */
    static final long CLIENT_STALL_MILLIS = 5000;

    /**
     * The engines' clock for KV handles runs this far ahead of the real one: e_ moves it past a
     * handle's lifetime instead of waiting that lifetime out.
     */
    private static final AtomicLong handleClockAheadNanos = new AtomicLong();
    private static SimCluster engines;
    private static RuntimeProcess runtime;
    private static ServerSocket closer;
    private static String pool;

    @BeforeClass
    public static void start() throws Exception {
        engines = SimCluster.start(SimConfig.builder().prefill(2).decode(DECODE).portBase(0).timeFactor(0.01)
                .handleTtlSeconds(HANDLE_TTL_SECONDS)
                .handleClockNanos(() -> System.nanoTime() + handleClockAheadNanos.get()).build());
        closer = closingPort();
        Path work = Files.createTempDirectory(Path.of(System.getProperty("java.io.tmpdir")), "balanceroute-faults");
        pool = RuntimeProcess.poolConfig(engines, 2, DECODE);
        runtime = new RuntimeProcess("faults", work, pool).connector("healthIntervalMillis = 200")
                .javaOpts("-Xmx512m -Dfelix.fileinstall.enableConfigSave=false");
        Path proxy = runtime.home.resolve("config").resolve("org.balanceroute.proxy.cfg");
        // A client that stops reading (h_) is cut after CLIENT_STALL_MILLIS, not the shipped 30 s: the suite's time.
        Files.writeString(proxy, Files.readString(proxy)
                .replaceAll("(?m)^placementTimeoutMillis = .*$", "placementTimeoutMillis = " + PLACEMENT_TIMEOUT_MILLIS)
                .replaceAll("(?m)^clientStallMillis = .*$", "clientStallMillis = " + CLIENT_STALL_MILLIS));
        runtime.start(null).awaitUp();
    }

    static String pool(String prefill, String decode) {
        return RuntimeProcess.poolConfig(prefill, decode);
    }

    @AfterClass
    public static void stop() throws Exception {
        if (runtime != null) {
            runtime.close();
        }
        if (engines != null) {
            engines.close();
        }
        if (closer != null) {
            closer.close();
        }
    }

    /** Every fault cleared, the engine set as at the start, the snapshot back to no load, and a request served. */
    @After
    public void healed() throws Exception {
        engines.applyFaults("{\"clear\": true}");
        for (int g = 0; g < DECODE; g++) {
            engines.applyFaults("{\"rank\": " + g + ", \"down\": false}");
        }
        for (int i = 0; i < 2; i++) {
            engines.applyFaults("{\"prefill\": " + i + ", \"down\": false}");
        }
        Path cfg = runtime.home.resolve("config").resolve(RuntimeProcess.POOL_FILE);
        if (!Files.readString(cfg).equals(pool)) {
            RuntimeProcess.writeWatched(cfg, pool);
            RuntimeProcess.await("every decode worker back", Duration.ofSeconds(20), () -> workers() == DECODE);
        }
        RuntimeProcess.await("every worker available", Duration.ofSeconds(20), () -> {
            JsonNode s = runtime.snapshot();
            return s != null && s.path("totals").path("available").asInt() == DECODE;
        });
        awaitIdle();
        assertEquals(200, complete(false, 4).status());
    }

    // ------------------------------------------------------------------------------------ the faults

    @Test
    public void a_aDecodeRankDyingMidStreamEndsItsStreamsInBandAndReleasesTheLoadAtOnce() throws Exception {
        int n = 8;
        List<CompletableFuture<RawHttp.Answer>> streams = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            streams.add(async(() -> complete(true, 20_000)));
        }
        RuntimeProcess.await("every stream running", Duration.ofSeconds(20), () -> running() == n);
        // placed is not yet streaming: a decode request still on its way when the rank goes down is
        // answered 503 by the engine before any byte (a clear error, but not this case's)
        RuntimeProcess.await("every stream running in the engine", Duration.ofSeconds(20), () -> engineRunning() == n);
        int victim = busiest();
        engines.applyFaults("{\"rank\": " + victim + ", \"down\": true}");
        long downAt = System.nanoTime();
        RuntimeProcess.await("the dead rank's load released", Duration.ofSeconds(5), () -> load(victim) == 0);
        double released = (System.nanoTime() - downAt) / 1e6;
        RuntimeProcess.await("the dead rank's streams ended", Duration.ofSeconds(10),
                () -> streams.stream().anyMatch(CompletableFuture::isDone));
        int inBand = 0;
        for (CompletableFuture<RawHttp.Answer> f : streams) {
            if (f.isDone()) {
                RawHttp.Answer a = f.get();
                assertEquals(200, a.status());
                assertTrue(a.body(), a.body().trim().endsWith("data: [DONE]"));
                if (a.body().contains("\"error\"")) {
                    inBand++;
                }
            }
        }
        System.out.printf("FaultsIT: rank %d down mid-stream: its load released in %.0f ms, %d stream(s) ended with an"
                + " in-band error then [DONE]%n", victim, released, inBand);
        assertTrue("the dead rank's streams ended in-band", inBand >= 1);
        RuntimeProcess.await("the dead rank out of routing", Duration.ofSeconds(5), () -> !available(victim));
        assertEquals("a request after it goes to a live rank", 200, complete(false, 4).status());
        for (CompletableFuture<RawHttp.Answer> f : streams) {
            RawHttp.Answer r = f.get(60, TimeUnit.SECONDS);
            assertTrue("every stream ends with [DONE], in-band error or not: " + r.body(), r.status() == 200
                    && r.body().trim().endsWith("data: [DONE]"));
        }
    }

    @Test
    public void b_aSlowRankSlowsTheBarrierAndLosesNothing() throws Exception {
        engines.applyFaults("{\"rank\": 0, \"slowFactor\": 5}");
        List<CompletableFuture<RawHttp.Answer>> all = new ArrayList<>();
        for (int i = 0; i < 24; i++) {
            all.add(async(() -> complete(true, 30)));
        }
        for (CompletableFuture<RawHttp.Answer> f : all) {
            RawHttp.Answer a = f.get(60, TimeUnit.SECONDS);
            assertEquals(a.body(), 200, a.status());
            assertTrue(a.body(), a.body().contains("\"completion_tokens\":30") && a.body().trim().endsWith("[DONE]"));
        }
    }

    @Test
    public void c_aPrefillServerDownIsSkippedAndBothDownIsAClearError() throws Exception {
        engines.applyFaults("{\"prefill\": 0, \"down\": true}");
        for (int i = 0; i < 10; i++) {
            RawHttp.Answer a = complete(false, 3);
            assertEquals("one prefill down: retried on the other: " + a.body(), 200, a.status());
        }
        engines.applyFaults("{\"prefill\": 1, \"down\": true}");
        RawHttp.Answer a = complete(false, 3);
        System.out.printf("FaultsIT: every prefill server down: %d %s%n", a.status(), a.body());
        assertEquals(a.body(), 503, a.status());
        assertTrue(a.body(), RuntimeProcess.JSON.readTree(a.body()).path("error").path("message").isTextual());
    }

    @Test
    public void d_everyDecodeWorkerDownWaitsUpToThePlacementBoundThenAClear503OrIsServedWhenOneIsBack() throws Exception {
        for (int g = 0; g < DECODE; g++) {
            engines.applyFaults("{\"rank\": " + g + ", \"down\": true}");
        }
        RuntimeProcess.await("every worker marked down", Duration.ofSeconds(5), () -> {
            JsonNode s = runtime.snapshot();
            return s != null && s.path("totals").path("available").asInt() == 0;
        });
        long t0 = System.nanoTime();
        CompletableFuture<RawHttp.Answer> streaming = async(() -> complete(true, 3));
        RawHttp.Answer a = complete(false, 3);
        double ms = (System.nanoTime() - t0) / 1e6;
        System.out.printf("FaultsIT: every decode worker down: %d in %.0f ms: %s%n", a.status(), ms, a.body());
        assertEquals(a.body(), 503, a.status());
        JsonNode error = RuntimeProcess.JSON.readTree(a.body()).path("error");
        assertTrue(a.body(), error.path("message").asText().contains("waited more than " + PLACEMENT_TIMEOUT_MILLIS + " ms"));
        assertTrue("waited the bound, not failed fast: " + ms, ms >= PLACEMENT_TIMEOUT_MILLIS * 0.95);
        assertTrue("answered soon after the bound: " + ms, ms < PLACEMENT_TIMEOUT_MILLIS + 10_000);
        RawHttp.Answer s = streaming.get(30, TimeUnit.SECONDS);
        assertTrue("streaming: 503 or an in-band error: " + s.body(), s.status() == 503
                || s.status() == 200 && s.body().contains("\"error\"") && s.body().trim().endsWith("[DONE]"));

        // a worker back within the bound: the waiting request is served (the health check's
        // re-admission places it, no other arrival needed)
        CompletableFuture<RawHttp.Answer> waiting = async(() -> complete(false, 3));
        RuntimeProcess.await("the request waiting in the pool", Duration.ofSeconds(5), () -> {
            JsonNode snap = runtime.snapshot();
            return snap != null && snap.path("poolDepth").asInt() == 1;
        });
        long back = System.nanoTime();
        engines.applyFaults("{\"rank\": 0, \"down\": false}");
        RawHttp.Answer b = waiting.get(30, TimeUnit.SECONDS);
        System.out.printf("FaultsIT: a decode worker back: the waiting request %d %.0f ms after: %s%n", b.status(),
                (System.nanoTime() - back) / 1e6, b.body());
        assertEquals(b.body(), 200, b.status());
        assertTrue(b.body(), b.body().contains("\"completion_tokens\":3"));
    }

    @Test
    public void e_anExpiredKvHandleIsTheEnginesClear400AndNotRetried() throws Exception {
        Path router = runtime.home.resolve("config").resolve("org.balanceroute.router.cfg");
        String original = Files.readString(router);
        // no policy at all: a request waits in the pool past the handle's lifetime
        RuntimeProcess.writeWatched(router, original.replaceAll("(?m)^policy = .*$", "policy = it-hold")
                .replaceAll("(?m)^fallbackPolicy = .*$", "fallbackPolicy = it-hold"));
        RuntimeProcess.await("no policy active", Duration.ofSeconds(10), () -> !runtime.activePolicy().equals("br0"));
        CompletableFuture<RawHttp.Answer> waiting = async(() -> complete(false, 3));
        RuntimeProcess.await("the request in the pool", Duration.ofSeconds(10), () -> {
            JsonNode s = runtime.snapshot();
            return s != null && s.path("poolDepth").asInt() == 1;
        });
        handleClockAheadNanos.addAndGet((long) ((HANDLE_TTL_SECONDS + 1) * 1e9)); // past the handle's lifetime
        RuntimeProcess.writeWatched(router, original);
        RawHttp.Answer a = waiting.get(30, TimeUnit.SECONDS);
        System.out.printf("FaultsIT: a KV handle expired in the pool: %d %s%n", a.status(), a.body());
        assertEquals(a.body(), 400, a.status());
        JsonNode error = RuntimeProcess.JSON.readTree(a.body()).path("error");
        assertEquals(a.body(), "kv_transfer_params", error.path("param").asText());
        assertTrue(a.body(), error.path("message").asText().contains("expired"));
        RuntimeProcess.await("br0 back", Duration.ofSeconds(10), () -> runtime.activePolicy().equals("br0"));
    }

    @Test
    public void f_engine4xxAnd5xxAreRelayedAndPrefill5xxIsRetried() throws Exception {
        for (int g = 0; g < DECODE; g++) {
            engines.applyFaults("{\"rank\": " + g + ", \"failNext\": 1}");
        }
        RawHttp.Answer a = complete(false, 3);
        assertEquals("the decode's 500 relayed: " + a.body(), 500, a.status());
        assertTrue(a.body(), RuntimeProcess.JSON.readTree(a.body()).path("error").isObject());
        engines.applyFaults("{\"clear\": true}");
        engines.applyFaults("{\"prefill\": 0, \"failNext\": 1}");
        engines.applyFaults("{\"prefill\": 1, \"failNext\": 1}");
        RawHttp.Answer b = complete(false, 3);
        assertEquals("a prefill 500 is retried with backoff: " + b.body(), 200, b.status());
        RawHttp.Answer c = post("{\"model\": \"other-model\", \"prompt\": \"hi\", \"max_tokens\": 3}");
        assertEquals("an unknown model is the proxy's own 404, before any engine: " + c.body(), 404, c.status());
    }

    @Test
    public void g_anEngineThatClosesTheConnectionBeforeItsHeaders() throws Exception {
        String closing = "http://127.0.0.1:" + closer.getLocalPort();
        Path cfg = runtime.home.resolve("config").resolve(RuntimeProcess.POOL_FILE);
        // a prefill instance that closes every connection: skipped (retried on a real one)
        RuntimeProcess.writeWatched(cfg, pool(closing + ", " + engines.prefillUrl(0),
                IntStream.range(0, DECODE).mapToObj(engines::decodeUrl).collect(Collectors.joining(", "))));
        RuntimeProcess.await("the closing prefill instance in the pool", Duration.ofSeconds(20),
                () -> prefillUrls().contains(closing));
        for (int i = 0; i < 6; i++) {
            RawHttp.Answer a = complete(false, 3);
            assertEquals("a closing prefill instance is retried elsewhere: " + a.body(), 200, a.status());
        }
        // the only decode worker closes every connection: 502 with an OpenAI error, or (once its
        // health check has marked it down) 503 after the placement bound
        RuntimeProcess.writeWatched(cfg, pool(engines.prefillUrl(0), closing));
        RuntimeProcess.await("one decode worker", Duration.ofSeconds(20), () -> workers() == 1);
        RawHttp.Answer b = complete(false, 3);
        System.out.printf("FaultsIT: the decode worker closes before its headers: %d %s%n", b.status(), b.body());
        assertTrue(b.body(), b.status() == 502 || b.status() == 503);
        assertTrue(b.body(), RuntimeProcess.JSON.readTree(b.body()).path("error").path("message").isTextual());
    }

    @Test
    public void h_aClientThatStopsReadingIsCutAndItsLoadReleased() throws Exception {
        try (Socket s = new Socket()) {
            s.setReceiveBufferSize(4096);
            s.connect(new java.net.InetSocketAddress("127.0.0.1", runtime.httpPort));
            byte[] body = ("{\"model\": \"" + MODEL + "\", \"prompt\": \"hi\", \"max_tokens\": 120000, \"ignore_eos\": true,"
                    + " \"stream\": true}").getBytes(StandardCharsets.UTF_8);
            OutputStream out = s.getOutputStream();
            out.write(RawHttp.head("POST", "/v1/completions", runtime.httpPort, "Content-Type: application/json",
                    "Content-Length: " + body.length));
            out.write(body);
            out.flush();
            RuntimeProcess.await("the stream running", Duration.ofSeconds(10), () -> running() == 1);
            long t0 = System.nanoTime();
            // read nothing: the proxy's queue for this client fills (relayQueueEvents), then it is cut
            RuntimeProcess.await("the load of the client that reads nothing released", Duration.ofSeconds(60),
                    () -> running() == 0);
            double cut = (System.nanoTime() - t0) / 1e9;
            System.out.printf("FaultsIT: a client that stopped reading was cut and released after %.1f s%n", cut);
            InputStream in = s.getInputStream();
            s.setSoTimeout(10_000);
            long read = 0;
            try {
                for (int n; (n = in.read(new byte[65536])) >= 0; ) {
                    read += n;
                }
            } catch (IOException e) {
                // reset or timed out: cut either way
            }
            System.out.printf("FaultsIT: it then read %d bytes before the end%n", read);
        }
    }

    // ------------------------------------------------------------------------------------ helpers

    interface Call {
        RawHttp.Answer call() throws Exception;
    }

    static CompletableFuture<RawHttp.Answer> async(Call c) {
        return CompletableFuture.supplyAsync(() -> {
            try {
                return c.call();
            } catch (Exception e) {
                return new RawHttp.Answer(0, java.util.Map.of(), "", e.toString());
            }
        });
    }

    /** A completion of {@code tokens} tokens (ignore_eos), streaming with usage or not. */
    static RawHttp.Answer complete(boolean stream, int tokens) throws IOException {
        return post("{\"model\": \"" + MODEL + "\", \"prompt\": \"hello there\", \"max_tokens\": " + tokens
                + ", \"ignore_eos\": true" + (stream ? ", \"stream\": true, \"stream_options\": {\"include_usage\": true}" : "")
                + "}");
    }

    static RawHttp.Answer post(String json) throws IOException {
        byte[] b = json.getBytes(StandardCharsets.UTF_8);
        return RawHttp.send(runtime.httpPort, RawHttp.head("POST", "/v1/completions", runtime.httpPort,
                "Content-Type: application/json", "Content-Length: " + b.length), b, 60_000);
    }

    static int running() {
        JsonNode s = runtime.snapshot();
        return s == null ? -1 : s.path("totals").path("running").asInt();
    }

    /** The requests the engine itself runs, over every decode rank (its {@code /metrics}); -1 if one does not answer. */
    static int engineRunning() {
        Pattern gauge = Pattern.compile("(?m)^vllm:num_requests_running\\{[^}]*\\} ([0-9.]+)$");
        int sum = 0;
        for (int g = 0; g < DECODE; g++) {
            int port = engines.decodePort(g);
            try {
                Matcher m = gauge.matcher(RawHttp.send(port, RawHttp.head("GET", "/metrics", port), new byte[0], 5_000).body());
                sum += m.find() ? (int) Double.parseDouble(m.group(1)) : 0;
            } catch (IOException e) {
                return -1;
            }
        }
        return sum;
    }

    /** The default pool's prefill instances as the fleet has them (the connector's, once it is told). */
    static List<String> prefillUrls() {
        try {
            JsonNode pools = RuntimeProcess.JSON.readTree(runtime.get("/admin/pools").body()).path("pools");
            List<String> urls = new ArrayList<>();
            pools.path(0).path("prefillUrls").forEach(u -> urls.add(u.asText()));
            return urls;
        } catch (IOException e) {
            return List.of();
        }
    }

    static int workers() {
        JsonNode s = runtime.snapshot();
        return s == null ? -1 : s.path("workers").size();
    }

    static long load(int g) {
        JsonNode s = runtime.snapshot();
        return s == null ? -1 : s.path("workers").path(g).path("running").asLong();
    }

    static boolean available(int g) {
        JsonNode s = runtime.snapshot();
        return s != null && s.path("workers").path(g).path("available").asBoolean();
    }

    static int busiest() {
        JsonNode s = runtime.snapshot();
        int best = 0;
        for (int g = 1; g < DECODE; g++) {
            if (s.path("workers").path(g).path("running").asInt() > s.path("workers").path(best).path("running").asInt()) {
                best = g;
            }
        }
        return best;
    }

    static void awaitIdle() throws InterruptedException {
        runtime.awaitIdle(Duration.ofSeconds(30));
    }

    /** A port that accepts every connection and closes it at once, before any answer. */
    static ServerSocket closingPort() throws IOException {
        ServerSocket server = new ServerSocket(0, 512, java.net.InetAddress.getLoopbackAddress());
        Thread t = new Thread(() -> {
            while (!server.isClosed()) {
                try (Socket s = server.accept()) {
                    s.setSoLinger(true, 0);
                } catch (IOException e) {
                    // closed
                }
            }
        }, "faults-closer");
        t.setDaemon(true);
        t.start();
        return server;
    }
}
