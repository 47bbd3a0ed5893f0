package org.balanceroute.fleet.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.lang.reflect.Proxy;
import java.util.Hashtable;
import java.util.List;
import java.util.Map;
import org.balanceroute.fleet.Fleet;
import org.balanceroute.fleet.PoolTopology;
import org.junit.jupiter.api.Test;
import org.osgi.service.cm.ConfigurationAdmin;

class FleetComponentTest {

    /** A ConfigurationAdmin with no configuration at all. */
    private static ConfigurationAdmin empty() {
        return (ConfigurationAdmin) Proxy.newProxyInstance(ConfigurationAdmin.class.getClassLoader(),
                new Class<?>[] {ConfigurationAdmin.class}, (proxy, method, args) -> null);
    }

    private static Hashtable<String, Object> dict(Map<String, Object> m) {
        return new Hashtable<>(m);
    }

    @Test
    void withoutPoolsTheLegacyDefaultPoolIsInForceAndAPoolReplacesIt() {
        FleetComponent fleet = new FleetComponent(empty());
        assertEquals(List.of(Fleet.DEFAULT_POOL), fleet.fleet().pools().stream().map(PoolTopology::name).toList());
        assertEquals(PoolTopology.ANY_MODEL, fleet.fleet().pool(Fleet.DEFAULT_POOL).model());

        fleet.updated(Fleet.FACTORY_PID + "~moe", dict(PoolConfigReaderTest.twoInstances()));
        assertEquals(List.of("moe"), fleet.fleet().pools().stream().map(PoolTopology::name).toList());

        fleet.deleted(Fleet.FACTORY_PID + "~moe");
        assertNotNull(fleet.fleet().pool(Fleet.DEFAULT_POOL));
    }

    @Test
    void aRejectedChangeKeepsThePoolInForce() {
        FleetComponent fleet = new FleetComponent(empty());
        String pid = Fleet.FACTORY_PID + "~moe";
        fleet.updated(pid, dict(PoolConfigReaderTest.twoInstances()));
        Fleet before = fleet.fleet();
        Map<String, Object> bad = PoolConfigReaderTest.twoInstances();
        bad.put("instance.a.capacity", "-1");
        fleet.updated(pid, dict(bad));
        assertEquals(before, fleet.fleet());
    }

    @Test
    void aModelOrAWorkerInTwoPoolsIsRefused() {
        FleetComponent fleet = new FleetComponent(empty());
        fleet.updated(Fleet.FACTORY_PID + "~moe", dict(PoolConfigReaderTest.twoInstances()));

        Map<String, Object> sameModel = new java.util.HashMap<>(Map.of("model", "dsv3", "instances", "x",
                "instance.x.workers", "http://e0:1"));
        fleet.updated(Fleet.FACTORY_PID + "~other", dict(sameModel));
        assertNull(fleet.fleet().pool("other"));

        Map<String, Object> sharedWorker = new java.util.HashMap<>(Map.of("model", "llama", "instances", "x",
                "instance.x.workers", "http://d1:8200"));
        fleet.updated(Fleet.FACTORY_PID + "~other", dict(sharedWorker));
        assertNull(fleet.fleet().pool("other"));

        Map<String, Object> fine = new java.util.HashMap<>(Map.of("model", "llama", "instances", "x",
                "instance.x.workers", "http://e0:1"));
        fleet.updated(Fleet.FACTORY_PID + "~other", dict(fine));
        assertEquals("llama", fleet.fleet().pool("other").model());
        assertEquals("other", fleet.fleet().forModel("llama").name());
    }
}
