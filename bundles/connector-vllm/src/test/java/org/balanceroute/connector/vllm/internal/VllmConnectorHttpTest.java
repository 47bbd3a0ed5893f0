package org.balanceroute.connector.vllm.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.sun.net.httpserver.HttpServer;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.awaitility.Awaitility;
import org.awaitility.core.ConditionTimeoutException;
import org.balanceroute.connector.vllm.DecodeListener;
import org.balanceroute.connector.vllm.PrefillResult;
import org.balanceroute.connector.vllm.UpstreamException;
import org.balanceroute.enginesim.SimCluster;
import org.balanceroute.enginesim.SimConfig;
import org.junit.jupiter.api.Test;

/** The connector over real HTTP: against the simulated cluster, and against stub servers for the retry rule. */
class VllmConnectorHttpTest {

    private static final ObjectMapper JSON = new ObjectMapper();

    private static ConnectorSettings settings(List<String> prefill, List<String> decode, int retries) {
        return settings(prefill, decode, retries, 60_000, 64, 4096);
    }

    private static ConnectorSettings settings(List<String> prefill, List<String> decode, int retries,
            long healthIntervalMillis, int prefillMaxInFlight, int prefillQueueMax) {
        return new ConnectorSettings(pool(prefill, decode), "", 2000, 10_000, 10_000, new RetryPolicy(retries, 10, 100), healthIntervalMillis, 64, 1024, 1 << 20,
                prefillMaxInFlight, prefillQueueMax, 0, 0, 1);
    }

    /** One decode instance of the given workers. */
    static org.balanceroute.fleet.PoolTopology pool(List<String> prefill, List<String> decode) {
        return new org.balanceroute.fleet.PoolTopology("default", "m", List.of(), prefill, List.of(
                new org.balanceroute.fleet.DecodeInstance("decode",
                        decode.stream().map(u -> new org.balanceroute.fleet.Endpoint(u, -1)).toList(), 64)));
    }

    private static ObjectNode json(String s) throws Exception {
        return (ObjectNode) JSON.readTree(s);
    }

    @Test
    void bothHopsAgainstTheSimulatedCluster() throws Exception {
        try (SimCluster sim = SimCluster.start(SimConfig.builder().prefill(1).decode(2).portBase(0)
                .allRanksEndpoint(false).timeFactor(0.01).streamInterval(3).build())) {
            VllmConnectorComponent c = new VllmConnectorComponent(settings(List.of(sim.prefillUrl(0)),
                    List.of(sim.decodeUrl(0), sim.decodeUrl(1)), 2));
            try {
                ObjectNode body = json("{\"model\": \"balanceroute-sim\", \"prompt\": [1, 2, 3, 4, 5, 6, 7],"
                        + " \"max_tokens\": 10, \"ignore_eos\": true, \"stream\": true,"
                        + " \"stream_options\": {\"include_usage\": true, \"continuous_usage_stats\": true}}");
                PrefillResult p = c.prefill("req-1", "/v1/completions", body).get(10, TimeUnit.SECONDS);
                assertEquals(7, p.promptTokens());
                assertNotNull(p.kvTransferParams());
                assertTrue(p.kvTransferParams().path("do_remote_prefill").asBoolean());

                Collected got = new Collected();
                c.decode("req-1", c.decodeWorker(1), "/v1/completions", body, p.kvTransferParams(), got);
                got.done.get(10, TimeUnit.SECONDS);
                assertEquals(200, got.status);
                assertEquals("[DONE]", got.events.get(got.events.size() - 1));
                JsonNode last = JSON.readTree(got.events.get(got.events.size() - 2));
                assertEquals(10, last.path("usage").path("completion_tokens").asInt());

                // the handle is single-use: presenting it again is a 400 from the engine
                Collected again = new Collected();
                c.decode("req-1", c.decodeWorker(0), "/v1/completions", body, p.kvTransferParams(), again);
                again.done.get(10, TimeUnit.SECONDS);
                assertEquals(400, again.status);
            } finally {
                c.close();
            }
        }
    }

