package org.balanceroute.connector.vllm.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executors;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.awaitility.Awaitility;
import org.balanceroute.connector.vllm.DecodeAvailabilityListener;
import org.balanceroute.connector.vllm.PrefillResult;
import org.balanceroute.connector.vllm.UpstreamException;
import org.balanceroute.connector.vllm.VllmConnector;
import org.balanceroute.fleet.DecodeInstance;
import org.balanceroute.fleet.Endpoint;
import org.balanceroute.fleet.Fleet;
import org.balanceroute.fleet.PoolTopology;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** One connector per pool, over real HTTP: each pool's own engines, marks and listeners' news, pools added and removed. */
class PoolsHttpTest {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String PATH = "/v1/completions";

    private final List<AutoCloseable> open = new ArrayList<>();

    @AfterEach
    void closeAll() throws Exception {
        for (int i = open.size() - 1; i >= 0; i--) {
            open.get(i).close();
        }
    }

    /** A connector with no pool yet, the documented defaults. */
    private VllmConnectorComponent connector() throws Exception {
        VllmConnectorComponent c = new VllmConnectorComponent(ConnectorSettingsTest.from(Map.of()));
        open.add(c::close);
        return c;
    }

    /** A pool of those prefill instances and one decode instance of those workers. */
    private static PoolTopology pool(String name, List<Engine> prefill, List<Engine> decode) {
        return new PoolTopology(name, "model-" + name, List.of(), prefill.stream().map(e -> e.url).toList(), List.of(
                new DecodeInstance("decode", decode.stream().map(e -> new Endpoint(e.url, -1)).toList(), 64)));
    }

    private static Fleet fleet(PoolTopology... pools) {
        Map<String, PoolTopology> m = new HashMap<>();
        for (PoolTopology p : pools) {
            m.put(p.name(), p);
        }
        return new Fleet(m);
    }

    private static ObjectNode body() throws Exception {
        return (ObjectNode) JSON.readTree("{\"model\": \"m\", \"prompt\": \"x\", \"stream\": true}");
    }

    private static UpstreamException failure(VllmConnector c) throws Exception {
        ExecutionException e = assertThrows(ExecutionException.class,
                () -> c.prefill("r", PATH, body()).get(10, TimeUnit.SECONDS));
        return assertInstanceOf(UpstreamException.class, e.getCause());
    }

    /** The decode answer's first event (which names the engine's pool). */
    private static String decodeOn(VllmConnector c, int worker) throws Exception {
        VllmConnectorHttpTest.Collected got = new VllmConnectorHttpTest.Collected();
        c.decode("r", c.decodeWorker(worker), PATH, body(), null, got);
        got.done.get(10, TimeUnit.SECONDS);
        assertEquals(200, got.status);
        return got.events.get(0);
    }

