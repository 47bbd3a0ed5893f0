package org.balanceroute.console.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.List;
import java.util.Map;
import org.balanceroute.admin.PolicyAdmin.ChangeResult;
import org.balanceroute.router.ReplicaShare;
import org.balanceroute.router.ReplicasStatus;
import org.junit.jupiter.api.Test;

class StateJsonTest {

    @Test
    void theClusterWithEachMembersShare() {
        ReplicasStatus c = new ReplicasStatus("hazelcast", "m2", "m1", List.of(
                new ReplicaShare("m1", "127.0.0.1:5701", true, 3, new long[] {300, 100}, new int[] {2, 1}, new int[] {0, 1}),
                new ReplicaShare("m2", "127.0.0.1:5702", false, 1, new long[] {0, 100}, new int[] {0, 1}, new int[] {0, 0})),
                2.5, ReplicasStatus.Staleness.NONE);
        JsonNode j = StateJson.replicas(c);
        assertTrue(j.path("clustered").asBoolean());
        assertEquals("m1", j.path("dispatcher").asText());
        JsonNode m1 = j.path("members").get(0);
        assertEquals(0.8, m1.path("share").asDouble(), 1e-9);
        assertEquals(3, m1.path("running").asInt());
        assertEquals(1, m1.path("queued").asInt());
        assertTrue(m1.path("dispatcher").asBoolean());
        assertFalse(m1.path("local").asBoolean());
        assertTrue(j.path("members").get(1).path("local").asBoolean());
        assertEquals(0.2, j.path("members").get(1).path("share").asDouble(), 1e-9);
    }

    @Test
    void aClusterOfOneIsNotClusteredAndAnEmptyLoadHasNoShare() {
        ReplicasStatus c = new ReplicasStatus(ReplicasStatus.LOCAL, "local", "local",
                List.of(new ReplicaShare("local", "local", true, 0, new long[2], new int[2], new int[2])), 0,
                ReplicasStatus.Staleness.NONE);
        JsonNode j = StateJson.replicas(c);
        assertFalse(j.path("clustered").asBoolean());
        assertEquals(0.0, j.path("members").get(0).path("share").asDouble());
        assertTrue(StateJson.replicas(null).isNull());
        assertTrue(StateJson.latest(null).isNull());
    }

    @Test
    void historySamplesAreRows() {
        LoadHistory h = new LoadHistory(5);
        h.add(1000, LoadHistoryTest.snapshot(7, 10, 30));
        JsonNode j = StateJson.history(h.since(0), 5, 1000, 1);
        JsonNode s = j.path("samples").get(0);
        assertEquals(1, s.path("seq").asLong());
        assertEquals(1000, s.path("t").asLong());
        assertEquals(7, s.path("step").asLong());
        assertEquals(20, s.path("imbalance").asLong());
        assertEquals("[10,30]", s.path("loads").toString());
        assertEquals("[0,0]", s.path("groups").toString(), "one instance: every worker in group 0");
        assertEquals("[20]", s.path("instanceImbalance").toString());
    }

    @Test
    void changesAndRefusals() {
        JsonNode applied = StateJson.changed("default", new ChangeResult(true, "brh-survival", Map.of("rMax", 8), "in force"));
        assertEquals("default", applied.path("pool").asText());
        assertEquals("applied", applied.path("outcome").asText());
        assertEquals(8, applied.path("parameters").path("rMax").asInt());
        assertEquals("pending", StateJson.changed("default", new ChangeResult(false, "br0", null, "written")).path("outcome").asText());
        JsonNode refused = StateJson.refused("rMax must be in [1, 16]", "rMax");
        assertEquals("refused", refused.path("outcome").asText());
        assertEquals("rMax", refused.path("field").asText());
        assertTrue(StateJson.refused("bad body", null).path("field").isNull());
    }

    @Test
    void readOnlyPolicies() {
        JsonNode j = StateJson.policiesReadOnly("jsq", List.of("br0", "jsq"), "no PolicyAdmin");
        assertFalse(j.path("manageable").asBoolean());
        assertTrue(j.path("list").get(1).path("active").asBoolean());
        assertEquals(0, j.path("list").get(0).path("parameters").size());
    }
}