    @Test
    void prefillIsRetriedOnServerErrorsButNeverOn400() throws Exception {
        AtomicInteger hits = new AtomicInteger();
        AtomicInteger failFirst = new AtomicInteger();
        HttpServer server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        server.createContext("/v1/completions", ex -> {
            byte[] in = ex.getRequestBody().readAllBytes();
            int n = hits.incrementAndGet();
            boolean bad = new String(in, StandardCharsets.UTF_8).contains("\"bad\"");
            int status = bad ? 400 : n <= failFirst.get() ? 503 : 200;
            byte[] out = (status == 200 ? "{\"usage\": {\"prompt_tokens\": 3}, \"kv_transfer_params\": {\"h\": 1}}"
                    : "{\"error\": {\"message\": \"no\", \"type\": \"BadRequestError\", \"param\": null, \"code\": "
                    + status + "}}").getBytes(StandardCharsets.UTF_8);
            ex.getResponseHeaders().set("Content-Type", "application/json");
            ex.sendResponseHeaders(status, out.length);
            ex.getResponseBody().write(out);
            ex.close();
        });
        server.start();
        String url = "http://127.0.0.1:" + server.getAddress().getPort();
        VllmConnectorComponent c = new VllmConnectorComponent(settings(List.of(url), List.of(url), 3));
        try {
            failFirst.set(2);
            PrefillResult ok = c.prefill("a", "/v1/completions", json("{\"model\": \"m\", \"prompt\": \"x\"}"))
                    .get(10, TimeUnit.SECONDS);
            assertEquals(3, ok.attempts());
            assertEquals(3, hits.get());

            hits.set(0);
            failFirst.set(0);
            CompletableFuture<PrefillResult> bad = c.prefill("b", "/v1/completions",
                    json("{\"model\": \"m\", \"prompt\": \"bad\"}"));
            ExecutionException e = org.junit.jupiter.api.Assertions.assertThrows(ExecutionException.class,
                    () -> bad.get(10, TimeUnit.SECONDS));
            UpstreamException u = assertInstanceOf(UpstreamException.class, e.getCause());
            assertEquals(400, u.status());
            assertTrue(new String(u.body(), StandardCharsets.UTF_8).contains("BadRequestError"));
            assertEquals(1, hits.get(), "a 400 is never retried");

            hits.set(0);
            failFirst.set(100);
            CompletableFuture<PrefillResult> down = c.prefill("c", "/v1/completions",
                    json("{\"model\": \"m\", \"prompt\": \"x\"}"));
            e = org.junit.jupiter.api.Assertions.assertThrows(ExecutionException.class, () -> down.get(10, TimeUnit.SECONDS));
            assertEquals(503, assertInstanceOf(UpstreamException.class, e.getCause()).status());
            assertEquals(4, hits.get(), "the first attempt and 3 retries");
        } finally {
            c.close();
            server.stop(0);
        }
    }

    @Test
    void coLocatedModeSendsThePlainBodyStraightToDecodeWithAnEstimatedPromptLength() throws Exception {
        try (SimCluster sim = SimCluster.start(SimConfig.builder().prefill(0).decode(1).portBase(0)
                .allRanksEndpoint(false).timeFactor(0.01).build())) {
            VllmConnectorComponent c = new VllmConnectorComponent(settings(List.of(), List.of(sim.decodeUrl(0)), 2));
            try {
                assertEquals(0, c.prefillInstances());
                ObjectNode body = json("{\"model\": \"balanceroute-sim\", \"messages\": [{\"role\": \"user\","
                        + " \"content\": \"thirteen char\"}], \"max_tokens\": 4, \"ignore_eos\": true, \"stream\": true,"
                        + " \"stream_options\": {\"include_usage\": true}}");
                CompletableFuture<PrefillResult> f = c.prefill("co-1", "/v1/chat/completions", body);
                assertTrue(f.isDone(), "no hop: complete at once");
                PrefillResult p = f.get();
                assertTrue(p.estimated());
                assertEquals(null, p.kvTransferParams());
                assertEquals(4, p.promptTokens(), "ceil(13 / 4)");

                Collected got = new Collected();
                c.decode("co-1", c.decodeWorker(0), "/v1/chat/completions", body, p.kvTransferParams(), got);
                got.done.get(10, TimeUnit.SECONDS);
                assertEquals(200, got.status, "the decode rank serves a plain request");
                JsonNode usage = JSON.readTree(got.events.get(got.events.size() - 2)).path("usage");
                assertEquals(4, usage.path("completion_tokens").asInt());
                assertEquals(p.promptTokens(), usage.path("prompt_tokens").asInt(), "the engine counts as estimated");
            } finally {
                c.close();
            }
        }
    }