    @Test
    void eachPoolsHopsReachOnlyItsOwnEnginesAndTheListenersHearEachPoolByName() throws Exception {
        Engine pa = prefillEngine("a");
        Engine da = decodeEngine("a");
        Engine pb = prefillEngine("b");
        Engine db0 = decodeEngine("b");
        Engine db1 = decodeEngine("b");
        VllmConnectorComponent c = connector();
        Told told = new Told();
        c.addAvailabilityListener(told);
        assertEquals(List.of(), c.pools());
        assertNull(c.pool("a"));
        assertEquals(503, failure(c).status(), "no pool yet: no engine");

        c.fleetChanged(fleet(pool("a", List.of(pa), List.of(da)), pool("b", List.of(pb), List.of(db0, db1))));

        assertEquals(List.of("layout a [" + da.url + "] [1] [64]", "a 0 up",
                "layout b [" + db0.url + ", " + db1.url + "] [2] [64]", "b 0 up", "b 1 up"), told.drain());
        assertEquals(List.of("a", "b"), c.pools());
        VllmConnector a = c.pool("a");
        VllmConnector b = c.pool("b");
        assertEquals("a", a.poolName());
        assertEquals("b", b.poolName());
        assertEquals(List.of("a", "b"), b.pools());
        assertSame(b, a.pool("b"), "every pool's connector reaches the others");
        assertEquals(1, a.decodeWorkers());
        assertEquals(2, b.decodeWorkers());

        PrefillResult p = a.prefill("r", PATH, body()).get(10, TimeUnit.SECONDS);
        assertEquals("a", p.kvTransferParams().path("pool").asText());
        assertEquals("{\"pool\": \"a\"}", decodeOn(a, 0));
        p = b.prefill("r", PATH, body()).get(10, TimeUnit.SECONDS);
        assertEquals("b", p.kvTransferParams().path("pool").asText());
        assertEquals("{\"pool\": \"b\"}", decodeOn(b, 1));
        assertEquals(List.of(PATH), pa.drain());
        assertEquals(List.of(PATH), da.drain());
        assertEquals(List.of(PATH), pb.drain());
        assertEquals(List.of(), db0.drain());
        assertEquals(List.of(PATH), db1.drain(), "b's worker 1");
        // a worker of pool b named to pool a's connector: 503 naming it, nothing sent
        VllmConnectorHttpTest.Collected wrongPool = new VllmConnectorHttpTest.Collected();
        a.decode("r", b.decodeWorker(1), PATH, body(), null, wrongPool);
        java.util.concurrent.ExecutionException e = assertThrows(java.util.concurrent.ExecutionException.class,
                () -> wrongPool.done.get(10, TimeUnit.SECONDS));
        assertEquals(503, ((org.balanceroute.connector.vllm.UpstreamException) e.getCause()).status());
        assertTrue(e.getCause().getMessage().contains(b.decodeWorker(1)), e.getCause().getMessage());
        assertEquals(List.of(), db1.drain(), "nothing sent");
    }

    @Test
    void thePrimaryPoolIsDefaultElseTheFirstByName() throws Exception {
        Engine db = decodeEngine("b");
        Engine dc = decodeEngine("c");
        Engine dd = decodeEngine("default");
        VllmConnectorComponent c = connector();
        assertEquals("none", c.poolName());
        assertEquals(0, c.decodeWorkers());

        PoolTopology b = pool("b", List.of(), List.of(db));
        PoolTopology cPool = pool("c", List.of(), List.of(dc));
        c.fleetChanged(fleet(cPool, b));
        assertEquals("b", c.poolName(), "no default: the first by name");
        assertEquals("{\"pool\": \"b\"}", decodeOn(c, 0), "the component's own methods act on the primary pool");

        c.fleetChanged(fleet(cPool, b, pool("default", List.of(), List.of(dd))));
        assertEquals("default", c.poolName());
        assertEquals("{\"pool\": \"default\"}", decodeOn(c, 0));

        c.fleetChanged(fleet(cPool));
        assertEquals("c", c.poolName());
        assertEquals("{\"pool\": \"c\"}", decodeOn(c, 0));
    }

