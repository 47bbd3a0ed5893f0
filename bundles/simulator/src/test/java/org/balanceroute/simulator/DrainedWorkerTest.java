package org.balanceroute.simulator;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.balanceroute.core.DecodeLayout;
import org.balanceroute.core.PoolState;
import org.balanceroute.core.Router;
import org.balanceroute.core.TrackedRequest;
import org.balanceroute.policy.balance.BalanceSettings;
import org.junit.jupiter.api.Test;

/** No shipped policy places a request on a draining worker, whether it routes at arrival or from the pool. */
class DrainedWorkerTest {

    @Test
    void noShippedPolicyPicksADrainingWorker() {
        for (String name : PolicyCatalog.NAMES) {
            PoolState state = new PoolState(DecodeLayout.of(new int[] {4, 4}, new int[] {4, 8}));
            PolicyCatalog.Setup setup = PolicyCatalog.create(name, 3, BalanceSettings.defaults(), id -> 50);
            Router router = new Router(state, setup.policy(), setup.learners());
            SplittableRandom random = new SplittableRandom(5);
            List<TrackedRequest> live = new ArrayList<>();
            router.setWorkerDraining(2, true);
            router.setWorkerDraining(5, true);
            int placed = 0;
            for (int i = 0; i < 400; i++) {
                TrackedRequest r = new TrackedRequest(i, 1 + random.nextInt(8000), i % 7, 100, i);
                router.submit(r);
                live.add(r);
                router.dispatch();
                for (TrackedRequest t : List.copyOf(live)) {
                    if (t.phase() == TrackedRequest.Phase.RUNNING || t.phase() == TrackedRequest.Phase.QUEUED) {
                        assertTrue(t.worker() != 2 && t.worker() != 5, name + " placed request " + t.id()
                                + " on draining worker " + t.worker());
                        if (random.nextInt(3) == 0) {
                            router.onTokens(t, 1 + random.nextInt(20));
                            if (t.phase() == TrackedRequest.Phase.RUNNING) {
                                router.complete(t);
                                live.remove(t);
                                placed++;
                            }
                        }
                    }
                }
                state.advanceStep();
            }
            assertTrue(placed > 100, name + " placed only " + placed);
            assertEquals(0, state.running(2) + state.running(5), name);
        }
    }
}