    private static boolean eventually(java.util.function.BooleanSupplier condition) {
        try {
            Awaitility.await().atMost(Duration.ofSeconds(10)).pollInterval(Duration.ofMillis(1))
                    .until(condition::getAsBoolean);
            return true;
        } catch (ConditionTimeoutException e) {
            return false;
        }
    }

    /** Records what availability listeners are told. */
    private static final class Availability implements org.balanceroute.connector.vllm.DecodeAvailabilityListener {
        final java.util.concurrent.LinkedBlockingQueue<String> told = new java.util.concurrent.LinkedBlockingQueue<>();
        /** Every call, in order. */
        final List<String> all = new java.util.concurrent.CopyOnWriteArrayList<>();

        @Override
        public void decodeWorkerAvailable(String pool, int worker, boolean available) {
            all.add(worker + (available ? " up" : " down"));
            told.add(worker + (available ? " up" : " down"));
        }

        /** The last call for the worker, null before any. */
        String last(int worker) {
            String last = null;
            for (String s : all) {
                last = s.startsWith(worker + " ") ? s : last;
            }
            return last;
        }

        /** The calls for one worker, in order. */
        List<String> of(int worker) {
            return all.stream().filter(s -> s.startsWith(worker + " ")).toList();
        }

        /** The next call other than {@code skip}, waiting up to 10 s. */
        String next(String skip) throws InterruptedException {
            for (String s; (s = told.poll(10, TimeUnit.SECONDS)) != null; ) {
                if (!s.equals(skip)) {
                    return s;
                }
            }
            return "nothing";
        }
    }

    @Test
    void aDecodeWorkerFailingItsHealthCheckIsReportedDownAndUpAgain() throws Exception {
        HealthStub w0 = new HealthStub();
        HealthStub w1 = new HealthStub();
        VllmConnectorComponent c = new VllmConnectorComponent(settings(List.of(), List.of(w0.url(), w1.url()), 0, 100, 64, 16));
        // A check times out after 100 ms here, so on a loaded machine either worker may rightly go
        // down and up again by itself: what holds is what each is told, not how often.
        Availability a = new Availability();
        try {
            c.addAvailabilityListener(a);
            assertEquals(List.of("0", "1"), a.all.stream().limit(2).map(e -> e.split(" ")[0]).toList(),
                    "told each worker's current mark when registered");
            w1.healthy.set(false);
            assertTrue(eventually(() -> "1 down".equals(a.last(1)) && !c.decodeHealthy(1)),
                    "told down, and the mark follows what the listener was told: " + a.all);
            w1.awaitChecks(3); // more failed checks: none tells again
            w1.healthy.set(true);
            assertTrue(eventually(() -> "1 up".equals(a.last(1)) && c.decodeHealthy(1)), "told up again: " + a.all);
            w1.awaitChecks(3);
        } finally {
            c.close();
            w0.server.stop(0);
            w1.server.stop(0);
        }
        // closed: no check runs any more, so what each worker was told is complete
        for (int g = 0; g < 2; g++) {
            List<String> calls = a.of(g);
            for (int i = 1; i < calls.size(); i++) {
                assertFalse(calls.get(i).equals(calls.get(i - 1)), "told once per transition: " + calls);
            }
        }
    }

    /** A decode worker that answers its health checks only, 200 or 503, and counts them. */
    private static final class HealthStub {
        final java.util.concurrent.atomic.AtomicBoolean healthy = new java.util.concurrent.atomic.AtomicBoolean(true);
        final AtomicInteger checks = new AtomicInteger();
        final HttpServer server;

        HealthStub() throws java.io.IOException {
            server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
            server.createContext("/health", ex -> {
                ex.sendResponseHeaders(healthy.get() ? 200 : 503, -1);
                ex.close();
                checks.incrementAndGet();
            });
            server.start();
        }

        String url() {
            return "http://127.0.0.1:" + server.getAddress().getPort();
        }

        /** Waits until it answered n more checks. */
        void awaitChecks(int n) {
            int target = checks.get() + n;
            assertTrue(eventually(() -> checks.get() >= target), "health checks go on");
        }
    }