    @Test
    void aRemovedPoolIsToldOnceRefusesNewPrefillsAndLetsItsStreamsEnd() throws Exception {
        Engine pa = prefillEngine("a");
        Engine da = decodeEngine("a");
        Engine pb = prefillEngine("b");
        CountDownLatch release = new CountDownLatch(1);
        Engine db = new Engine(ex -> holdStream(ex, "b", release));
        VllmConnectorComponent c = connector();
        PoolTopology a = pool("a", List.of(pa), List.of(da));
        c.fleetChanged(fleet(a, pool("b", List.of(pb), List.of(db))));
        Told told = new Told();
        c.addAvailabilityListener(told);
        told.drain();
        VllmConnector poolA = c.pool("a");
        VllmConnector poolB = c.pool("b");

        VllmConnectorHttpTest.Collected stream = new VllmConnectorHttpTest.Collected();
        poolB.decode("s", poolB.decodeWorker(0), PATH, body(), null, stream);
        Awaitility.await("b's stream under way").atMost(Duration.ofSeconds(10)).until(() -> !stream.events.isEmpty());

        c.fleetChanged(fleet(a));
        assertEquals(List.of("removed b"), told.drain(), "told once, and nothing about the unchanged pool");
        assertNull(c.pool("b"));
        assertNull(poolA.pool("b"));
        assertEquals(List.of("a"), c.pools());
        assertSame(poolA, c.pool("a"), "a kept its connector");
        UpstreamException refused = failure(poolB);
        assertEquals(503, refused.status());
        assertEquals("pool 'b' was removed from the topology", refused.getMessage());
        assertEquals(List.of(), pb.drain(), "nothing sent");

        release.countDown();
        stream.done.get(10, TimeUnit.SECONDS);
        assertEquals(List.of("{\"pool\": \"b\"}", "[DONE]"), stream.events, "the stream in flight ran to its end");

        // b again: a new connector, told afresh; the old one stays removed
        c.fleetChanged(fleet(a, pool("b", List.of(pb), List.of(db))));
        assertEquals(List.of("layout b [" + db.url + "] [1] [64]", "b 0 up"), told.drain());
        assertNotNull(c.pool("b"));
        assertFalse(c.pool("b") == poolB);
        assertEquals(503, failure(poolB).status());
    }

    @Test
    void aPoolKeepsItsConnectorThroughChangesAndAnEndpointKeptKeepsItsMark() throws Exception {
        Engine da0 = decodeEngine("a");
        Engine da1 = decodeEngine("a");
        Engine gone = decodeEngine("a");
        gone.close(); // its health check fails
        Engine db = decodeEngine("b");
        VllmConnectorComponent c = connector();
        c.fleetChanged(fleet(pool("a", List.of(), List.of(gone, da0))));
        VllmConnector a = c.pool("a");
        Awaitility.await("the dead worker marked down").atMost(Duration.ofSeconds(10)).until(() -> !a.decodeHealthy(0));

        c.fleetChanged(fleet(pool("a", List.of(), List.of(gone, da0)), pool("b", List.of(), List.of(db))));
        assertSame(a, c.pool("a"), "another pool added: a untouched");
        assertFalse(a.decodeHealthy(0));

        Told told = new Told();
        c.addAvailabilityListener(told);
        assertEquals(List.of("layout a [" + gone.url + ", " + da0.url + "] [2] [64]", "a 0 down", "a 1 up",
                "layout b [" + db.url + "] [1] [64]", "b 0 up"), told.drain(), "registered later: every pool, with its marks");

        c.fleetChanged(fleet(pool("a", List.of(), List.of(da0, gone, da1)), pool("b", List.of(), List.of(db))));
        assertSame(a, c.pool("a"), "a changed: the same connector, its new engines in force");
        assertEquals(List.of("layout a [" + da0.url + ", " + gone.url + ", " + da1.url + "] [3] [64]", "a 0 up",
                "a 1 down", "a 2 up"), told.drain(), "the marks moved with their endpoints; b not told");
        assertEquals(3, a.decodeWorkers());
        assertEquals("{\"pool\": \"a\"}", decodeOn(a, 2));
        assertEquals(List.of(PATH), da1.drain());
    }

    @Test
    void theSettingsApplyToEveryPool() throws Exception {
        Engine pa = prefillEngine("a");
        Engine pb = prefillEngine("b");
        VllmConnectorComponent c = connector();
        c.fleetChanged(fleet(pool("a", List.of(pa), List.of(decodeEngine("a"))),
                pool("b", List.of(pb), List.of(decodeEngine("b")))));
        c.modified(Map.of("apiKey", "k"));
        c.pool("a").prefill("r", PATH, body()).get(10, TimeUnit.SECONDS);
        c.pool("b").prefill("r", PATH, body()).get(10, TimeUnit.SECONDS);
        assertEquals(List.of("Bearer k"), pa.authorizations());
        assertEquals(List.of("Bearer k"), pb.authorizations());
    }

    @Test
    void anUnnamedPoolIsAClearError() throws Exception {
        NullPointerException e = assertThrows(NullPointerException.class, () -> connector().pool(null));
        assertEquals("pool name", e.getMessage());
    }

