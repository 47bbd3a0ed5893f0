package org.balanceroute.policy.balance;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import java.util.List;
import org.balanceroute.core.PoolState;
import org.balanceroute.core.Router;
import org.balanceroute.core.TrackedRequest;
import org.junit.jupiter.api.Test;

class Br0BypassPolicyTest {

    @Test
    void fillsUnderTheBarrierFirstThenTheLightestWorker() {
        PoolState state = new PoolState(3, 4);
        Fixtures.Placer placer = new Fixtures.Placer();
        Router router = new Router(state, placer, List.of());
        placer.target = 0;
        router.submit(new TrackedRequest(1, 10_000, 0, 0, 0));
        placer.target = 1;
        router.submit(new TrackedRequest(2, 4_000, 0, 0, 0));
        router.submit(new TrackedRequest(3, 2_000, 0, 0, 0));
        placer.target = 2;
        router.submit(new TrackedRequest(4, 7_000, 0, 0, 0));
        // loads 10,000 / 6,000 / 7,000: margins 0 / 4,000 / 3,000
        Br0BypassPolicy bypass = new Br0BypassPolicy();
        assertFalse(bypass.usesPromptPool());
        // 3,000 fits under the barrier on workers 1 and 2 (F = 3,000 for both): more free slots wins
        assertEquals(2, bypass.route(state, new TrackedRequest(5, 3_000, 0, 0, 0)));
        // 5,000 overflows everywhere: the largest margin overflows least
        assertEquals(1, bypass.route(state, new TrackedRequest(6, 5_000, 0, 0, 0)));
        // worker 2 out of routing: 3,000 goes to worker 1, the other that absorbs it
        router.setWorkerAvailable(2, false);
        assertEquals(1, bypass.route(state, new TrackedRequest(7, 3_000, 0, 0, 0)));
        router.setWorkerAvailable(1, false);
        assertEquals(0, bypass.route(state, new TrackedRequest(8, 3_000, 0, 0, 0)));
    }
}
