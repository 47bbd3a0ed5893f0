package org.balanceroute.console.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.Map;
import org.balanceroute.api.PoolSnapshot;
import org.balanceroute.fleet.Fleet;
import org.balanceroute.fleet.PoolTopology;
import org.junit.jupiter.api.Test;

class FleetViewTest {

    static final PoolTopology TWO = Fakes.pool("default", new String[] {"a", "b"}, new int[] {2, 2}, 0);

    /** Worker 1 draining with one request left, worker 2 drained, worker 3 down. */
    static PoolSnapshot mixed() {
        return new PoolSnapshot("test", 5, 0, 64, new long[] {500, 300, 0, 900}, new int[] {2, 1, 0, 3},
                new int[] {1, 0, 0, 0}, 4, new boolean[] {true, true, true, false}, new int[] {0, 0, 1, 1},
                new int[] {64, 64, 32, 32}, new boolean[] {false, true, true, false});
    }

    /** The page's fleet with the primary pool {@code default}'s snapshot (none: null) and br0 active. */
    private static JsonNode json(Fleet fleet, PoolSnapshot s) {
        return FleetView.json(fleet, "default", s == null ? Map.of() : Map.of("default", s), Map.of("default", "br0"));
    }

    @Test
    void aWorkersStateIsDownDrainedDrainingOrServing() {
        PoolSnapshot s = mixed();
        assertEquals(org.balanceroute.api.PoolSnapshot.SERVING, s.state(0));
        assertEquals(org.balanceroute.api.PoolSnapshot.DRAINING, s.state(1));
        assertEquals(org.balanceroute.api.PoolSnapshot.DRAINED, s.state(2));
        assertEquals(org.balanceroute.api.PoolSnapshot.DOWN, s.state(3));
    }

    @Test
    void theServedPoolWithItsInstancesWorkersAndImbalances() {
        JsonNode j = json(Fakes.fleet(TWO), mixed());
        assertEquals("default", j.path("primaryPool").asText());
        assertTrue(j.path("message").isNull());
        JsonNode pool = j.path("pools").get(0);
        assertTrue(pool.path("primary").asBoolean());
        assertTrue(pool.path("routed").asBoolean());
        assertEquals("br0", pool.path("activePolicy").asText());
        assertEquals("model-default", pool.path("model").asText());
        assertEquals(2, pool.path("instances").size());
        JsonNode a = pool.path("instances").get(0);
        assertEquals("a", a.path("name").asText());
        assertEquals(64, a.path("capacity").asInt());
        assertEquals(0, a.path("imbalance").asLong(), "over its workers not draining: worker 0 alone");
        JsonNode w1 = a.path("workers").get(1);
        assertEquals(1, w1.path("worker").asInt());
        assertEquals("http://w1:8000", w1.path("endpoint").asText());
        assertEquals("draining", w1.path("state").asText());
        assertEquals(300, w1.path("load").asLong());
        assertEquals(1, w1.path("running").asInt());
        assertTrue(w1.path("draining").asBoolean());
        assertFalse(w1.path("drained").asBoolean());
        JsonNode b = pool.path("instances").get(1);
        assertEquals("b", b.path("name").asText());
        assertEquals(32, b.path("capacity").asInt());
        assertEquals(2, b.path("workers").get(0).path("worker").asInt());
        assertEquals("drained", b.path("workers").get(0).path("state").asText());
        assertEquals("down", b.path("workers").get(1).path("state").asText());
        assertEquals(0, pool.path("imbalance").asLong());

        JsonNode busy = json(Fakes.fleet(TWO), Fakes.snapshot(new int[] {2, 2}, new long[] {100, 400, 50, 60},
                new int[4])).path("pools").get(0);
        assertEquals(300, busy.path("instances").get(0).path("imbalance").asLong());
        assertEquals(10, busy.path("instances").get(1).path("imbalance").asLong());
        assertEquals(300, busy.path("imbalance").asLong(), "the pool's: its largest instance's");
    }

    @Test
    void aPoolWithoutARouterIsShownAsConfigured() {
        PoolTopology other = Fakes.pool("other", new String[] {"x"}, new int[] {1}, 10);
        JsonNode j = json(Fakes.fleet(TWO, other), mixed());
        assertEquals(2, j.path("pools").size());
        JsonNode o = j.path("pools").get(1);
        assertEquals("other", o.path("name").asText());
        assertFalse(o.path("primary").asBoolean());
        assertFalse(o.path("routed").asBoolean());
        assertTrue(o.path("activePolicy").isNull());
        assertEquals("http://w10:8000", o.path("instances").get(0).path("workers").get(0).path("endpoint").asText());
        assertTrue(o.path("instances").get(0).path("workers").get(0).path("state").isNull());
    }

    @Test
    void eachPoolWithItsOwnRoutersFiguresAndPolicy() {
        PoolTopology chat = Fakes.pool("chat", new String[] {"x"}, new int[] {2}, 10);
        JsonNode j = FleetView.json(Fakes.fleet(TWO, chat), "default",
                Map.of("default", mixed(), "chat", Fakes.snapshot(new int[] {2}, new long[] {700, 100}, new int[] {3, 1})),
                Map.of("default", "br0", "chat", "jsq"));
        JsonNode c = j.path("pools").get(0);
        assertEquals("chat", c.path("name").asText());
        assertFalse(c.path("primary").asBoolean());
        assertTrue(c.path("routed").asBoolean());
        assertEquals("jsq", c.path("activePolicy").asText());
        assertEquals(600, c.path("imbalance").asLong());
        JsonNode w = c.path("instances").get(0).path("workers").get(0);
        assertEquals("http://w10:8000", w.path("endpoint").asText());
        assertEquals(700, w.path("load").asLong());
        assertEquals("serving", w.path("state").asText());
        JsonNode d = j.path("pools").get(1);
        assertTrue(d.path("primary").asBoolean());
        assertEquals("br0", d.path("activePolicy").asText());
        assertEquals(500, d.path("instances").get(0).path("workers").get(0).path("load").asLong());
    }

    @Test
    void beforeTheFirstSampleThePoolIsShownAsConfigured() {
        JsonNode pool = json(Fakes.fleet(TWO), null).path("pools").get(0);
        assertTrue(pool.path("primary").asBoolean());
        assertEquals(2, pool.path("instances").get(1).path("workers").size());
        assertTrue(pool.path("instances").get(1).path("workers").get(1).path("state").isNull());
    }

    @Test
    void aLayoutThatDiffersFromTheTopologyIsShownAsTheRouterHasIt() {
        // the topology has 2 + 2 workers, the router still 3 in one instance
        JsonNode j = json(Fakes.fleet(TWO), Fakes.snapshot(new int[] {3}, new long[] {1, 2, 3}, new int[3]));
        assertTrue(j.path("message").asText().contains("differ"), j.toString());
        JsonNode pool = j.path("pools").get(0);
        assertEquals(1, pool.path("instances").size());
        assertEquals("0", pool.path("instances").get(0).path("name").asText());
        assertTrue(pool.path("instances").get(0).path("workers").get(0).path("endpoint").isNull());
    }

    @Test
    void withoutATopologyTheRoutersWorkersAreShown() {
        JsonNode j = json(null, Fakes.snapshot(new int[] {1, 1}, new long[] {1, 2}, new int[2]));
        assertTrue(j.path("message").asText().contains("no pool topology"), j.toString());
        JsonNode pool = j.path("pools").get(0);
        assertEquals("default", pool.path("name").asText());
        assertEquals(2, pool.path("instances").size());
        assertEquals(0, json(null, null).path("pools").size());
    }
}