    // --- stub engines

    /** Records what the connector is told, one line per call. */
    private static final class Told implements DecodeAvailabilityListener {
        private final LinkedBlockingQueue<String> calls = new LinkedBlockingQueue<>();

        @Override
        public void decodeLayout(String pool, List<String> workers, int[] groupSizes, int[] capacities) {
            calls.add("layout " + pool + " " + workers + " " + Arrays.toString(groupSizes) + " " + Arrays.toString(capacities));
        }

        @Override
        public void decodeWorkerAvailable(String pool, int worker, boolean available) {
            calls.add(pool + " " + worker + (available ? " up" : " down"));
        }

        @Override
        public void poolRemoved(String pool) {
            calls.add("removed " + pool);
        }

        /** What was told so far (the connector tells synchronously what a change or registration brings). */
        List<String> drain() {
            List<String> out = new ArrayList<>();
            calls.drainTo(out);
            return out;
        }
    }

    private interface Answer {
        void answer(HttpExchange ex) throws IOException, InterruptedException;
    }

    /** An engine on its own port: {@code GET /health} 200; each POST recorded (its path and key), then answered. */
    private final class Engine implements AutoCloseable {
        final String url;
        private final HttpServer server;
        private final LinkedBlockingQueue<String> posts = new LinkedBlockingQueue<>();
        private final LinkedBlockingQueue<String> keys = new LinkedBlockingQueue<>();

        Engine(Answer answer) throws IOException {
            server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
            server.setExecutor(Executors.newCachedThreadPool());
            server.createContext("/health", ex -> {
                ex.sendResponseHeaders(200, -1);
                ex.close();
            });
            server.createContext(PATH, ex -> {
                ex.getRequestBody().readAllBytes();
                posts.add(ex.getRequestURI().getPath());
                keys.add(String.valueOf(ex.getRequestHeaders().getFirst("Authorization")));
                try {
                    answer.answer(ex);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                } finally {
                    ex.close();
                }
            });
            server.start();
            url = "http://127.0.0.1:" + server.getAddress().getPort();
            open.add(this);
        }

        List<String> drain() {
            List<String> out = new ArrayList<>();
            posts.drainTo(out);
            return out;
        }

        List<String> authorizations() {
            List<String> out = new ArrayList<>();
            keys.drainTo(out);
            return out;
        }

        @Override
        public void close() {
            server.stop(0);
        }
    }

    /** A prefill engine: its KV handle names its pool. */
    private Engine prefillEngine(String pool) throws IOException {
        return new Engine(ex -> {
            byte[] out = ("{\"usage\": {\"prompt_tokens\": 3}, \"kv_transfer_params\": {\"pool\": \"" + pool + "\"}}")
                    .getBytes(StandardCharsets.UTF_8);
            ex.getResponseHeaders().set("Content-Type", "application/json");
            ex.sendResponseHeaders(200, out.length);
            ex.getResponseBody().write(out);
        });
    }

    /** A decode engine: one event naming its pool, then [DONE]. */
    private Engine decodeEngine(String pool) throws IOException {
        CountDownLatch released = new CountDownLatch(0);
        return new Engine(ex -> holdStream(ex, pool, released));
    }

    /** One event naming the pool, then [DONE] once {@code release} is counted down. */
    private static void holdStream(HttpExchange ex, String pool, CountDownLatch release)
            throws IOException, InterruptedException {
        ex.getResponseHeaders().set("Content-Type", "text/event-stream");
        ex.sendResponseHeaders(200, 0);
        OutputStream out = ex.getResponseBody();
        out.write(("data: {\"pool\": \"" + pool + "\"}\n\n").getBytes(StandardCharsets.UTF_8));
        out.flush();
        if (release.await(10, TimeUnit.SECONDS)) {
            out.write("data: [DONE]\n\n".getBytes(StandardCharsets.UTF_8));
        }
        out.flush();
    }
}