    @Test
    void aDecodeRequestRefusedAtConnectMarksItsWorkerDownAtOnce() throws Exception {
        CountDownLatch checked = new CountDownLatch(1);
        HttpServer server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        server.createContext("/health", ex -> {
            ex.getResponseHeaders().set("Connection", "close"); // no pooled connection outlives the server
            ex.sendResponseHeaders(200, -1);
            ex.close();
            checked.countDown();
        });
        server.start();
        String url = "http://127.0.0.1:" + server.getAddress().getPort();
        VllmConnectorComponent c = new VllmConnectorComponent(settings(List.of(), List.of(url), 0, 3_600_000, 64, 16));
        try {
            assertTrue(checked.await(10, TimeUnit.SECONDS), "the first health check passed");
            server.stop(0); // the next check is an hour away: only the refused decode can mark it
            Availability a = new Availability();
            c.addAvailabilityListener(a);
            assertEquals("0 up", a.told.poll());
            Collected got = new Collected();
            c.decode("r", c.decodeWorker(0), "/v1/completions", json("{\"model\": \"m\", \"prompt\": \"x\"}"), null, got);
            ExecutionException e = org.junit.jupiter.api.Assertions.assertThrows(ExecutionException.class,
                    () -> got.done.get(10, TimeUnit.SECONDS));
            assertNotNull(e.getCause());
            assertEquals("0 down", a.next(null));
            assertTrue(eventually(() -> !c.decodeHealthy(0)));
        } finally {
            c.close();
        }
    }

    @Test
    void aDecodeConnectThatTimesOutIsTriedAgainOnANewConnection() throws Exception {
        try (java.net.ServerSocket listener = new java.net.ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            InetSocketAddress address = (InetSocketAddress) listener.getLocalSocketAddress();
            // Nobody accepts yet: once the accept queue is full the kernel drops further SYNs, so a
            // connect times out with nothing sent.
            List<java.net.Socket> fillers = new ArrayList<>();
            for (int k = 0; k < 16; k++) {
                java.net.Socket f = new java.net.Socket();
                try {
                    f.connect(address, 300);
                    fillers.add(f);
                } catch (java.net.SocketTimeoutException full) {
                    f.close();
                    break;
                }
            }
            String url = "http://127.0.0.1:" + address.getPort();
            ObjectNode body = json("{\"model\": \"m\", \"prompt\": \"x\", \"stream\": true}");
            VllmConnectorComponent once = new VllmConnectorComponent(connectTimeoutSettings(url, 0));
            try {
                Collected failed = new Collected();
                once.decode("r0", once.decodeWorker(0), "/v1/completions", body, null, failed);
                ExecutionException e = org.junit.jupiter.api.Assertions.assertThrows(ExecutionException.class,
                        () -> failed.done.get(10, TimeUnit.SECONDS));
                assertTrue(String.valueOf(e.getCause()).contains("Connect Timeout"), String.valueOf(e.getCause()));
            } finally {
                once.close();
            }
            VllmConnectorComponent retrying = new VllmConnectorComponent(connectTimeoutSettings(url, 10));
            try {
                Collected got = new Collected();
                long t0 = System.nanoTime();
                retrying.decode("r1", retrying.decodeWorker(0), "/v1/completions", body, null, got);
                // a couple of 200 ms attempts time out before anyone accepts: the decode is still trying
                Awaitility.await("the decode still trying").pollDelay(Duration.ofMillis(700))
                        .atMost(Duration.ofSeconds(10)).until(() -> !got.done.isDone());
                for (java.net.Socket f : fillers) {
                    f.close();
                }
                RawEngine.serve(listener, VllmConnectorHttpTest::oneStream);
                got.done.get(10, TimeUnit.SECONDS);
                assertTrue(System.nanoTime() - t0 > 600_000_000L, "the first attempts timed out");
                assertEquals(200, got.status);
                assertEquals("{\"choices\": [{\"text\": \"hi\"}]}", got.events.get(0));
            } finally {
                retrying.close();
            }
        }
    }

