package org.balanceroute.router.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.awaitility.Awaitility;
import org.balanceroute.api.DispatchStep;
import org.balanceroute.api.PoolView;
import org.balanceroute.api.RequestView;
import org.balanceroute.api.RoutingPolicy;
import org.balanceroute.fleet.DecodeInstance;
import org.balanceroute.fleet.Endpoint;
import org.balanceroute.fleet.Fleet;
import org.balanceroute.fleet.PoolTopology;
import org.balanceroute.policy.baseline.JoinShortestQueuePolicy;
import org.balanceroute.router.Placement;
import org.balanceroute.router.RouterService;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** One router per pool: own loop, own policy, own workers; shared policies called one at a time. */
class PoolRoutersTest {

    private final AtomicInteger serviceIds = new AtomicInteger();
    private RouterComponent router;

    private static PoolTopology pool(String name, String policy, int workers) {
        List<Endpoint> ws = new ArrayList<>();
        for (int i = 0; i < workers; i++) {
            ws.add(new Endpoint("http://" + name + ":" + (8000 + i), -1));
        }
        return new PoolTopology(name, "model-" + name, List.of(), List.of(), List.of(new DecodeInstance("d", ws, 64)),
                policy);
    }

    private static Fleet fleet(PoolTopology... pools) {
        Map<String, PoolTopology> m = new HashMap<>();
        for (PoolTopology p : pools) {
            m.put(p.name(), p);
        }
        return new Fleet(m);
    }

    private RouterComponent start(Fleet fleet, RoutingPolicy... policies) {
        router = new RouterComponent((Map.of("policy", "jsq")), System::nanoTime);
        router.fleetChanged(fleet);
        for (RoutingPolicy p : policies) {
            router.bindPolicy(p, Map.of(RoutingPolicy.NAME_PROPERTY, p.name(), "service.id", (long) serviceIds.incrementAndGet()));
        }
        router.start(); // each pool's layout from the topology: no setLayout needed
        return router;
    }

    @AfterEach
    void stop() {
        if (router != null) {
            router.stop();
        }
    }

    private static <T> T get(CompletableFuture<T> f) throws Exception {
        return f.get(10, TimeUnit.SECONDS);
    }

    @Test
    void eachPoolHasItsOwnLoopPolicyAndWorkers() throws Exception {
        start(fleet(pool("a", "to-last", 4), pool("b", "", 2)), new RouterComponentTest.ToLastWorker(),
                new JoinShortestQueuePolicy());
        assertEquals(List.of("a", "b"), router.pools());
        assertEquals("a", router.poolName(), "no pool 'default': the first by name is the primary");
        RouterService a = router.pool("a");
        RouterService b = router.pool("b");
        assertEquals("to-last", a.configuredPolicy());
        assertEquals("jsq", b.configuredPolicy(), "a pool naming none routes with the router's policy");
        Awaitility.await().until(() -> "to-last".equals(a.activePolicy()) && "jsq".equals(b.activePolicy()));

        CompletableFuture<Placement> inA = a.submit(1, 10, 0, 0);
        get(a.dispatchStep());
        assertEquals(3, get(inA).worker(), "pool a's policy on pool a's 4 workers");
        Placement inB = get(b.submit(1, 10, 0, 0)); // the same id in another pool is another request
        assertEquals(0, inB.worker());
        assertEquals("http://b:8000", inB.workerId());
        assertEquals(4, a.snapshot().workers());
        assertEquals(2, b.snapshot().workers());
        assertSame(a, router.pool("a"), "the same router while the pool exists");
    }

    @Test
    void aPoolAddedLaterHasItsTopologysLayoutAtOnce() throws Exception {
        start(fleet(pool("a", "", 2)), new JoinShortestQueuePolicy());
        router.fleetChanged(fleet(pool("a", "", 2), pool("c", "", 3)));
        RouterService c = router.pool("c");
        assertEquals(3, c.snapshot().workers(), "no layout told through the connector needed");
        String placed = get(c.submit(1, 10, 0, 0)).workerId();
        assertTrue(placed.startsWith("http://c:"), placed);
    }

    @Test
    void aPoolsOwnPolicyChangesThatPoolAlone() {
        start(fleet(pool("default", "", 2), pool("b", "", 2)), new RouterComponentTest.ToLastWorker(),
                new JoinShortestQueuePolicy());
        RouterService b = router.pool("b");
        router.fleetChanged(fleet(pool("default", "", 2), pool("b", "to-last", 2)));
        assertSame(b, router.pool("b"));
        Awaitility.await().until(() -> "to-last".equals(b.activePolicy()));
        assertEquals("jsq", router.activePolicy(), "the primary pool, default, keeps the router's");
        assertEquals("default", router.poolName());
    }

    @Test
    void aRemovedPoolTakesNothingNewAndItsRouterStopsOnceItsRequestsEnded() throws Exception {
        start(fleet(pool("a", "", 2), pool("b", "", 2)), new JoinShortestQueuePolicy());
        RouterService b = router.pool("b");
        get(b.submit(7, 10, 0, 0));
        router.fleetChanged(fleet(pool("a", "", 2)));
        assertNull(router.pool("b"));
        assertEquals(List.of("a"), router.pools());
        b.tokens(7, 3); // the running request goes on
        assertEquals(1, b.snapshot().running()[0] + b.snapshot().running()[1]);
        assertTrue(get(b.complete(7)));
        Awaitility.await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> {
            // an abort of an unknown request (it would not keep the pool busy as a probe submission would)
            ExecutionException e = assertThrows(ExecutionException.class, () -> get(b.abort(8)));
            assertTrue(e.getCause() instanceof IllegalStateException, e.toString());
        });
        assertNotNull(router.pool("a").snapshot());
    }

    /** Counts callers inside dispatch at once, and which threads called. */
    static final class Overlap implements RoutingPolicy {
        final AtomicInteger inside = new AtomicInteger();
        final AtomicInteger most = new AtomicInteger();
        final Set<String> threads = ConcurrentHashMap.newKeySet();

        public String name() { return "overlap"; }
        public boolean usesPromptPool() { return true; }
        public int route(PoolView c, RequestView r) { return 0; }

        public void dispatch(DispatchStep step) {
            most.accumulateAndGet(inside.incrementAndGet(), Math::max);
            threads.add(Thread.currentThread().getName() + "#" + Thread.currentThread().getId());
            long until = System.nanoTime() + 200_000; // long enough that two loops would overlap
            while (System.nanoTime() < until) {
                Thread.onSpinWait();
            }
            while (!step.pool().isEmpty() && step.view().freeSlots(0) > 0) {
                step.assign(0, 0);
            }
            inside.decrementAndGet();
        }
    }

    @Test
    void aPolicySharedByTwoPoolsIsNeverCalledConcurrently() throws Exception {
        Overlap overlap = new Overlap();
        start(fleet(pool("a", "overlap", 2), pool("b", "overlap", 2)), overlap);
        Awaitility.await().until(() -> "overlap".equals(router.pool("a").activePolicy())
                && "overlap".equals(router.pool("b").activePolicy()));
        List<CompletableFuture<?>> steps = new ArrayList<>();
        for (int i = 0; i < 200; i++) {
            for (String p : List.of("a", "b")) {
                RouterService r = router.pool(p);
                r.submit(i, 10, 0, 0);
                steps.add(r.dispatchStep());
            }
        }
        for (CompletableFuture<?> f : steps) {
            get(f);
        }
        assertEquals(2, overlap.threads.size(), "both pools' dispatch threads called it: " + overlap.threads);
        assertEquals(1, overlap.most.get(), "never two at once");
    }
}
