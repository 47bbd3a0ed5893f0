package org.balanceroute.policy.balance;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import org.balanceroute.api.RequestView;
import org.balanceroute.api.TerminationPredictor;
import org.balanceroute.core.PoolState;
import org.balanceroute.core.Router;
import org.balanceroute.core.TrackedRequest;
import org.junit.jupiter.api.Test;

/** BR-H with projectedSlots: admission against the slots of requests predicted to end soon. */
class ProjectedSlotsTest {

    /** Requests with an id below 100 end in 2 steps; the others survive the horizon. */
    private static final TerminationPredictor ENDS_SOON = new TerminationPredictor() {
        public String name() { return "ends-soon"; }
        public int predictEnd(RequestView r, int horizon, double confidence) {
            return r.id() < 100 ? 2 : SURVIVES;
        }
        public void onCompleted(RequestView r, int n) { }
    };

    /**
     * Two full workers (capacity 2): worker 0, the lighter, has requests that end in 2 steps,
     * worker 1's survive; a pool of 3 small requests, any two of which fit worker 0's margin.
     */
    private static Router dispatchOnFullCluster(int projectedSlots) {
        PoolState state = new PoolState(2, 2);
        Router router = new Router(state, new Fixtures.Holding(), List.of());
        Fixtures.Placer placer = new Fixtures.Placer();
        router.setPolicy(placer);
        for (long id : new long[] {1, 2}) {
            placer.target = 0;
            router.submit(new TrackedRequest(id, 100, 0, 0, 0));
        }
        for (long id : new long[] {101, 102}) {
            placer.target = 1;
            router.submit(new TrackedRequest(id, 10_000, 0, 0, 0));
        }
        router.setPolicy(new Fixtures.Holding());
        for (long id = 200; id < 203; id++) {
            router.submit(new TrackedRequest(id, 500, 0, 0, 0));
        }
        router.setPolicy(BalancePolicy.brh("ends-soon", BalanceSettings.defaults().withProjectedSlots(projectedSlots),
                ENDS_SOON));
        router.dispatch();
        return router;
    }

    @Test
    void offPlacesNothingOnAFullCluster() {
        PoolState state = dispatchOnFullCluster(0).state();
        assertEquals(0, state.queued(0));
        assertEquals(0, state.queued(1));
    }

    @Test
    void queuesAgainstTheSlotsOfRequestsEndingWithinK() {
        Router router = dispatchOnFullCluster(2);
        assertEquals(2, router.state().queued(0), "worker 0's two requests end within 2 steps: two projected slots");
        assertEquals(0, router.state().queued(1), "worker 1's survive: none");
        router.dispatch();
        assertEquals(2, router.state().queued(0), "the queued requests hold those slots");
    }

    @Test
    void requestsEndingAfterKFreeNothingYet() {
        PoolState state = dispatchOnFullCluster(1).state();
        assertEquals(0, state.queued(0) + state.queued(1));
    }

    @Test
    void endingWithinCountsThePredictedEndsUpToK() {
        PoolState state = dispatchOnFullCluster(0).state();
        HorizonScore score = new HorizonScore(BalanceSettings.defaults(), ENDS_SOON);
        score.prepare(state);
        assertEquals(2, score.endingWithin(0, 2));
        assertEquals(0, score.endingWithin(0, 1));
        assertEquals(0, score.endingWithin(1, BalanceSettings.MAX_PROJECTED_SLOTS));
    }

    @Test
    void withProjectedSlotsTheQueueWeighsOnTheMargins() {
        PoolState state = dispatchOnFullCluster(2).state(); // worker 0: 2 x 100 running, 2 x 500 queued
        BalanceSettings now = BalanceSettings.defaults().withOrdering(BalanceSettings.Stage1Worker.MARGIN,
                BalanceSettings.HorizonMargin.NOW);
        HorizonScore off = new HorizonScore(now, ENDS_SOON);
        HorizonScore on = new HorizonScore(now.withProjectedSlots(2), ENDS_SOON);
        off.prepare(state);
        on.prepare(state);
        assertEquals(20_000 - 200, off.orderMargin(0));
        assertEquals(20_000 - 200 - 1000, on.orderMargin(0));
    }
}