    @Test
    void aCancelledPrefillIsAbortedOnTheWireAndNotTriedAgain() throws Exception {
        try (java.net.ServerSocket listener = new java.net.ServerSocket(0, 50, java.net.InetAddress.getLoopbackAddress())) {
            CountDownLatch received = new CountDownLatch(1);
            CountDownLatch closed = new CountDownLatch(1);
            AtomicInteger posts = new AtomicInteger();
            RawEngine.serve(listener, (in, out) -> holdPrefill(in, posts, received, closed));
            String url = "http://127.0.0.1:" + listener.getLocalPort();
            VllmConnectorComponent c = new VllmConnectorComponent(settings(List.of(url), List.of(url), 2));
            try {
                CompletableFuture<PrefillResult> f = c.prefill("p", "/v1/completions",
                        json("{\"model\": \"m\", \"prompt\": \"x\"}"));
                assertTrue(received.await(10, TimeUnit.SECONDS), "the prefill reached the server");
                f.cancel(false); // what the proxy does when its client leaves
                // well before the prefill's own 10 s timeout would close it
                assertTrue(closed.await(3, TimeUnit.SECONDS), "the prefill's connection was closed");
                // a retry would come after 10 ms of backoff: none comes
                Awaitility.await("a cancelled prefill is not tried again").during(Duration.ofMillis(300))
                        .atMost(Duration.ofSeconds(10)).until(posts::get, n -> n == 1);
            } finally {
                c.close();
            }
        }
    }

    /** Holds a POST open and counts down {@code closed} when the client closes it. */
    private static void holdPrefill(java.io.InputStream in, AtomicInteger posts, CountDownLatch received,
            CountDownLatch closed) {
        posts.incrementAndGet();
        received.countDown();
        try {
            if (in.read() < 0) {
                closed.countDown();
            }
        } catch (java.io.IOException e) {
            closed.countDown(); // reset by the client: closed too
        }
    }

    private static ConnectorSettings connectTimeoutSettings(String url, int connectRetries) {
        return decodeSettings(url, connectRetries, 0);
    }

    /** Co-located mode, one decode worker at {@code url}. */
    private static ConnectorSettings decodeSettings(String url, int connectRetries, long drainMillis) {
        return decodeSettings(url, connectRetries, drainMillis, 200);
    }

    private static ConnectorSettings decodeSettings(String url, int connectRetries, long drainMillis,
            long connectTimeoutMillis) {
        return new ConnectorSettings(pool(List.of(), List.of(url)), "", connectTimeoutMillis, 10_000,
                10_000, new RetryPolicy(0, 10, 100), 3_600_000, 64, 1024, 1 << 20, 64, 16, connectRetries, drainMillis, 1);
    }

    /** A stopping connector lets the stream in flight end (within drainMillis) before it stops its HTTP client. */
    @Test
    void closingDrainsTheStreamInFlightThenStops() throws Exception {
        try (java.net.ServerSocket listener = new java.net.ServerSocket(0, 50, java.net.InetAddress.getLoopbackAddress())) {
            CountDownLatch finish = new CountDownLatch(1);
            Collected got = new Collected();
            VllmConnectorComponent c = streamInFlight(listener, finish, 10_000, got);
            CompletableFuture<Void> closed = CompletableFuture.runAsync(c::close);
            Awaitility.await("close waits for the stream").during(Duration.ofMillis(300)).atMost(Duration.ofSeconds(5))
                    .until(() -> !closed.isDone());
            finish.countDown();
            got.done.get(10, TimeUnit.SECONDS); // ended whole, not failed by a stopped client
            closed.get(10, TimeUnit.SECONDS);
            assertEquals("{\"choices\": [{\"text\": \"hi\"}]}", got.events.get(0));
        }
    }

    /** A stream that outlives drainMillis is failed when the client stops: close returns, the listener hears it. */
    @Test
    void aStreamOutlivingDrainMillisFailsWhenTheConnectorStops() throws Exception {
        try (java.net.ServerSocket listener = new java.net.ServerSocket(0, 50, java.net.InetAddress.getLoopbackAddress())) {
            CountDownLatch never = new CountDownLatch(1);
            Collected got = new Collected();
            VllmConnectorComponent c = streamInFlight(listener, never, 200, got);
            long t0 = System.nanoTime();
            c.close();
            assertTrue(System.nanoTime() - t0 >= TimeUnit.MILLISECONDS.toNanos(200), "waited drainMillis");
            ExecutionException e = org.junit.jupiter.api.Assertions.assertThrows(ExecutionException.class,
                    () -> got.done.get(10, TimeUnit.SECONDS));
            assertNotNull(e.getCause());
            never.countDown();
        }
    }

