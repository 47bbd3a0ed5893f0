package org.balanceroute.admin.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.util.List;
import java.util.Map;
import org.balanceroute.api.ClusterSnapshot;
import org.balanceroute.fleet.DecodeInstance;
import org.balanceroute.fleet.Endpoint;
import org.balanceroute.fleet.Fleet;
import org.balanceroute.fleet.PoolTopology;
import org.junit.jupiter.api.Test;

class PoolsResourceTest {

    private static final ObjectMapper JSON = new ObjectMapper();

    private static PoolTopology twoInstances() {
        return new PoolTopology("default", "m", List.of("alias"), List.of("http://p:1"), List.of(
                new DecodeInstance("a", List.of(new Endpoint("http://d:1", 0), new Endpoint("http://d:1", 1)), 64),
                new DecodeInstance("b", List.of(new Endpoint("http://e:1", -1), new Endpoint("http://e:2", -1)), 32)));
    }

    /** Worker 1 down, 2 draining with one running, 3 drained. */
    private static ClusterSnapshot snapshot() {
        return new ClusterSnapshot("local", 3, 0, 64, new long[] {900, 100, 400, 0}, new int[] {2, 1, 1, 0},
                new int[] {1, 0, 0, 0}, 7, new boolean[] {true, false, true, true}, new int[] {0, 0, 1, 1},
                new int[] {64, 64, 32, 32}, new boolean[] {false, false, true, true});
    }

    @Test
    void everyWorkerWithItsStateAndEveryInstanceWithItsImbalance() {
        JsonNode pool = JSON.valueToTree(PoolsResource.render(twoInstances(), snapshot(), "br0"));
        assertEquals("default", pool.path("pool").asText());
        assertEquals(7, pool.path("poolDepth").asInt());
        assertEquals(800, pool.path("imbalance").asLong());
        JsonNode a = pool.path("instances").get(0);
        JsonNode b = pool.path("instances").get(1);
        assertEquals(800, a.path("imbalance").asLong());
        assertEquals(0, b.path("imbalance").asLong(), "drained and draining workers count in no imbalance");
        assertEquals("serving", a.path("workers").get(0).path("state").asText());
        assertEquals("down", a.path("workers").get(1).path("state").asText());
        assertEquals("draining", b.path("workers").get(0).path("state").asText());
        assertEquals("drained", b.path("workers").get(1).path("state").asText());
        assertEquals(2, b.path("workers").get(0).path("worker").asInt());
        assertEquals("http://d:1;rank=1", a.path("workers").get(1).path("endpoint").asText());
        assertEquals(32, b.path("capacity").asInt());
    }

    @Test
    void theRuntimeRoutesPoolDefaultOrItsOnlyPool() {
        PoolTopology other = new PoolTopology("llama", "llama", List.of(), List.of(), twoInstances().instances());
        assertEquals(true, PoolsResource.routed(new Fleet(Map.of("default", twoInstances())), "default"));
        assertEquals(true, PoolsResource.routed(new Fleet(Map.of("llama", other)), "llama"));
        assertEquals(false, PoolsResource.routed(new Fleet(Map.of("default", twoInstances(), "llama", other)), "llama"));
    }
}
