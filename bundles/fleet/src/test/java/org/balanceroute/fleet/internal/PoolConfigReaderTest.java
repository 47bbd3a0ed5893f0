package org.balanceroute.fleet.internal;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.balanceroute.api.config.ConfigurationException;
import org.balanceroute.fleet.Endpoint;
import org.balanceroute.fleet.Fleet;
import org.balanceroute.fleet.PoolTopology;
import org.junit.jupiter.api.Test;

class PoolConfigReaderTest {

    static Map<String, Object> twoInstances() {
        Map<String, Object> p = new HashMap<>();
        p.put("model", "deepseek-v3");
        p.put("aliases", "dsv3, deepseek");
        p.put("prefillUrls", "http://p0:8100, http://p1:8100/");
        p.put("instances", "a, b");
        p.put("instance.a.workers", "http://d0:8200;rank=0, http://d0:8200;rank=1, http://d0:8200;rank=2");
        p.put("instance.a.capacity", "128");
        p.put("instance.b.workers", "http://d1:8200, http://d2:8200");
        return p;
    }

    @Test
    void aPoolWithTwoInstancesOfTheirOwnGAndB() {
        PoolTopology pool = PoolConfigReader.read("moe", twoInstances());
        assertEquals("moe", pool.name());
        assertEquals(List.of("deepseek-v3", "dsv3", "deepseek"), pool.modelNames());
        assertEquals(List.of("http://p0:8100", "http://p1:8100"), pool.prefillUrls());
        assertArrayEquals(new int[] {3, 2}, pool.groupSizes());
        assertArrayEquals(new int[] {128, 64}, pool.capacities());
        assertEquals(List.of("http://d0:8200;rank=0", "http://d0:8200;rank=1", "http://d0:8200;rank=2",
                "http://d1:8200", "http://d2:8200"), pool.workerIds());
        assertEquals(1, pool.instanceOf(3));
        assertEquals(3, pool.firstWorker(1));
        assertEquals(1, pool.instanceIndex("b"));
        assertTrue(pool.serves("dsv3"));
        assertFalse(pool.serves("llama"));
        assertEquals(new Endpoint("http://d0:8200", 2), pool.workers().get(2));
    }

    private static void refused(String field, Map<String, Object> props) {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> PoolConfigReader.read("p", props));
        // a value out of range or not converted names the PID first
        String named = e instanceof ConfigurationException c ? c.property() + " " + c.pid() : e.getMessage();
        assertTrue(named.startsWith(field), "names " + field + ": " + e.getMessage());
    }

    @Test
    void badTopologyIsRefusedNamingTheField() {
        Map<String, Object> p = twoInstances();
        p.remove("model");
        refused("model", p);

        p = twoInstances();
        p.put("instance.b.workers", "");
        refused("instance.b.workers", p);

        p = twoInstances();
        p.put("instance.b.workers", "http://d1:8200, http://d0:8200;rank=1");
        refused("instance.b.workers", p);

        p = twoInstances();
        p.put("instance.a.workers", "d0:8200");
        refused("instance.a.workers", p);

        p = twoInstances();
        p.put("instance.a.workers", "http://d0:8200;rank=x");
        refused("instance.a.workers", p);

        p = twoInstances();
        p.put("instance.a.capacity", "0");
        refused("instance.a.capacity", p);
        Map<String, Object> zero = p;
        assertEquals("org.balanceroute.pool~p: instance.a.capacity must be an integer in [1, 4096], got '0'",
                assertThrows(ConfigurationException.class, () -> PoolConfigReader.read("p", zero)).getMessage());

        p = twoInstances();
        p.put("instance.a.capacity", "eight");
        refused("instance.a.capacity", p);

        p = twoInstances();
        p.put("instances", "a, a");
        refused("instances", p);

        p = twoInstances();
        p.put("instances", "");
        refused("instances", p);

        p = twoInstances();
        p.put("instance.c.workers", "http://d9:8200");
        refused("instance.c.workers", p);

        p = twoInstances();
        p.put("aliases", "deepseek-v3");
        refused("aliases", p);

        p = twoInstances();
        p.put("prefillUrls", "ftp://p0");
        refused("prefillUrls", p);
    }

    @Test
    void theLegacyKeysMakeTheDefaultPoolOfOneInstance() {
        PoolTopology pool = LegacyPool.from(Map.of("decodeWorkers", "http://a:1, http://a:2;rank=1", "prefillUrls", ""),
                Map.of("capacity", "4"));
        assertEquals(Fleet.DEFAULT_POOL, pool.name());
        assertEquals(PoolTopology.ANY_MODEL, pool.model());
        assertTrue(pool.prefillUrls().isEmpty());
        assertArrayEquals(new int[] {2}, pool.groupSizes());
        assertArrayEquals(new int[] {4}, pool.capacities());

        PoolTopology defaults = LegacyPool.from(Map.of(), Map.of());
        assertArrayEquals(new int[] {8}, defaults.groupSizes());
        assertEquals(2, defaults.prefillUrls().size());
        assertArrayEquals(new int[] {64}, defaults.capacities());
    }

    @Test
    void theOldKeysLeftBesidePoolsAreNamedForAWarning() {
        assertEquals(List.of("org.balanceroute.connector.vllm decodeWorkers", "org.balanceroute.router capacity"),
                LegacyPool.leftovers(Map.of("decodeWorkers", "http://a:1", "apiKey", "k"), Map.of("capacity", 64)));
        assertTrue(LegacyPool.leftovers(Map.of("apiKey", ""), Map.of("policy", "br0")).isEmpty());
    }

    @Test
    void aPoolIsFoundByModelOrAliasAndTheAnyModelPoolTakesTheRest() {
        PoolTopology moe = PoolConfigReader.read("moe", twoInstances());
        PoolTopology legacy = LegacyPool.from(Map.of(), Map.of());
        Fleet fleet = new Fleet(Map.of("moe", moe, "default", legacy));
        assertEquals(moe, fleet.forModel("dsv3"));
        assertEquals(legacy, fleet.forModel("anything"));
        assertEquals(null, new Fleet(Map.of("moe", moe)).forModel("anything"));
    }
}