    /** A connector with one stream in flight (its first event read) that the server ends after {@code finish}. */
    private static VllmConnectorComponent streamInFlight(java.net.ServerSocket listener, CountDownLatch finish,
            long drainMillis, Collected got) throws Exception {
        RawEngine.serve(listener, (in, out) -> streamUntil(out, finish));
        VllmConnectorComponent c = new VllmConnectorComponent(
                // a connect timeout that a cold client on a busy machine cannot hit: these tests are about the drain
                decodeSettings("http://127.0.0.1:" + listener.getLocalPort(), 0, drainMillis, 5_000));
        c.decode("r0", c.decodeWorker(0), "/v1/completions", json("{\"model\": \"m\", \"prompt\": \"x\", \"stream\": true}"), null, got);
        Awaitility.await("the first event").atMost(Duration.ofSeconds(10))
                .until(() -> got.events.size() == 1 || got.done.isDone());
        assertFalse(got.done.isCompletedExceptionally(), () -> "the stream failed before its first event: "
                + got.done.handle((v, e) -> String.valueOf(e)).join());
        return c;
    }

    /** A POST's answer: one event at once, then [DONE] after {@code finish}. */
    private static void streamUntil(java.io.OutputStream out, CountDownLatch finish)
            throws java.io.IOException, InterruptedException {
        out.write(("HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nConnection: close\r\n\r\n"
                + "data: {\"choices\": [{\"text\": \"hi\"}]}\n\n").getBytes(StandardCharsets.UTF_8));
        out.flush();
        if (finish.await(30, TimeUnit.SECONDS)) {
            out.write("data: [DONE]\n\n".getBytes(StandardCharsets.UTF_8));
            out.flush();
        }
    }

    /** A POST's answer: one SSE event and [DONE]. */
    private static void oneStream(java.io.InputStream in, java.io.OutputStream out) throws java.io.IOException {
        out.write(("HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nConnection: close\r\n\r\n"
                + "data: {\"choices\": [{\"text\": \"hi\"}]}\n\ndata: [DONE]\n\n").getBytes(StandardCharsets.UTF_8));
        out.flush();
    }

    /**
     * vLLM sends an HTTP chunk per event: events that arrive together (one read) reach the relay
     * together, with one onEventsRead, so it writes them in one write; none waits for the next.
     */
    @Test
    void eventsThatArriveTogetherAreHandedOnWithOneEventsRead() throws Exception {
        try (java.net.ServerSocket listener = new java.net.ServerSocket(0, 50, java.net.InetAddress.getLoopbackAddress())) {
            CountDownLatch firstBurstSeen = new CountDownLatch(1);
            RawEngine.serve(listener, (in, out) -> tenThenTwo(in, out, firstBurstSeen));
            String url = "http://127.0.0.1:" + listener.getLocalPort();
            VllmConnectorComponent c = new VllmConnectorComponent(connectTimeoutSettings(url, 0));
            try {
                List<Integer> eventsAtEachRead = java.util.Collections.synchronizedList(new ArrayList<>());
                Collected got = new Collected() {
                    @Override
                    public void onEventsRead() {
                        eventsAtEachRead.add(events.size());
                        if (events.size() >= 10) {
                            firstBurstSeen.countDown();
                        }
                    }
                };
                List<String> events = got.events;
                CompletableFuture<Void> done = got.done;
                c.decode("r0", c.decodeWorker(0), "/v1/completions", json("{\"model\": \"m\", \"prompt\": \"x\", \"stream\": true}"), null, got);
                try {
                    done.get(10, TimeUnit.SECONDS);
                } catch (java.util.concurrent.TimeoutException e) {
                    throw new AssertionError("no end; events " + events + ", at each read " + eventsAtEachRead, e);
                }
                assertEquals(12, events.size(), String.valueOf(events));
                assertEquals("{\"choices\": [{\"text\": \"t0\"}]}", events.get(0));
                assertEquals("[DONE]", events.get(11));
                assertEquals(10, eventsAtEachRead.get(0), "the ten events of one read, told once: " + eventsAtEachRead);
                assertTrue(eventsAtEachRead.size() <= 3, "one onEventsRead per read, not per event: " + eventsAtEachRead);
            } finally {
                c.close();
            }
        }
    }

