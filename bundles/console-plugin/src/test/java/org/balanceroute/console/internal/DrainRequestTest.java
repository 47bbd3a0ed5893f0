package org.balanceroute.console.internal;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Map;
import org.balanceroute.api.PoolSnapshot;
import org.balanceroute.fleet.Fleet;
import org.junit.jupiter.api.Test;

class DrainRequestTest {

    static final Fleet FLEET = Fakes.fleet(FleetViewTest.TWO,
            Fakes.pool("other", new String[] {"x"}, new int[] {1}, 10));
    static final PoolSnapshot SNAPSHOT = Fakes.snapshot(new int[] {2, 2}, new long[4], new int[4]);

    static DrainRequest json(String body) throws Exception {
        return DrainRequest.parse(StateJson.JSON.readTree(body));
    }

    static DrainRequest.Refusal refused(DrainRequest r) {
        return assertThrows(DrainRequest.Refusal.class, () -> r.resolve(FLEET, SNAPSHOT));
    }

    @Test
    void aWorkerByIndexOrEndpoint() throws Exception {
        DrainRequest.Target t = json("{\"pool\": \"default\", \"worker\": 3}").resolve(FLEET, SNAPSHOT);
        assertArrayEquals(new int[] {3}, t.workers());
        assertNull(t.instance());
        assertEquals("default", t.pool());
        assertArrayEquals(new int[] {2}, json("{\"pool\": \"default\", \"worker\": \"http://w2:8000\"}")
                .resolve(FLEET, SNAPSHOT).workers());
        assertArrayEquals(new int[] {1}, DrainRequest.parse(Map.of("pool", "default", "worker", " 1 ")::get)
                .resolve(FLEET, SNAPSHOT).workers());
    }

    @Test
    void anInstanceByNameOrIndex() throws Exception {
        DrainRequest.Target b = json("{\"pool\": \"default\", \"instance\": \"b\"}").resolve(FLEET, SNAPSHOT);
        assertArrayEquals(new int[] {2, 3}, b.workers());
        assertEquals("b", b.instance());
        DrainRequest.Target zero = DrainRequest.parse(Map.of("pool", "default", "instance", "0")::get)
                .resolve(FLEET, SNAPSHOT);
        assertArrayEquals(new int[] {0, 1}, zero.workers());
        assertEquals("a", zero.instance());
    }

    @Test
    void anUnknownPoolIsA404ThatNamesIt() throws Exception {
        DrainRequest.Refusal unknown = refused(json("{\"pool\": \"nope\", \"worker\": 0}"));
        assertEquals(404, unknown.status);
        assertEquals("pool", unknown.field);
        assertTrue(unknown.getMessage().startsWith("no pool 'nope'"), unknown.getMessage());
    }

    @Test
    void unknownWorkersAndInstancesAre404s() throws Exception {
        for (String body : new String[] {"{\"pool\": \"default\", \"worker\": 4}",
                "{\"pool\": \"default\", \"worker\": \"99999999999\"}",
                "{\"pool\": \"default\", \"worker\": \"http://w10:8000\"}",
                "{\"pool\": \"default\", \"worker\": -1}"}) {
            DrainRequest.Refusal r = refused(json(body));
            assertEquals(404, r.status, body);
            assertEquals("worker", r.field, body);
        }
        DrainRequest.Refusal i = refused(json("{\"pool\": \"default\", \"instance\": \"c\"}"));
        assertEquals(404, i.status);
        assertTrue(i.getMessage().contains("instances a, b"), i.getMessage());
        assertEquals(404, refused(json("{\"pool\": \"default\", \"instance\": \"2\"}")).status);
    }

    @Test
    void malformedRequestsAre400s() {
        for (String body : new String[] {"[]", "{}", "{\"worker\": 1}", "{\"pool\": \"default\"}",
                "{\"pool\": \"default\", \"worker\": 1, \"instance\": \"a\"}", "{\"pool\": \" \", \"worker\": 1}",
                "{\"pool\": \"default\", \"worker\": [1]}"}) {
            DrainRequest.Refusal r = assertThrows(DrainRequest.Refusal.class, () -> json(body), body);
            assertEquals(400, r.status, body);
        }
    }

    @Test
    void withoutWorkersYetA503() throws Exception {
        DrainRequest r = json("{\"pool\": \"default\", \"worker\": 0}");
        assertEquals(503, assertThrows(DrainRequest.Refusal.class, () -> r.resolve(FLEET, null)).status);
        assertEquals(503, assertThrows(DrainRequest.Refusal.class,
                () -> r.resolve(FLEET, LoadHistoryTest.snapshot(1))).status);
    }

    @Test
    void withoutATopologyTheDefaultPoolByIndex() throws Exception {
        DrainRequest.Target t = json("{\"pool\": \"default\", \"instance\": \"1\"}").resolve(null, SNAPSHOT);
        assertArrayEquals(new int[] {2, 3}, t.workers());
        assertEquals("1", t.instance());
        assertEquals(404, assertThrows(DrainRequest.Refusal.class,
                () -> json("{\"pool\": \"gpu\", \"worker\": 0}").resolve(null, SNAPSHOT)).status);
    }

    @Test
    void anotherPoolResolvesAgainstItsOwnTopologyAndRouter() throws Exception {
        PoolSnapshot other = Fakes.snapshot(new int[] {1}, new long[1], new int[1]);
        DrainRequest.Target t = json("{\"pool\": \"other\", \"instance\": \"x\"}").resolve(FLEET, other);
        assertEquals("other", t.pool());
        assertEquals("x", t.instance());
        assertArrayEquals(new int[] {0}, t.workers());
    }
}
