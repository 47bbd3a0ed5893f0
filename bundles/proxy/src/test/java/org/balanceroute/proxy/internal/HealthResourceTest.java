package org.balanceroute.proxy.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import jakarta.ws.rs.core.Response;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import org.balanceroute.connector.vllm.DecodeExchange;
import org.balanceroute.connector.vllm.DecodeListener;
import org.balanceroute.connector.vllm.PrefillResult;
import org.balanceroute.connector.vllm.UpstreamResponse;
import org.balanceroute.connector.vllm.VllmConnector;
import org.junit.jupiter.api.Test;

/** {@code GET /health} over every pool of the connector. */
class HealthResourceTest {

    private static final ObjectMapper JSON = new ObjectMapper();

    /** A pool's connector that knows only its marks; the pools it reaches are {@code all}, the primary pool the first given. */
    private static final class Marks implements VllmConnector {
        private final String name;
        private final boolean[] prefill;
        private final boolean[] decode;
        private final Map<String, Marks> all;

        Marks(String name, boolean[] prefill, boolean[] decode, Map<String, Marks> all) {
            this.name = name;
            this.prefill = prefill;
            this.decode = decode;
            this.all = all;
            all.put(name, this);
        }

        @Override public int decodeWorkers() { return decode.length; }
        @Override public int prefillInstances() { return prefill.length; }
        @Override public boolean decodeHealthy(int worker) { return decode[worker]; }
        @Override public boolean prefillHealthy(int instance) { return prefill[instance]; }
        @Override public int prefillInFlight(int instance) { return 0; }
        @Override public int prefillQueued() { return 0; }
        @Override public List<String> pools() { return List.copyOf(all.keySet()); }
        @Override public VllmConnector pool(String poolName) { return all.get(poolName); }
        @Override public String poolName() { return name; }
        @Override public String decodeWorker(int worker) { throw new UnsupportedOperationException(); }

        @Override
        public CompletableFuture<PrefillResult> prefill(String requestId, String path, ObjectNode clientBody) {
            throw new UnsupportedOperationException();
        }

        @Override
        public DecodeExchange decode(String requestId, String worker, String path, ObjectNode clientBody,
                ObjectNode kvTransferParams, DecodeListener listener) {
            throw new UnsupportedOperationException();
        }

        @Override
        public CompletableFuture<UpstreamResponse> getFromFirstDecode(String path) {
            throw new UnsupportedOperationException();
        }
    }

    private static boolean[] marks(boolean... up) {
        return up;
    }

    private static JsonNode body(Response r) throws Exception {
        return JSON.readTree((byte[]) r.getEntity());
    }

    @Test
    void healthyWhenEveryPoolIsAndTheTopLevelArraysAreThePrimaryPools() throws Exception {
        Map<String, Marks> all = new TreeMap<>();
        Marks a = new Marks("a", marks(false, true), marks(true, true), all);
        new Marks("b", marks(), marks(true), all); // co-located
        Response r = new HealthResource(a).health();
        assertEquals(200, r.getStatus());
        assertEquals(JSON.readTree("{\"status\": \"ok\", \"prefill\": [false, true], \"decode\": [true, true], \"pools\": {"
                + "\"a\": {\"status\": \"ok\", \"prefill\": [false, true], \"decode\": [true, true]},"
                + "\"b\": {\"status\": \"ok\", \"prefill\": [], \"decode\": [true]}}}"), body(r));
    }

    @Test
    void oneUnhealthyPoolMakesItUnavailableAndNamesIt() throws Exception {
        Map<String, Marks> all = new TreeMap<>();
        Marks a = new Marks("a", marks(true), marks(true), all);
        new Marks("b", marks(true), marks(true, false), all); // a decode worker down
        new Marks("c", marks(false, false), marks(true), all); // no prefill instance up
        Response r = new HealthResource(a).health();
        assertEquals(503, r.getStatus());
        JsonNode b = body(r);
        assertEquals("unavailable", b.path("status").asText());
        assertEquals("[true]", b.path("decode").toString(), "the primary pool's, healthy");
        assertEquals("ok", b.path("pools").path("a").path("status").asText());
        assertEquals("unavailable", b.path("pools").path("b").path("status").asText());
        assertEquals("unavailable", b.path("pools").path("c").path("status").asText());
    }
}