    @Test
    void aHeldAnswerIsReadOnlyAfterItsResumeAndEndsWholeInOrder() throws Exception {
        int bursts = 40;
        int perBurst = 50;
        try (java.net.ServerSocket listener = new java.net.ServerSocket(0, 50, java.net.InetAddress.getLoopbackAddress())) {
            // burst b + 1 is written once read b is held, and read b resumed once it was written: a
            // reader that did not hold would be handed burst b + 1 before the resume
            java.util.concurrent.Semaphore heldReads = new java.util.concurrent.Semaphore(0);
            java.util.concurrent.Semaphore burstsWritten = new java.util.concurrent.Semaphore(0);
            RawEngine.serve(listener, (in, out) -> inBursts(out, bursts, perBurst, heldReads, burstsWritten));
            String url = "http://127.0.0.1:" + listener.getLocalPort();
            VllmConnectorComponent c = new VllmConnectorComponent(connectTimeoutSettings(url, 0));
            java.util.concurrent.BlockingQueue<org.balanceroute.connector.vllm.DecodeExchange> toResume =
                    new java.util.concurrent.LinkedBlockingQueue<>();
            java.util.concurrent.atomic.AtomicBoolean held = new java.util.concurrent.atomic.AtomicBoolean();
            AtomicInteger holds = new AtomicInteger();
            List<String> readWhileHeld = new java.util.concurrent.CopyOnWriteArrayList<>();
            Collected got = new Collected() {
                @Override
                public void onEvent(String data) {
                    if (held.get()) {
                        readWhileHeld.add(data);
                    }
                    super.onEvent(data);
                }

                @Override
                public boolean onEventsRead(org.balanceroute.connector.vllm.DecodeExchange exchange) {
                    held.set(true); // every read is held; another thread resumes it
                    holds.incrementAndGet();
                    toResume.add(exchange);
                    heldReads.release();
                    return false;
                }
            };
            Thread resumer = new Thread(() -> {
                try {
                    while (true) {
                        org.balanceroute.connector.vllm.DecodeExchange x = toResume.take();
                        burstsWritten.tryAcquire(10, TimeUnit.SECONDS); // the next burst is on the wire (or there is none)
                        held.set(false);
                        x.resume();
                    }
                } catch (InterruptedException stop) {
                    // the test is over
                }
            });
            resumer.start();
            try {
                c.decode("r0", c.decodeWorker(0), "/v1/completions", json("{\"model\": \"m\", \"prompt\": \"x\", \"stream\": true}"), null, got);
                got.done.get(20, TimeUnit.SECONDS);
                assertEquals(bursts * perBurst + 1, got.events.size(), "every event, then [DONE]");
                for (int k = 0; k < bursts * perBurst; k++) {
                    assertEquals("{\"choices\": [{\"text\": \"t" + k + "\"}]}", got.events.get(k));
                }
                assertEquals("[DONE]", got.events.get(bursts * perBurst));
                assertTrue(holds.get() > 1, "held after each read: " + holds.get());
                assertEquals(0, readWhileHeld.size(), "nothing handed on between a hold and its resume; first: "
                        + readWhileHeld.subList(0, Math.min(3, readWhileHeld.size())));
            } finally {
                resumer.interrupt();
                resumer.join();
                c.close();
            }
        }
    }

    /**
     * A POST's answer: {@code bursts} writes of {@code perBurst} events each, then [DONE]; each
     * write after the first waits for a held read, and each is told once flushed.
     */
    private static void inBursts(java.io.OutputStream out, int bursts, int perBurst,
            java.util.concurrent.Semaphore heldReads, java.util.concurrent.Semaphore written)
            throws java.io.IOException, InterruptedException {
        out.write(("HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\n"
                + "Transfer-Encoding: chunked\r\nConnection: close\r\n\r\n").getBytes(StandardCharsets.UTF_8));
        int k = 0;
        for (int b = 0; b < bursts; b++) {
            if (b > 0) {
                heldReads.tryAcquire(10, TimeUnit.SECONDS);
            }
            StringBuilder burst = new StringBuilder();
            for (int i = 0; i < perBurst; i++, k++) {
                burst.append(chunk("data: {\"choices\": [{\"text\": \"t" + k + "\"}]}\n\n"));
            }
            out.write(burst.toString().getBytes(StandardCharsets.UTF_8));
            out.flush();
            if (b > 0) {
                written.release();
            }
        }
        out.write((chunk("data: [DONE]\n\n") + "0\r\n\r\n").getBytes(StandardCharsets.UTF_8));
        out.flush();
        written.release(bursts); // the reads after the last burst have nothing more to wait for
    }

