package org.balanceroute.router.internal;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.awaitility.Awaitility;
import org.balanceroute.api.DispatchStep;
import org.balanceroute.api.PoolSnapshot;
import org.balanceroute.api.PoolView;
import org.balanceroute.api.RequestView;
import org.balanceroute.api.RoutingPolicy;
import org.balanceroute.api.TerminationPredictor;
import org.balanceroute.api.config.ConfigProperties;
import org.balanceroute.api.config.ConfigurationException;
import org.balanceroute.policy.balance.BalancePolicy;
import org.balanceroute.policy.balance.BalanceSettings;
import org.balanceroute.policy.baseline.JoinShortestQueuePolicy;
import org.balanceroute.router.Placement;
import org.balanceroute.router.RouterService;
import org.balanceroute.router.StepResult;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class RouterComponentTest {

    private static final long TIMEOUT_S = 10;

    /** A pool policy that puts every waiting request it can on the last worker. */
    static class ToLastWorker implements RoutingPolicy {
        public String name() { return "to-last"; }
        public boolean usesPromptPool() { return true; }
        public int route(PoolView c, RequestView r) { return c.workers() - 1; }
        public void dispatch(DispatchStep step) {
            int last = step.view().workers() - 1;
            while (!step.pool().isEmpty() && step.view().freeSlots(last) > 0) {
                step.assign(0, last);
            }
        }
    }

    /** Records what it learns. */
    static final class RecordingPredictor implements TerminationPredictor {
        final List<long[]> learned = new ArrayList<>();
        public String name() { return "recording"; }
        public int predictEnd(RequestView r, int h, double c) { return SURVIVES; }
        public void onCompleted(RequestView r, int out) { learned.add(new long[] {r.id(), out}); }
    }

    private final AtomicLong serviceIds = new AtomicLong();
    private RouterComponent router;

    private RouterComponent start(Map<String, ?> config, RoutingPolicy... policies) {
        return start(config, () -> 0L, policies);
    }

    /**
     * Starts a router; {@code workers} and {@code capacity} entries are its layout (the topology's,
     * in the runtime): one instance of that many workers {@code w0, w1, ...} of that B (default 8 x 64;
     * 0 workers: none told yet).
     */
    private RouterComponent start(Map<String, ?> config, java.util.function.LongSupplier clock, RoutingPolicy... policies) {
        Map<String, Object> c = new HashMap<>(config);
        Object workers = c.remove("workers");
        Object capacity = c.remove("capacity");
        router = new RouterComponent((c), clock);
        for (RoutingPolicy p : policies) {
            bind(p);
        }
        router.start();
        int g = workers == null ? 8 : (Integer) workers;
        if (g > 0) { // 0: no layout yet
            setLayout(g, capacity == null ? 64 : (Integer) capacity);
        }
        return router;
    }

    /** A new configuration; {@code workers} (and {@code capacity}) entries are a new layout. */
    private void reconfigure(Map<String, ?> config) {
        Map<String, Object> c = new HashMap<>(config);
        Object workers = c.remove("workers");
        Object capacity = c.remove("capacity");
        router.modified((c));
        if (workers != null) {
            setLayout((Integer) workers, capacity == null ? 64 : (Integer) capacity);
        }
    }

    /** One instance of {@code g} workers {@code w0 .. w(g-1)}, each of B {@code capacity}. */
    private void setLayout(int g, int capacity) {
        router.setLayout(ids(g), new int[] {g}, new int[] {capacity});
    }

    private static List<String> ids(int g) {
        List<String> ids = new ArrayList<>();
        for (int i = 0; i < g; i++) {
            ids.add("w" + i);
        }
        return ids;
    }

    private void bind(RoutingPolicy p) {
        router.bindPolicy(p, props(p.name()));
    }

    private Map<String, Object> props(String name) {
        Map<String, Object> m = new HashMap<>();
        m.put(RoutingPolicy.NAME_PROPERTY, name);
        m.put("service.id", serviceIds.incrementAndGet());
        return m;
    }

    @AfterEach
    void stop() {
        if (router != null) {
            router.stop();
        }
    }

    private static <T> T get(CompletableFuture<T> f) throws Exception {
        return f.get(TIMEOUT_S, TimeUnit.SECONDS);
    }

    /** A round trip through the dispatch thread: everything enqueued before is applied. */
    private void sync() throws Exception {
        get(router.complete(Long.MIN_VALUE));
    }

    private static BalancePolicy br0() {
        return BalancePolicy.br0(BalanceSettings.defaults());
    }

    @Test
    void switchingPolicyChangesTheNextStepsDecisions() throws Exception {
        start(Map.of("policy", "to-last", "workers", 4, "capacity", 4), new ToLastWorker(), br0());
        assertEquals("to-last", router.activePolicy());
        List<CompletableFuture<Placement>> first = List.of(router.submit(1, 1000, 0, 10), router.submit(2, 500, 0, 10));
        StepResult step0 = get(router.dispatchStep());
        assertEquals(List.of(new Placement(1, 3, "w3"), new Placement(2, 3, "w3")), step0.placements());
        assertEquals(0, step0.step());
        assertEquals("to-last", step0.policy());
        assertEquals(new Placement(1, 3, "w3"), get(first.get(0)));

        reconfigure(Map.of("policy", "br0", "workers", 4, "capacity", 4));
        router.submit(3, 800, 0, 10);
        router.submit(4, 700, 0, 10);
        StepResult step1 = get(router.dispatchStep());
        assertEquals("br0", step1.policy());
        assertEquals("br0", router.activePolicy());
        assertEquals(2, step1.placements().size());
        for (Placement p : step1.placements()) {
            assertTrue(p.worker() != 3, "br0 fills the lighter workers, not the loaded one: " + step1);
        }
        PoolSnapshot s = router.snapshot();
        assertEquals(1500, s.load(3), "requests already running stay where they are");
        assertEquals(2, s.running()[3]);
        assertEquals(1500, s.loads()[0] + s.loads()[1] + s.loads()[2]);
        assertEquals(2, s.step());
        assertEquals(0, s.poolDepth());
    }

    @Test
    void theDispatchObserverIsToldEveryStepUntilUnbound() throws Exception {
        start(Map.of("policy", "to-last", "workers", 2, "capacity", 4), new ToLastWorker());
        List<long[]> steps = new java.util.concurrent.CopyOnWriteArrayList<>();
        org.balanceroute.router.DispatchObserver observer =
                (nanos, imbalance, depth) -> steps.add(new long[] {nanos, imbalance, depth});
        router.bindObserver(observer);
        router.submit(1, 1000, 0, 10);
        get(router.dispatchStep());
        router.submit(2, 300, 0, 10);
        get(router.dispatchStep());
        assertEquals(2, steps.size());
        assertTrue(steps.get(0)[0] >= 0, "a duration");
        assertEquals(1000, steps.get(0)[1], "max - min after the first step");
        assertEquals(1300, steps.get(1)[1]);
        assertEquals(0, steps.get(1)[2], "pool empty");

        router.bindObserver((nanos, imbalance, depth) -> { throw new IllegalStateException("broken observer"); });
        router.unbindObserver(observer); // an old one unbound after its replacement: the replacement stays
        get(router.dispatchStep());       // a failing observer does not fail the step
        router.unbindObserver(null);
        router.bindObserver(observer);
        router.unbindObserver(observer);
        get(router.dispatchStep());
        assertEquals(2, steps.size(), "not told once unbound");
    }

    @Test
    void poolDepthIsPublishedWithoutAskingTheDispatchThread() throws Exception {
        start(Map.of("policy", "br0", "workers", 2, "capacity", 4), br0());
        assertEquals(0, router.poolDepth());
        router.submit(1, 100, 0, 10);
        router.submit(2, 100, 0, 10);
        awaitPoolDepth(2);
        router.abort(1);
        awaitPoolDepth(1);
        router.dispatchStep();
        awaitPoolDepth(0);
    }

    /** Published after the command that changed it, so polled (it never blocks). */
    private void awaitPoolDepth(int expected) {
        Awaitility.await("pool depth " + expected).atMost(Duration.ofSeconds(TIMEOUT_S))
                .pollInterval(Duration.ofMillis(1)).until(router::poolDepth, depth -> depth == expected);
    }

    @Test
    void switchToAnArrivalPolicyPlacesThePoolAtOnce() throws Exception {
        start(Map.of("policy", "br0", "workers", 2, "capacity", 4), br0(), new JoinShortestQueuePolicy());
        CompletableFuture<Placement> a = router.submit(1, 100, 0, 10);
        CompletableFuture<Placement> b = router.submit(2, 100, 0, 10);
        sync();
        assertFalse(a.isDone(), "br0 holds requests in the pool until a dispatch step");
        assertEquals(2, router.snapshot().poolDepth());

        reconfigure(Map.of("policy", "jsq", "workers", 2, "capacity", 4));
        assertEquals(0, get(a).worker());
        assertEquals(1, get(b).worker());
        assertEquals("jsq", router.activePolicy());
        assertEquals(0, router.snapshot().poolDepth());
        // arrival policy: placed at submission
        assertEquals(0, get(router.submit(3, 100, 0, 10)).worker());
    }

    @Test
    void removingTheActivePolicyFallsBackAndComesBack() throws Exception {
        BalancePolicy br0 = br0();
        start(Map.of("policy", "br0", "fallbackPolicy", "jsq", "workers", 2, "capacity", 4),
                br0, new JoinShortestQueuePolicy());
        assertEquals("br0", router.activePolicy());
        CompletableFuture<Placement> pooled = router.submit(1, 100, 0, 10);
        sync();
        assertFalse(pooled.isDone());

        router.unbindPolicy(br0);
        assertEquals(0, get(pooled).worker(), "the fallback takes the pool over, nothing is dropped");
        assertEquals("jsq", router.activePolicy());
        assertEquals("br0", router.configuredPolicy());
        assertEquals(List.of("jsq"), router.availablePolicies());
        assertEquals(1, get(router.submit(2, 100, 0, 10)).worker(), "jsq routes at arrival");

        BalancePolicy again = br0();
        bind(again);
        sync();
        assertEquals("br0", router.activePolicy());
        CompletableFuture<Placement> later = router.submit(3, 100, 0, 10);
        sync();
        assertFalse(later.isDone(), "br0 is back: requests wait for the next dispatch step");
        assertEquals(1, get(router.dispatchStep()).placements().size());
        assertTrue(later.isDone());
    }

    @Test
    void withNoPolicyAvailableRequestsWaitInThePool() throws Exception {
        start(Map.of("policy", "br0", "fallbackPolicy", "jsq", "workers", 2, "capacity", 4));
        assertEquals(RouterService.NO_POLICY, router.activePolicy());
        CompletableFuture<Placement> waiting = router.submit(1, 100, 0, 10);
        StepResult step = get(router.dispatchStep());
        assertEquals(List.of(), step.placements());
        assertEquals(1, step.poolDepth());
        assertFalse(waiting.isDone());

        bind(new JoinShortestQueuePolicy());
        assertEquals(0, get(waiting).worker());
        assertEquals("jsq", router.activePolicy());
    }

    @Test
    void requestsThatWaitedForAPolicyArePlacedWhenTheConfigurationNamesOneWithNothingElseHappening() throws Exception {
        start(Map.of("policy", "hold", "fallbackPolicy", "hold", "workers", 2, "capacity", 4), br0());
        CompletableFuture<Placement> waiting = router.submit(1, 100, 0, 10);
        sync();
        assertFalse(waiting.isDone());
        // no arrival, no release, no dispatchStep() after it: the switch itself asks for a step
        reconfigure(Map.of("policy", "br0", "fallbackPolicy", "jsq"));
        assertTrue(get(waiting).worker() >= 0, "placed by br0's own step");
        assertEquals("br0", router.activePolicy());
    }

    @Test
    void invalidConfigurationKeepsThePreviousOne() throws Exception {
        start(Map.of("policy", "br0", "workers", 2, "capacity", 4), br0(), new JoinShortestQueuePolicy(),
                new ToLastWorker());
        reconfigure(Map.of("policy", "  "));
        reconfigure(Map.of("policy", "jsq", "stepIntervalMillis", -1L));
        reconfigure(Map.of("policy", "jsq", "stepIntervalMillis", "eight"));
        sync();
        assertEquals("br0", router.configuredPolicy());
        assertEquals("br0", router.activePolicy());
        assertFalse(router.automaticStepping());
        assertEquals(2, router.snapshot().workers());

        reconfigure(Map.of("policy", "to-last", "workers", 2, "capacity", 4));
        sync();
        assertEquals("to-last", router.activePolicy());
    }

    @Test
    void invalidInitialConfigurationFailsTheActivationNamingPidAndProperty() {
        ConfigurationException e = assertThrows(ConfigurationException.class,
                () -> new RouterComponent(Map.of("policy", "jsq", "stepIntervalMillis", 60_001L), () -> 0L));
        assertEquals("org.balanceroute.router: stepIntervalMillis must be an integer in [0, 60000], got 60001",
                e.getMessage());
        e = assertThrows(ConfigurationException.class,
                () -> new RouterComponent(Map.of("fallbackPolicy", " "), () -> 0L));
        assertEquals("org.balanceroute.router: fallbackPolicy must be a non-empty policy name, got ''", e.getMessage());
    }

    @Test
    void absentPropertiesAreTheMetatypeDefaults() {
        RouterSettings s = RouterSettings.read(ConfigProperties.of(RouterService.PID, Map.of()));
        assertEquals(new RouterSettings("br0", "jsq", 0), s);
    }

    @Test
    void predictorsLearnEveryCompletionWhateverPolicyIsActive() throws Exception {
        start(Map.of("policy", "jsq", "workers", 2, "capacity", 4), new JoinShortestQueuePolicy());
        RecordingPredictor predictor = new RecordingPredictor();
        router.bindPredictor(predictor);
        get(router.submit(7, 100, 42, 10));
        router.tokens(7, 3);
        router.tokens(7, 2);
        assertTrue(get(router.complete(7)));
        assertEquals(1, predictor.learned.size());
        assertEquals(7, predictor.learned.get(0)[0]);
        assertEquals(5, predictor.learned.get(0)[1]);
        assertFalse(get(router.complete(7)), "already completed");

        router.unbindPredictor(predictor);
        get(router.submit(8, 100, 42, 10));
        assertTrue(get(router.complete(8)));
        assertEquals(1, predictor.learned.size(), "an unbound predictor is no longer taught");
    }

    @Test
    void tokensCompleteAndAbortKeepTheLoadsRight() throws Exception {
        start(Map.of("policy", "jsq", "workers", 2, "capacity", 1), new JoinShortestQueuePolicy());
        get(router.submit(1, 100, 0, 10));
        get(router.submit(2, 200, 0, 10));
        assertEquals(0, get(router.submit(3, 300, 0, 10)).worker(), "queued behind request 1");
        router.tokens(1, 10);
        PoolSnapshot s = router.snapshot();
        assertEquals(110, s.load(0));
        assertEquals(200, s.load(1));
        assertEquals(1, s.queued()[0]);

        assertTrue(get(router.complete(1)));
        s = router.snapshot();
        assertEquals(300, s.load(0), "the queued request runs once a slot frees");
        assertEquals(0, s.queued()[0]);
        assertTrue(get(router.abort(2)));
        assertEquals(0, router.snapshot().load(1));
        assertFalse(get(router.abort(2)));
    }

    @Test
    void abortingAPooledRequestCancelsItsPlacement() throws Exception {
        start(Map.of("policy", "br0", "workers", 2, "capacity", 4), br0());
        CompletableFuture<Placement> f = router.submit(1, 100, 0, 10);
        assertTrue(get(router.abort(1)));
        assertThrows(CancellationException.class, () -> get(f));
        assertTrue(f.isCancelled());
        assertEquals(0, router.snapshot().poolDepth());
    }

    @Test
    void aDuplicateIdIsRejected() throws Exception {
        start(Map.of("policy", "br0", "workers", 2, "capacity", 4), br0());
        router.submit(1, 100, 0, 10);
        ExecutionException e = assertThrows(ExecutionException.class, () -> get(router.submit(1, 50, 0, 10)));
        assertInstanceOf(IllegalArgumentException.class, e.getCause());
        assertThrows(IllegalArgumentException.class, () -> router.submit(2, 0, 0, 10));
        assertThrows(IllegalArgumentException.class, () -> router.tokens(1, 0));
    }

    @Test
    void automaticSteppingPlacesWithoutBeingAsked() throws Exception {
        start(Map.of("policy", "br0", "workers", 2, "capacity", 4, "stepIntervalMillis", 5L), System::nanoTime, br0());
        assertTrue(router.automaticStepping());
        assertTrue(get(router.submit(1, 100, 0, 10)).worker() >= 0);
    }

    @Test
    void aRequestedStepRunsAtOnceWhileNoCadenceIsKnown() throws Exception {
        start(Map.of("policy", "to-last", "workers", 2, "capacity", 4), new ToLastWorker());
        CompletableFuture<Placement> placed = router.submit(1, 100, 0, 10);
        sync();
        assertFalse(placed.isDone(), "a pool policy places only in a step");
        router.requestStep();
        assertEquals(1, get(placed).worker());
        assertEquals(0, router.observedStepNanos());
    }

    @Test
    void requestedStepsFollowTheDecodeCadenceSeenInTheStreams() throws Exception {
        AtomicLong now = new AtomicLong(1_000_000_000L);
        long ms = 1_000_000L;
        start(Map.of("policy", "to-last", "workers", 2, "capacity", 8), now::get, new ToLastWorker());
        CompletableFuture<Placement> first = router.submit(1, 100, 0, 10);
        router.requestStep();
        get(first);
        router.tokens(1, 16);                 // the first report only starts the measurement
        now.addAndGet(160 * ms);
        router.tokens(1, 16);                 // 16 tokens in 160 ms: a 10 ms decode step
        sync();
        assertEquals(10 * ms, router.observedStepNanos());

        long stepsBefore = router.snapshot().step();
        CompletableFuture<Placement> second = router.submit(2, 100, 0, 10);
        router.requestStep();                 // a period has passed since the last step: at once
        get(second);
        assertEquals(stepsBefore + 1, router.snapshot().step());

        CompletableFuture<Placement> third = router.submit(3, 100, 0, 10);
        CompletableFuture<Placement> fourth = router.submit(4, 100, 0, 10);
        router.requestStep();
        router.requestStep();                 // asked twice within one decode step: one step
        sync();
        // the (frozen) clock says the next step is 10 ms away: not placed, however long it waits
        Awaitility.await("placed before the next decode step boundary").during(Duration.ofMillis(50))
                .atMost(Duration.ofSeconds(TIMEOUT_S)).until(() -> !third.isDone());
        now.addAndGet(10 * ms);
        assertEquals(1, get(third).worker());
        assertEquals(1, get(fourth).worker());
        assertEquals(stepsBefore + 2, router.snapshot().step(), "both placed by one step");
    }

    @Test
    void aNewLayoutAppliesAtOnceWithRequestsInFlight() throws Exception {
        start(Map.of("policy", "jsq", "workers", 0), new JoinShortestQueuePolicy(), new ToLastWorker());
        RecordingPredictor predictor = new RecordingPredictor();
        router.bindPredictor(predictor);
        router.setLayout(List.of("a", "b", "c"), new int[] {3}, new int[] {4});
        assertEquals(new Placement(1, 0, "a"), get(router.submit(1, 100, 0, 10)));
        assertEquals(new Placement(2, 1, "b"), get(router.submit(2, 200, 0, 10)));
        assertEquals(new Placement(3, 2, "c"), get(router.submit(3, 300, 0, 10)));
        router.tokens(1, 5);
        router.tokens(2, 7);
        long stepBefore = get(router.dispatchStep()).step();

        // b leaves, a moves to index 1, d is new; two instances of their own B
        router.setLayout(List.of("c", "a", "d"), new int[] {2, 1}, new int[] {4, 2});
        PoolSnapshot s = router.snapshot();
        assertEquals(3, s.workers(), "in force at once, with requests on workers");
        assertArrayEquals(new long[] {300, 105, 0}, s.loads(), "a's request and its tokens on a's new index");
        assertArrayEquals(new int[] {1, 1, 0}, s.running());
        assertArrayEquals(new int[] {0, 0, 1}, s.groups());
        assertArrayEquals(new int[] {4, 4, 2}, s.capacities());
        assertEquals(stepBefore + 1, s.step(), "the step index goes on");

        router.tokens(1, 1);
        router.tokens(2, 50);              // on a removed worker: ignored
        assertEquals(106, router.snapshot().load(1));
        assertTrue(get(router.complete(2)), "the request on the removed worker completes");
        assertFalse(get(router.complete(2)), "and is gone");
        assertEquals(List.of(), predictor.learned, "nothing learned from a request whose tokens stopped counting");
        assertTrue(get(router.complete(1)));
        assertEquals(6, predictor.learned.get(0)[1], "the kept request's tokens, before and after the change");
        assertArrayEquals(new long[] {300, 0, 0}, router.snapshot().loads(), "nothing lost or counted twice");

        reconfigure(Map.of("policy", "to-last"));
        CompletableFuture<Placement> next = router.submit(4, 100, 0, 10);
        assertEquals(List.of(new Placement(4, 2, "d")), get(router.dispatchStep()).placements(),
                "the new worker takes requests at the next step");
        assertEquals(new Placement(4, 2, "d"), get(next));
        assertTrue(get(router.abort(3)));
    }

    @Test
    void aNewLayoutKeepsEachWorkersQueueInOrderAndTakesItsCapacity() throws Exception {
        start(Map.of("policy", "jsq", "workers", 0), new JoinShortestQueuePolicy());
        router.setLayout(List.of("a", "b"), new int[] {2}, new int[] {1});
        int[] expected = {0, 1, 0, 1, 0}; // jsq: 3 and 5 queue behind 1 on a, 4 behind 2 on b
        for (int i = 0; i < expected.length; i++) {
            assertEquals(expected[i], get(router.submit(i + 1, 100 * (i + 1), 0, 10)).worker());
        }
        router.setLayout(List.of("b", "a"), new int[] {1, 1}, new int[] {1, 1});
        PoolSnapshot s = router.snapshot();
        assertArrayEquals(new int[] {1, 1}, s.running());
        assertArrayEquals(new int[] {1, 2}, s.queued(), "the queues moved with their workers");
        assertTrue(get(router.complete(1)));
        assertEquals(300, router.snapshot().load(1), "first in a's queue first");
        assertEquals(1, router.snapshot().queued()[1]);

        router.setLayout(List.of("b", "a"), new int[] {2}, new int[] {3});
        s = router.snapshot();
        assertArrayEquals(new int[] {2, 2}, s.running(), "B is 3 now: the queues run");
        assertArrayEquals(new long[] {600, 800}, s.loads());
    }

    @Test
    void theSameLayoutAgainChangesNothing() throws Exception {
        start(Map.of("policy", "to-last", "workers", 2, "capacity", 4), new ToLastWorker());
        router.submit(1, 100, 0, 10);
        router.submit(2, 100, 0, 10);
        get(router.dispatchStep());
        router.setWorkerAvailable(0, false);
        CompletableFuture<Placement> waiting = router.submit(3, 100, 0, 10);
        setLayout(2, 4);
        sync();
        assertFalse(waiting.isDone(), "not re-dispatched");
        PoolSnapshot s = router.snapshot();
        assertEquals(1, s.step());
        assertArrayEquals(new boolean[] {false, true}, s.available());
        assertEquals(200, s.load(1));
        assertEquals(1, s.poolDepth());
    }

    @Test
    void invalidLayoutsAreRejected() {
        start(Map.of("policy", "jsq", "workers", 2), new JoinShortestQueuePolicy());
        Map<String, Runnable> bad = new java.util.LinkedHashMap<>();
        bad.put("a layout has 1 to 1024 workers, got 0", () -> router.setLayout(List.of(), new int[0], new int[0]));
        bad.put("a layout has 1 to 1024 workers, got 1025",
                () -> router.setLayout(ids(1025), new int[] {1025}, new int[] {64}));
        bad.put("one capacity per group: 2 group sizes [1, 1], 1 capacities [64]",
                () -> router.setLayout(ids(2), new int[] {1, 1}, new int[] {64}));
        bad.put("the group sizes [1, 2] add up to 3 workers, but 2 are listed",
                () -> router.setLayout(ids(2), new int[] {1, 2}, new int[] {64, 64}));
        bad.put("group 1 is empty: its size is 0", () -> router.setLayout(ids(2), new int[] {2, 0}, new int[] {64, 64}));
        bad.put("the capacity of group 0 must be in [1, 4096], got 0",
                () -> router.setLayout(ids(2), new int[] {2}, new int[] {0}));
        bad.put("the capacity of group 1 must be in [1, 4096], got 4097",
                () -> router.setLayout(ids(2), new int[] {1, 1}, new int[] {64, 4097}));
        bad.put("worker identity 'w0' repeats: workers 0 and 2",
                () -> router.setLayout(List.of("w0", "w1", "w0"), new int[] {3}, new int[] {64}));
        bad.put("worker 1 has no identity", () -> router.setLayout(List.of("w0", ""), new int[] {2}, new int[] {64}));
        bad.forEach((message, call) -> assertEquals(message,
                assertThrows(IllegalArgumentException.class, call::run).getMessage()));
        assertEquals(2, router.snapshot().workers(), "the layout in force stays");
    }

    @Test
    void aDrainedWorkerTakesNoNewRequestsAndIsDrainedOnceEmpty() throws Exception {
        start(Map.of("policy", "jsq", "workers", 2, "capacity", 4), new JoinShortestQueuePolicy());
        assertEquals(0, get(router.submit(1, 100, 0, 10)).worker());
        router.setWorkerDraining(0, true);
        router.setWorkerDraining(5, true); // outside the layout: ignored
        for (long id = 2; id <= 4; id++) {
            assertEquals(1, get(router.submit(id, 100, 0, 10)).worker(), "no new request on the draining worker");
        }
        PoolSnapshot s = router.snapshot();
        assertTrue(s.draining(0));
        assertFalse(s.drained(0), "its request still runs");
        assertFalse(s.draining(1));
        assertTrue(get(router.complete(1)));
        assertTrue(router.snapshot().drained(0));
        router.setWorkerDraining(0, false);
        assertEquals(0, get(router.submit(5, 100, 0, 10)).worker(), "back once the drain ends");
        assertFalse(router.snapshot().draining(0));
    }

    @Test
    void aDrainFollowsItsWorkerAcrossLayoutChanges() throws Exception {
        start(Map.of("policy", "jsq", "workers", 0), new JoinShortestQueuePolicy());
        router.setLayout(List.of("a", "b"), new int[] {2}, new int[] {4});
        router.setWorkerDraining(0, true);
        router.setLayout(List.of("c", "a", "b"), new int[] {3}, new int[] {4});
        assertArrayEquals(new boolean[] {false, true, false}, router.snapshot().draining(), "a, at its new index");
        for (long id = 1; id <= 4; id++) {
            assertTrue(get(router.submit(id, 100, 0, 10)).worker() != 1, "a takes nothing");
        }
        router.setLayout(List.of("c", "b"), new int[] {2}, new int[] {4});
        router.setLayout(List.of("c", "b", "a"), new int[] {3}, new int[] {4});
        assertArrayEquals(new boolean[3], router.snapshot().draining(), "a worker that left comes back undrained");
    }

    @Test
    void theObserverSeesEachInstancesBarrierWithItsStragglerByPoolIndex() throws Exception {
        start(Map.of("policy", "to-last", "workers", 0), new ToLastWorker());
        router.setLayout(ids(4), new int[] {2, 2}, new int[] {4, 4});
        List<String> steps = new java.util.concurrent.CopyOnWriteArrayList<>();
        router.bindObserver(new org.balanceroute.router.DispatchObserver() {
            @Override
            public void stepCompleted(long nanos, long imbalance, int depth) {
                throw new AssertionError("the router calls the barrier's method");
            }

            @Override
            public void stepCompleted(String pool, long nanos, int depth, org.balanceroute.api.BarrierFigures b) {
                StringBuilder row = new StringBuilder();
                for (int i = 0; i < b.instances(); i++) {
                    row.append(b.idle(i)).append('/').append(b.straggler(i)).append(' ');
                }
                steps.add(row.append(b.imbalance()).toString());
            }
        });
        router.submit(1, 1000, 0, 10);
        get(router.dispatchStep());
        assertEquals("0/-1 1000/3 1000", steps.get(0), "instance 1: G*M - sum = 2*1000 - 1000, worker 3 straggles");
        router.setWorkerDraining(2, true);
        get(router.dispatchStep());
        assertEquals("0/-1 0/-1 0", steps.get(1), "worker 2 drains: worker 3 alone waits for no one");
    }

    @Test
    void theObserverSeesEachInstancesImbalanceOverItsWorkersNotDraining() throws Exception {
        start(Map.of("policy", "to-last", "workers", 0), new ToLastWorker());
        router.setLayout(ids(4), new int[] {2, 2}, new int[] {4, 4});
        List<long[]> steps = new java.util.concurrent.CopyOnWriteArrayList<>();
        router.bindObserver(new org.balanceroute.router.DispatchObserver() {
            @Override
            public void stepCompleted(long nanos, long imbalance, int depth) {
                throw new AssertionError("the router calls the per-instance method");
            }

            @Override
            public void stepCompleted(long nanos, long imbalance, int depth, long[] perGroup) {
                long[] row = java.util.Arrays.copyOf(perGroup, perGroup.length + 1);
                row[perGroup.length] = imbalance;
                steps.add(row);
            }
        });
        router.submit(1, 1000, 0, 10);
        get(router.dispatchStep());
        assertArrayEquals(new long[] {0, 1000, 1000}, steps.get(0), "worker 3 is in instance 1; the sum is the pool's");
        router.setWorkerDraining(2, true);
        get(router.dispatchStep());
        assertArrayEquals(new long[] {0, 0, 0}, steps.get(1), "worker 2 drains: it does not count");
    }

    @Test
    void untilTheWorkerSetIsKnownRequestsWaitInThePool() throws Exception {
        router = new RouterComponent((Map.of("policy", "jsq")), () -> 0L);
        bind(new JoinShortestQueuePolicy());
        router.start();
        CompletableFuture<Placement> waiting = router.submit(1, 100, 0, 10);
        StepResult step = get(router.dispatchStep());
        assertEquals(List.of(), step.placements());
        assertEquals(0, router.snapshot().workers(), "no worker yet");
        assertEquals(1, router.snapshot().poolDepth());
        assertFalse(waiting.isDone());
        setLayout(3, 4);
        assertEquals(0, get(waiting).worker(), "placed once the worker set is known");
        assertEquals(3, router.snapshot().workers());
        assertEquals("jsq", router.activePolicy());
    }

    @Test
    void aShapeChangeKeepsTheRequestsWaitingInThePool() throws Exception {
        start(Map.of("policy", "br0", "workers", 2, "capacity", 4), br0());
        CompletableFuture<Placement> a = router.submit(1, 100, 0, 10);
        CompletableFuture<Placement> b = router.submit(2, 300, 0, 10);
        sync();
        setLayout(5, 4);
        sync();
        PoolSnapshot s = router.snapshot();
        assertEquals(5, s.workers(), "in force at once");
        // kept: still waiting, or placed by the step a new layout asks for when requests wait
        assertEquals(2, s.poolDepth() + java.util.Arrays.stream(s.running()).sum(), "the waiting requests are kept");
        get(router.dispatchStep());
        assertEquals(List.of(1L, 2L), List.of(get(a).requestId(), get(b).requestId()));
    }

    @Test
    void parametersOfRegisteredPolicies() throws Exception {
        RoutingPolicy seeded = new ToLastWorker() {
            @Override
            public Map<String, Object> parameters() {
                return Map.of("seed", 5L);
            }
        };
        start(Map.of("policy", "to-last"), seeded);
        assertEquals(Map.of("seed", 5L), router.policyParameters("to-last"));
        assertEquals(Map.of(), router.policyParameters("br0"));
    }

    @Test
    void aStoppedRouterFailsFast() throws Exception {
        start(Map.of("policy", "jsq"), new JoinShortestQueuePolicy());
        router.stop();
        ExecutionException e = assertThrows(ExecutionException.class, () -> get(router.dispatchStep()));
        assertInstanceOf(IllegalStateException.class, e.getCause());
        assertThrows(IllegalStateException.class, () -> router.snapshot());
        router = null;
    }

    @Test
    void anUnavailableWorkerIsSkippedUntilReadmittedAndKeptAcrossAResize() throws Exception {
        start(Map.of("policy", "jsq", "workers", 2, "capacity", 4), new JoinShortestQueuePolicy(), br0());
        router.setWorkerAvailable(0, false);
        router.setWorkerAvailable(7, false); // outside the cluster: ignored
        for (long id = 1; id <= 3; id++) {
            assertEquals(1, get(router.submit(id, 100, 0, 10)).worker(), "jsq skips worker 0");
        }
        reconfigure(Map.of("policy", "br0", "workers", 2, "capacity", 4));
        CompletableFuture<Placement> pooled = router.submit(4, 100, 0, 10);
        assertEquals(1, get(router.dispatchStep()).placements().size());
        assertEquals(1, get(pooled).worker(), "br0 sees no free slot on worker 0");
        for (long id = 1; id <= 4; id++) {
            assertTrue(get(router.complete(id)));
        }
        reconfigure(Map.of("policy", "jsq", "workers", 3, "capacity", 4));
        assertEquals(3, router.snapshot().workers());
        assertEquals(1, get(router.submit(5, 100, 0, 10)).worker(), "worker 0 still out after the resize");
        assertEquals(2, get(router.submit(6, 100, 0, 10)).worker());
        router.setWorkerAvailable(0, true);
        assertEquals(0, get(router.submit(7, 100, 0, 10)).worker(), "re-admitted");
    }

    @Test
    void withEveryWorkerOutRequestsWaitAndTheReadmissionPlacesThemWithoutAnotherStepOrArrival() throws Exception {
        for (RoutingPolicy policy : List.of(br0(), new JoinShortestQueuePolicy())) {
            start(Map.of("policy", policy.name(), "workers", 2, "capacity", 4), policy);
            router.setWorkerAvailable(0, false);
            router.setWorkerAvailable(1, false);
            CompletableFuture<Placement> placed = router.submit(1, 100, 0, 10);
            assertEquals(0, get(router.dispatchStep()).placements().size(), policy.name() + ": waits in the pool");
            assertEquals(1, router.snapshot().poolDepth());
            assertFalse(placed.isDone());
            router.setWorkerAvailable(1, true);
            assertEquals(1, get(placed).worker(), policy.name() + ": placed once worker 1 is back");
            router.stop();
            router = null;
        }
    }
}
