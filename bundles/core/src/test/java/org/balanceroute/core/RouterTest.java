package org.balanceroute.core;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import org.balanceroute.api.DispatchStep;
import org.balanceroute.api.PoolSnapshot;
import org.balanceroute.api.PoolView;
import org.balanceroute.api.RequestView;
import org.balanceroute.api.RoutingPolicy;
import org.junit.jupiter.api.Test;

class RouterTest {

    /** Routes every arrival to a fixed worker. */
    record Fixed(int worker) implements RoutingPolicy {
        public String name() { return "fixed-" + worker; }
        public boolean usesPromptPool() { return false; }
        public int route(PoolView c, RequestView r) { return worker; }
    }

    /** Holds requests in the pool and places the oldest on worker 0 each step. */
    static final class OldestToZero implements RoutingPolicy {
        public String name() { return "oldest-to-0"; }
        public boolean usesPromptPool() { return true; }
        public int route(PoolView c, RequestView r) { return 0; }
        public void dispatch(DispatchStep step) {
            if (step.view().freeSlots(0) > 0) {
                step.assign(0, 0);
            }
        }
    }

    private static TrackedRequest request(long id, int prompt) {
        return new TrackedRequest(id, prompt, 0, 100, 0);
    }

    @Test
    void fullWorkerQueuesFcfsAndAdmitsOnRelease() {
        PoolState state = new PoolState(2, 2);
        Router router = new Router(state, new Fixed(1), List.of());
        TrackedRequest a = request(1, 10), b = request(2, 20), c = request(3, 30), d = request(4, 40);
        router.submit(a);
        router.submit(b);
        router.submit(c);
        router.submit(d);
        assertEquals(2, state.running(1));
        assertEquals(2, state.queued(1));
        assertEquals(70, state.queuedTokens(1));
        assertEquals(30, state.load(1));
        assertEquals(400, state.inFlightBytes(1));
        assertEquals(0, state.freeSlots(1));

        router.onTokens(a, 5);
        assertEquals(35, state.load(1));
        router.complete(a);
        // c was queued first: it runs now, d still waits
        assertEquals(TrackedRequest.Phase.RUNNING, c.phase());
        assertEquals(TrackedRequest.Phase.QUEUED, d.phase());
        assertEquals(50, state.load(1));
        assertEquals(40, state.queuedTokens(1));
        assertEquals(300, state.inFlightBytes(1));
    }

    @Test
    void loadsReturnToZeroWhateverTheOrderOfEndings() {
        PoolState state = new PoolState(3, 4);
        Router router = new Router(state, new RoundRobin(), List.of());
        List<TrackedRequest> all = new ArrayList<>();
        for (int i = 0; i < 20; i++) {
            TrackedRequest r = request(i, 100 + i);
            all.add(r);
            router.submit(r);
        }
        java.util.Random random = new java.util.Random(7);
        while (!all.isEmpty()) {
            TrackedRequest r = all.remove(random.nextInt(all.size()));
            if (r.phase() == TrackedRequest.Phase.RUNNING) {
                router.onTokens(r, 3);
                router.complete(r);
            } else {
                router.abort(r);
            }
        }
        for (int g = 0; g < 3; g++) {
            assertEquals(0, state.load(g));
            assertEquals(0, state.running(g));
            assertEquals(0, state.queued(g));
            assertEquals(0, state.queuedTokens(g));
            assertEquals(0, state.inFlightBytes(g));
        }
    }

    static final class RoundRobin implements RoutingPolicy {
        private int next;
        public String name() { return "rr"; }
        public boolean usesPromptPool() { return false; }
        public int route(PoolView c, RequestView r) { return next++ % c.workers(); }
    }

    @Test
    void poolPolicyPlacesOnlyAtDispatchAndAssignmentsApplyAtOnce() {
        PoolState state = new PoolState(2, 1);
        Router router = new Router(state, new OldestToZero(), List.of());
        TrackedRequest a = request(1, 10), b = request(2, 20);
        router.submit(a);
        router.submit(b);
        assertEquals(2, router.pool().size());
        assertEquals(0, state.load(0));
        assertEquals(1, router.dispatch());
        assertEquals(10, state.load(0));
        assertEquals(b, router.pool().get(0));
        assertEquals(0, router.dispatch(), "worker 0 is full");
    }