    /** A POST's answer: ten events in one write, and once they are seen, one more and [DONE]. */
    private static void tenThenTwo(java.io.InputStream in, java.io.OutputStream out, CountDownLatch firstBurstSeen)
            throws java.io.IOException, InterruptedException {
        StringBuilder burst = new StringBuilder("HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\n"
                + "Transfer-Encoding: chunked\r\nConnection: close\r\n\r\n");
        for (int k = 0; k < 10; k++) {
            burst.append(chunk("data: {\"choices\": [{\"text\": \"t" + k + "\"}]}\n\n"));
        }
        out.write(burst.toString().getBytes(StandardCharsets.UTF_8)); // one write: one read
        out.flush();
        firstBurstSeen.await(10, TimeUnit.SECONDS);
        out.write((chunk("data: {\"choices\": [{\"text\": \"t10\"}]}\n\n") + chunk("data: [DONE]\n\n") + "0\r\n\r\n")
                .getBytes(StandardCharsets.UTF_8));
        out.flush();
        in.read(); // until the client closes
    }

    private static String chunk(String data) {
        return Integer.toHexString(data.getBytes(StandardCharsets.UTF_8).length) + "\r\n" + data + "\r\n";
    }

    @Test
    void prefillsBeyondTheBudgetWaitAndBeyondTheQueueFailFast() throws Exception {
        CountDownLatch hold = new CountDownLatch(1);
        AtomicInteger arrived = new AtomicInteger();
        HttpServer server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        server.setExecutor(java.util.concurrent.Executors.newCachedThreadPool());
        server.createContext("/v1/completions", ex -> {
            ex.getRequestBody().readAllBytes();
            arrived.incrementAndGet();
            try {
                hold.await(10, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            byte[] out = "{\"usage\": {\"prompt_tokens\": 3}, \"kv_transfer_params\": {\"h\": 1}}"
                    .getBytes(StandardCharsets.UTF_8);
            ex.getResponseHeaders().set("Content-Type", "application/json");
            ex.sendResponseHeaders(200, out.length);
            ex.getResponseBody().write(out);
            ex.close();
        });
        server.start();
        String url = "http://127.0.0.1:" + server.getAddress().getPort();
        VllmConnectorComponent c = new VllmConnectorComponent(settings(List.of(url), List.of(url), 0, 3_600_000, 2, 1));
        try {
            ObjectNode body = json("{\"model\": \"m\", \"prompt\": \"x\"}");
            List<CompletableFuture<PrefillResult>> admitted = new ArrayList<>();
            for (int k = 0; k < 3; k++) {
                admitted.add(c.prefill("p" + k, "/v1/completions", body));
            }
            CompletableFuture<PrefillResult> refused = c.prefill("p3", "/v1/completions", body);
            ExecutionException e = org.junit.jupiter.api.Assertions.assertThrows(ExecutionException.class,
                    () -> refused.get(1, TimeUnit.SECONDS));
            UpstreamException u = assertInstanceOf(org.balanceroute.connector.vllm.PrefillQueueFullException.class,
                    e.getCause());
            assertEquals(429, u.status());
            eventually(() -> arrived.get() >= 2);
            assertEquals(2, arrived.get(), "two in flight (the budget), the third waits in the connector");
            hold.countDown();
            for (CompletableFuture<PrefillResult> f : admitted) {
                assertEquals(3, f.get(10, TimeUnit.SECONDS).promptTokens());
            }
            assertEquals(3, arrived.get(), "the queued one started when a slot freed");
        } finally {
            c.close();
            server.stop(0);
        }
    }

    /** Collects a decode answer. */
    static class Collected implements DecodeListener {
        /** Written by the client's threads, read by the test's. */
        final List<String> events = new java.util.concurrent.CopyOnWriteArrayList<>();
        final CompletableFuture<Void> done = new CompletableFuture<>();
        volatile int status;

        @Override
        public void onHeaders(int status, boolean eventStream) {
            this.status = status;
        }

        @Override
        public void onEvent(String data) {
            events.add(data);
        }

        @Override
        public void onEnd(int status, String contentType, byte[] body) {
            done.complete(null);
        }

        @Override
        public void onFailure(Throwable cause) {
            done.completeExceptionally(cause);
        }
    }
}
