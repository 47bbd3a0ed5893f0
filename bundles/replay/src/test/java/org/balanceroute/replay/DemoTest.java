package org.balanceroute.replay;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The demo's phases and its table, without starting anything. */
class DemoTest {

    private static Map<String, Object> row(String policy, int replicas, boolean shared, double imbalance) {
        Map<String, Object> r = new LinkedHashMap<>();
        r.put("policy", policy);
        r.put("replicas", replicas);
        r.put("shared", shared);
        r.put("avgImbalance", imbalance);
        r.put("throughputTokPerS", 20_000.0);
        r.put("tpotP95Ms", 25.0);
        r.put("ttftP95S", 10.0);
        r.put("completed", 3000);
        r.put("failed", 0);
        return r;
    }

    @Test
    void withoutReplicasTheThreePoliciesRunOnOneRuntime() {
        assertEquals(List.of(new Demo.Phase("jsq", 1, false), new Demo.Phase("br0", 1, false),
                new Demo.Phase("brh-survival", 1, false)), Demo.phases(1));
    }

    @Test
    void withReplicasOneRuntimeThenNPlainProxiesThenNSharing() {
        assertEquals(List.of(new Demo.Phase("jsq", 1, false), new Demo.Phase("br0", 1, false),
                new Demo.Phase("br0", 3, false), new Demo.Phase("br0", 3, true)), Demo.phases(3));
        assertEquals("br0 on 3 replicas, shared snapshot", Demo.label(new Demo.Phase("br0", 3, true)));
    }

    @Test
    void theTableComparesTheReplicasWithOneReplicaAndJsq() {
        String t = Demo.table(List.of(row("jsq", 1, false, 200_000), row("br0", 1, false, 80_000),
                row("br0", 2, false, 150_000), row("br0", 2, true, 88_000)), 3000, "the built-in generator");
        assertTrue(t.contains("br0 on 2 replicas sharing the snapshot: 1.10x the imbalance of br0 on one replica,"
                + " 0.44x jsq's; 2 plain proxies (local views): 1.88x of one replica"), t);
        assertTrue(t.contains("replicas"), t);
    }
}