    @Test
    void assigningToAFullWorkerIsRefused() {
        PoolState state = new PoolState(1, 1);
        RoutingPolicy greedy = new RoutingPolicy() {
            public String name() { return "overfill"; }
            public boolean usesPromptPool() { return true; }
            public int route(PoolView c, RequestView r) { return 0; }
            public void dispatch(DispatchStep step) {
                while (!step.pool().isEmpty()) {
                    step.assign(0, 0);
                }
            }
        };
        Router router = new Router(state, greedy, List.of());
        router.submit(request(1, 5));
        router.submit(request(2, 5));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, router::dispatch);
        assertTrue(e.getMessage().contains("no free slot"), e.getMessage());
    }

    @Test
    void switchingToAnArrivalPolicyRoutesThePoolAndKeepsRunningRequestsWhereTheyAre() {
        PoolState state = new PoolState(2, 4);
        Router router = new Router(state, new OldestToZero(), List.of());
        TrackedRequest a = request(1, 10), b = request(2, 20), c = request(3, 30);
        router.submit(a);
        router.submit(b);
        router.submit(c);
        router.dispatch();
        router.setPolicy(new Fixed(1));
        assertEquals(0, router.pool().size());
        assertEquals(0, a.worker(), "sticky");
        assertEquals(1, b.worker());
        assertEquals(1, c.worker());
    }

    @Test
    void tokensOfAQueuedRequestCountFromWhenItStarts() {
        PoolState state = new PoolState(1, 1);
        Router router = new Router(state, new Fixed(0), List.of());
        TrackedRequest a = request(1, 10), b = request(2, 20);
        router.submit(a);
        router.submit(b);
        assertEquals(TrackedRequest.Phase.QUEUED, b.phase());
        router.onTokens(b, 3); // the engine admitted b before a's end reached the router
        assertEquals(10, state.load(0), "a queued request adds nothing to its worker's load");
        router.complete(a);
        assertEquals(TrackedRequest.Phase.RUNNING, b.phase());
        assertEquals(23, state.load(0), "its tokens so far count from when it starts");
        router.complete(b);
        assertEquals(0, state.load(0));
        assertThrows(IllegalStateException.class, () -> router.onTokens(b, 1));
    }

    @Test
    void completionsTeachListenersButAbortsDoNot() {
        PoolState state = new PoolState(1, 4);
        List<Integer> learned = new ArrayList<>();
        Router router = new Router(state, new Fixed(0), List.of((r, n) -> learned.add(n)));
        TrackedRequest a = request(1, 10), b = request(2, 10);
        router.submit(a);
        router.submit(b);
        router.onTokens(a, 7);
        router.onTokens(b, 2);
        router.complete(a);
        router.abort(b);
        assertEquals(List.of(7), learned);
    }

    @Test
    void routingOutsideTheClusterIsAnError() {
        Router router = new Router(new PoolState(2, 1), new Fixed(5), List.of());
        IllegalStateException e = assertThrows(IllegalStateException.class, () -> router.submit(request(1, 1)));
        assertTrue(e.getMessage().contains("fixed-5"), e.getMessage());
    }

    @Test
    void snapshotCopiesTheState() {
        PoolState state = new PoolState(2, 2);
        Router router = new Router(state, new Fixed(0), List.of());
        router.submit(request(1, 10));
        PoolSnapshot s1 = state.snapshot("proxy-a", 5, router.pool().size());
        router.submit(request(2, 15));
        assertEquals(10, s1.load(0), "a snapshot does not change with the state");
        assertEquals(25, state.snapshot("proxy-a", 6, 0).load(0));
    }

    @Test
    void anUnavailableWorkerOffersNoSlotsAndKeepsWhatRunsOnIt() {
        PoolState state = new PoolState(2, 2);
        Router router = new Router(state, new Fixed(0), List.of());
        TrackedRequest running = request(1, 10);
        router.submit(running);
        assertTrue(router.setWorkerAvailable(0, false));
        assertEquals(false, router.setWorkerAvailable(0, false), "no change the second time");
        assertEquals(0, state.freeSlots(0));
        assertEquals(2, state.freeSlots(1));
        assertEquals(1, state.availableWorkers());
        assertArrayEquals(new boolean[] {false, true}, state.snapshot("p", 0, 0).available(),
                "the snapshot shows who is out of routing");
        assertEquals(TrackedRequest.Phase.RUNNING, running.phase());
        assertEquals(10, state.load(0));
        router.complete(running);
        assertEquals(0, state.load(0));
        assertTrue(router.setWorkerAvailable(0, true));
        assertEquals(2, state.freeSlots(0));
    }

    @Test
    void anArrivalPolicyThatPicksAnUnavailableWorkerIsRedirectedToTheLeastOutstandingAvailableOne() {
        PoolState state = new PoolState(3, 4);
        Router router = new Router(state, new Fixed(0), List.of());
        router.setWorkerAvailable(0, false);
        router.setWorkerAvailable(1, true);
        TrackedRequest a = request(1, 10), b = request(2, 10);
        router.submit(a);
        router.submit(b);
        assertEquals(1, a.worker());
        assertEquals(2, b.worker(), "worker 1 has one outstanding, worker 2 none");
    }

    @Test
    void withEveryWorkerMarkedDownAnArrivalPolicysRequestsWaitInThePoolUntilOneIsBack() {
        PoolState state = new PoolState(2, 4);
        Router router = new Router(state, new RoundRobin(), List.of());
        router.setWorkerAvailable(0, false);
        router.setWorkerAvailable(1, false);
        assertEquals(0, state.availableWorkers());
        assertEquals(0, state.freeSlots(0));
        TrackedRequest a = request(1, 10), b = request(2, 20);
        router.submit(a);
        router.submit(b);
        assertEquals(TrackedRequest.Phase.POOLED, a.phase(), "not sent to a worker marked down");
        assertEquals(2, router.pool().size());
        assertEquals(0, router.dispatch(), "still every worker down");
        router.setWorkerAvailable(1, true);
        assertEquals(2, router.dispatch(), "the step after one is back places them");
        assertEquals(1, a.worker());
        assertEquals(1, b.worker(), "worker 0 still down");
        router.setPolicy(new RoundRobin());
        router.setWorkerAvailable(1, false);
        TrackedRequest c = request(3, 30);
        router.submit(c);
        router.setPolicy(new RoundRobin());
        assertEquals(TrackedRequest.Phase.POOLED, c.phase(), "a policy switch does not send it to a worker marked down");
        router.abort(c);
        assertEquals(0, router.pool().size(), "a timed-out request leaves the pool");
    }

    @Test
    void withEveryWorkerMarkedDownAPoolPolicyPlacesNothing() {
        PoolState state = new PoolState(1, 4);
        Router router = new Router(state, new OldestToZero(), List.of());
        router.setWorkerAvailable(0, false);
        router.submit(request(1, 10));
        assertEquals(0, router.dispatch());
        router.setWorkerAvailable(0, true);
        assertEquals(1, router.dispatch());
    }

    @Test
    void aPoolPolicyCannotAssignToAnUnavailableWorker() {
        PoolState state = new PoolState(2, 4);
        Router router = new Router(state, new OldestToZero(), List.of());
        router.submit(request(1, 10));
        router.setWorkerAvailable(0, false);
        assertEquals(0, router.dispatch(), "worker 0 shows no free slot");
        router.setWorkerAvailable(0, true);
        assertEquals(1, router.dispatch());
    }

    @Test
    void restorePutsARequestOnItsWorkerWithItsTokensAndQueuesItWhenTheWorkerIsFull() {
        PoolState state = new PoolState(2, 1);
        Router router = new Router(state, new Fixed(0), List.of());
        TrackedRequest a = request(1, 10), b = request(2, 20);
        router.restore(a, 1, 5);
        router.restore(b, 1, 3);
        assertEquals(TrackedRequest.Phase.RUNNING, a.phase());
        assertEquals(TrackedRequest.Phase.QUEUED, b.phase());
        assertEquals(15, state.load(1), "s + decoded of the running one");
        assertEquals(1, state.queued(1));
        assertEquals(0, state.load(0));
        router.complete(a);
        assertEquals(TrackedRequest.Phase.RUNNING, b.phase());
        assertEquals(23, state.load(1), "the queued one starts with the tokens it had");
        assertThrows(IllegalStateException.class, () -> router.restore(b, 0, 0));
        assertThrows(IllegalArgumentException.class, () -> router.restore(request(3, 1), 2, 0));
        assertThrows(IllegalArgumentException.class, () -> router.restore(request(4, 1), 0, -1));
    }
}
