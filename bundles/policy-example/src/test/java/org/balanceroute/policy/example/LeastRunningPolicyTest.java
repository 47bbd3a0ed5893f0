package org.balanceroute.policy.example;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.Map;
import org.balanceroute.api.PoolView;
import org.balanceroute.api.RequestView;
import org.balanceroute.api.config.ConfigurationException;
import org.junit.jupiter.api.Test;

class LeastRunningPolicyTest {

    /** Worker 0: 2 running, 0 queued; worker 1: 1 running, 3 queued; worker 2 down. */
    private static final PoolView CLUSTER = new PoolView() {
        private final int[] running = {2, 1, 0};
        private final int[] queued = {0, 3, 0};

        @Override public int workers() { return 3; }
        @Override public int capacity() { return 4; }
        @Override public long step() { return 0; }
        @Override public long load(int worker) { return 0; }
        @Override public int running(int worker) { return running[worker]; }
        @Override public int queued(int worker) { return queued[worker]; }
        @Override public long queuedTokens(int worker) { return 0; }
        @Override public long inFlightBytes(int worker) { return 0; }
        @Override public RequestView active(int worker, int index) { throw new UnsupportedOperationException(); }
        @Override public boolean available(int worker) { return worker != 2; }
    };

    private static LeastRunningPolicy withWeight(Object weight) {
        return new LeastRunningPolicy(Map.of("queuedWeight", weight));
    }

    @Test
    void theWeightDecidesHowMuchQueuedRequestsCount() {
        assertEquals(1, new LeastRunningPolicy().route(CLUSTER, null), "weight 0: fewest running");
        assertEquals(0, withWeight(1).route(CLUSTER, null), "weight 1: join the shortest queue");
        assertEquals(Map.of("queuedWeight", 1), withWeight(1).parameters());
    }

    @Test
    void anInvalidWeightKeepsTheOneInForce() {
        LeastRunningPolicy p = withWeight(2);
        p.modified(Map.of("queuedWeight", LeastRunningPolicy.MAX_QUEUED_WEIGHT + 1));
        assertEquals(Map.of("queuedWeight", 2), p.parameters());
        p.modified(Map.of("queuedWeight", "x"));
        assertEquals(Map.of("queuedWeight", 2), p.parameters());
        p.modified(Map.of("queuedWeight", 16));
        assertEquals(Map.of("queuedWeight", 16), p.parameters());
    }

    @Test
    void anInvalidFirstWeightFailsTheActivation() {
        ConfigurationException e = assertThrows(ConfigurationException.class, () -> withWeight(17));
        assertEquals("org.balanceroute.policy.example: queuedWeight must be an integer in [0, 16], got 17",
                e.getMessage());
    }
}
