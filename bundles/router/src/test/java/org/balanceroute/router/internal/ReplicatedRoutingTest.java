package org.balanceroute.router.internal;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BooleanSupplier;
import org.awaitility.Awaitility;
import org.balanceroute.api.PoolSnapshot;
import org.balanceroute.api.RoutingPolicy;
import org.balanceroute.policy.balance.BalancePolicy;
import org.balanceroute.policy.balance.BalanceSettings;
import org.balanceroute.router.Placement;
import org.balanceroute.router.ReplicaShare;
import org.balanceroute.router.ReplicasStatus;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Several routers in one JVM joined through {@link LoopbackStores}: the dispatcher decides for
 * all, the views converge, no worker is overfilled by concurrent replicas, and the membership's
 * faults (a replica killed, the dispatcher killed, frames lost, a split that heals, the store
 * coming and going) lose no request and re-derive every load from the replicas that own them.
 */
class ReplicatedRoutingTest {

    private static final int G = 4;
    private static final int B = 4;
    private static final long TIMEOUT_MS = 10_000;
    private static final List<String> WORKER_IDS = List.of("http://d0", "http://d1", "http://d2", "http://d3");

    private final LoopbackStores stores = new LoopbackStores();
    private final List<RouterComponent> routers = new ArrayList<>();
    private final AtomicLong ids = new AtomicLong(1000);

    /** One proxy replica's router and its store member. */
    private final class Replica {
        final RouterComponent router;
        LoopbackStores.Store store;
        /** This replica's requests: id to prompt tokens plus tokens decoded. */
        final Map<Long, Long> loads = new ConcurrentHashMap<>();
        final Map<Long, Integer> workerOf = new ConcurrentHashMap<>();

        Replica(boolean join) {
            router = new RouterComponent((Map.of("policy", "br0")),
                    System::nanoTime);
            Map<String, Object> props = new HashMap<>();
            props.put(RoutingPolicy.NAME_PROPERTY, "br0");
            props.put("service.id", 1L);
            router.bindPolicy(BalancePolicy.br0(BalanceSettings.defaults()), props);
            router.start();
            router.setLayout(WORKER_IDS, new int[] {G}, new int[] {B});
            routers.add(router);
            if (join) {
                join();
            }
        }

        void join() {
            store = stores.join();
            router.bindStore(store);
        }

        String id() {
            return store == null ? DispatchLoop.SOURCE : store.id;
        }

        CompletableFuture<Placement> submit(int prompt) {
            long id = ids.incrementAndGet();
            loads.put(id, (long) prompt);
            CompletableFuture<Placement> f = router.submit(id, prompt, 0, 10);
            router.requestStep();
            return f.thenApply(p -> {
                assertTrue(p.workerId().startsWith("http://d"), "the placement names its worker: " + p);
                workerOf.put(id, p.worker());
                return p;
            });
        }

        void tokens(long id, int n) {
            loads.merge(id, (long) n, Long::sum);
            router.tokens(id, n);
        }

        void complete(long id) throws Exception {
            loads.remove(id);
            workerOf.remove(id);
            assertTrue(router.complete(id).get(5, TimeUnit.SECONDS));
            router.requestStep();
        }

        /** The load its placed requests put on each worker, by its own count. */
        long[] placedLoads() {
            long[] l = new long[G];
            workerOf.forEach((id, w) -> l[w] += loads.get(id));
            return l;
        }
    }

    @AfterEach
    void stop() {
        for (RouterComponent r : routers) {
            r.stop();
        }
        stores.close();
    }

    private static void await(String what, BooleanSupplier condition) {
        Awaitility.await(what).atMost(Duration.ofMillis(TIMEOUT_MS)).pollInterval(Duration.ofMillis(2))
                .until(condition::getAsBoolean);
    }

    private static long[] sum(long[]... parts) {
        long[] s = new long[G];
        for (long[] p : parts) {
            for (int g = 0; g < G; g++) {
                s[g] += p[g];
            }
        }
        return s;
    }

    private static boolean loadsAre(Replica r, long[] expected) {
        return java.util.Arrays.equals(r.router.snapshot().loads(), expected);
    }

    @Test
    void theDispatcherDecidesForAllAndEveryReplicaSeesTheWholeCluster() throws Exception {
        Replica a = new Replica(true);
        Replica b = new Replica(true);
        await("b follows a", () -> b.router.replicas().dispatcher().equals(a.id()));
        List<CompletableFuture<Placement>> placed = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            placed.add(a.submit(1000 + i));
            placed.add(b.submit(2000 + i));
        }
        for (CompletableFuture<Placement> f : placed) {
            f.get(5, TimeUnit.SECONDS);
        }
        for (long id : b.workerOf.keySet()) {
            b.tokens(id, 7);
        }
        long[] expected = sum(a.placedLoads(), b.placedLoads());
        await("the dispatcher counts b's tokens", () -> loadsAre(a, expected));
        await("b's view is the dispatcher's", () -> loadsAre(b, expected));
        assertEquals(6, java.util.Arrays.stream(a.router.snapshot().running()).sum());

        ReplicasStatus onA = a.router.replicas();
        assertTrue(onA.isDispatcher());
        assertEquals("loopback", onA.store());
        assertEquals(List.of(a.id(), b.id()), onA.members().stream().map(ReplicaShare::member).toList());
        assertArrayEquals(b.placedLoads(), onA.members().get(1).loads(), "b's share, as the dispatcher counts it");
        await("b's status shows the shares", () -> {
            ReplicasStatus onB = b.router.replicas();
            return !onB.isDispatcher() && onB.members().size() == 2
                    && java.util.Arrays.equals(onB.members().get(1).loads(), b.placedLoads());
        });
        assertTrue(b.router.replicas().staleness().samples() > 0, "the follower measures its view's staleness");
        assertEquals("br0", b.router.activePolicy());
    }

    @Test
    void concurrentReplicasNeverFillAWorkerPastItsCapacity() throws Exception {
        Replica[] rs = {new Replica(true), new Replica(true), new Replica(true)};
        await("one dispatcher", () -> rs[2].router.replicas().dispatcher().equals(rs[0].id())
                && rs[1].router.replicas().dispatcher().equals(rs[0].id()));
        AtomicIntegerArray running = new AtomicIntegerArray(G); // what the engines run
        AtomicInteger worst = new AtomicInteger();
        AtomicInteger done = new AtomicInteger();
        int perThread = 40;
        ExecutorService threads = Executors.newFixedThreadPool(6);
        List<java.util.concurrent.Future<?>> work = new ArrayList<>();
        for (int t = 0; t < 6; t++) {
            Replica r = rs[t % 3];
            long seed = t;
            work.add(threads.submit(() -> {
                Random random = new Random(seed);
                for (int i = 0; i < perThread; i++) {
                    CompletableFuture<Placement> f = r.submit(100 + random.nextInt(5000));
                    Placement p = f.get(TIMEOUT_MS, TimeUnit.MILLISECONDS);
                    int now = running.incrementAndGet(p.worker());
                    worst.accumulateAndGet(now, Math::max);
                    r.tokens(p.requestId(), 1 + random.nextInt(20));
                    Thread.sleep(random.nextInt(3));
                    running.decrementAndGet(p.worker()); // the engine frees the slot, then the stream ends
                    r.complete(p.requestId());
                    done.incrementAndGet();
                }
                return null;
            }));
        }
        for (java.util.concurrent.Future<?> w : work) {
            w.get(60, TimeUnit.SECONDS);
        }
        threads.shutdown();
        assertEquals(6 * perThread, done.get());
        assertTrue(worst.get() <= B, "a worker ran " + worst.get() + " requests at once, capacity " + B);
        for (Replica r : rs) {
            await("every load released on " + r.id(), () -> loadsAre(r, new long[G])
                    && r.router.snapshot().poolDepth() == 0);
        }
    }

    /** Three replicas, the first the dispatcher, with a placed request of 1000, 3000, 5000 tokens. */
    private Replica[] threeWithARequestEach() throws Exception {
        Replica a = new Replica(true);
        Replica b = new Replica(true);
        Replica c = new Replica(true);
        await("c follows a", () -> c.router.replicas().dispatcher().equals(a.id()));
        a.submit(1000).get(5, TimeUnit.SECONDS);
        b.submit(3000).get(5, TimeUnit.SECONDS);
        c.submit(5000).get(5, TimeUnit.SECONDS);
        await("three requests in the view", () -> a.router.snapshot().loads().length == G
                && java.util.Arrays.stream(a.router.snapshot().loads()).sum() == 9000);
        return new Replica[] {a, b, c};
    }

    @Test
    void aKilledFollowersLoadLeavesTheViewAndItsPeersKeepServing() throws Exception {
        Replica[] abc = threeWithARequestEach();
        Replica a = abc[0];
        Replica b = abc[1];
        Replica c = abc[2];
        stores.kill(b.store);
        long[] rest = sum(a.placedLoads(), c.placedLoads());
        await("b's load gone from the dispatcher", () -> loadsAre(a, rest));
        await("and from c's view", () -> loadsAre(c, rest));
        c.submit(700).get(5, TimeUnit.SECONDS);
        await("c still served", () -> java.util.Arrays.stream(a.router.snapshot().loads()).sum() == 6700);
    }

    @Test
    void aFrameSentBeforeItsSenderLeftDoesNotBringItsRequestsBack() throws Exception {
        Replica[] abc = threeWithARequestEach();
        Replica a = abc[0];
        Replica b = abc[1];
        Replica c = abc[2];
        // b's next report is lost, so the dispatcher asks b for its whole state; that answer is
        // still on the wire when b leaves
        long bRequest = b.loads.keySet().iterator().next();
        stores.hold((from, to, frame) -> from.equals(b.id()) && to.equals(a.id()) && kind(frame) == Frames.EVENTS);
        b.tokens(bRequest, 10);
        await("b's report on the wire", () -> stores.heldFrames() > 0);
        stores.loseHeld();
        stores.hold((from, to, frame) -> from.equals(b.id()) && to.equals(a.id()) && kind(frame) == Frames.SYNC);
        b.tokens(bRequest, 10);
        await("b's state on the wire", () -> stores.heldFrames() > 0);
        stores.kill(b.store);
        long[] rest = sum(a.placedLoads(), c.placedLoads());
        await("b's load gone from the dispatcher", () -> loadsAre(a, rest));
        stores.release(); // arrives after the dispatcher saw b leave
        Awaitility.await("b's load stays out of every view").during(Duration.ofMillis(500))
                .atMost(Duration.ofMillis(TIMEOUT_MS)).pollInterval(Duration.ofMillis(5))
                .until(() -> loadsAre(a, rest) && loadsAre(c, rest));
    }

    @Test
    void whenTheDispatcherDiesTheNextOneTakesTheWholePoolOver() throws Exception {
        Replica a = new Replica(true);
        Replica b = new Replica(true);
        Replica c = new Replica(true);
        await("c follows a", () -> c.router.replicas().dispatcher().equals(a.id()));
        List<CompletableFuture<Placement>> placedB = new ArrayList<>();
        List<CompletableFuture<Placement>> placedC = new ArrayList<>();
        for (int i = 0; i < G * B; i++) { // fills the cluster: the rest waits in the pool
            (i % 2 == 0 ? placedB : placedC).add((i % 2 == 0 ? b : c).submit(1000 + i));
        }
        for (CompletableFuture<Placement> f : placedB) {
            f.get(5, TimeUnit.SECONDS);
        }
        for (CompletableFuture<Placement> f : placedC) {
            f.get(5, TimeUnit.SECONDS);
        }
        CompletableFuture<Placement> waitingB = b.submit(900);
        CompletableFuture<Placement> waitingC = c.submit(800);
        await("two requests in the pool", () -> a.router.snapshot().poolDepth() == 2);
        assertFalse(waitingB.isDone());
        for (long id : c.workerOf.keySet()) {
            c.tokens(id, 3);
        }
        stores.kill(a.store);
        await("b is the dispatcher", () -> b.router.replicas().isDispatcher());
        long[] all = sum(b.placedLoads(), c.placedLoads());
        await("b's core holds b's and c's requests, with c's tokens", () -> loadsAre(b, all)
                && b.router.snapshot().poolDepth() == 2);
        long freed = b.workerOf.keySet().iterator().next();
        b.complete(freed);
        Placement p = (Placement) CompletableFuture.anyOf(waitingB, waitingC).get(5, TimeUnit.SECONDS);
        assertTrue(p.worker() >= 0, "a slot freed: the new dispatcher places from the pool it took over");
        await("c's view converges", () -> java.util.Arrays.equals(c.router.snapshot().loads(),
                b.router.snapshot().loads()));
    }

    @Test
    void aLostFrameIsRepairedByTheFollowersState() throws Exception {
        Replica a = new Replica(true);
        Replica b = new Replica(true);
        await("b follows a", () -> b.router.replicas().dispatcher().equals(a.id()));
        Placement p = b.submit(1000).get(5, TimeUnit.SECONDS);
        AtomicInteger dropped = new AtomicInteger();
        stores.drop((to, frame) -> to.equals(a.id()) && kind(frame) == Frames.EVENTS && dropped.getAndIncrement() == 0);
        b.tokens(p.requestId(), 10); // this frame is lost
        await("one frame dropped", () -> dropped.get() > 0);
        b.tokens(p.requestId(), 5);  // the gap is seen: RESYNC, then b's whole state
        await("the dispatcher has b's true load", () -> loadsAre(a, b.placedLoads()));
        assertEquals(1015, java.util.Arrays.stream(a.router.snapshot().loads()).sum());
    }

    @Test
    void aSplitClusterServesOnBothSidesAndReDerivesTheLoadsWhenItHeals() throws Exception {
        Replica a = new Replica(true);
        Replica b = new Replica(true);
        Replica c = new Replica(true);
        await("c follows a", () -> c.router.replicas().dispatcher().equals(a.id()));
        a.submit(1000).get(5, TimeUnit.SECONDS);
        b.submit(2000).get(5, TimeUnit.SECONDS);
        c.submit(3000).get(5, TimeUnit.SECONDS);
        stores.split(a.store);
        await("b decides for b and c", () -> b.router.replicas().isDispatcher()
                && loadsAre(b, sum(b.placedLoads(), c.placedLoads())));
        await("a alone counts only its own", () -> loadsAre(a, a.placedLoads()));
        a.submit(400).get(5, TimeUnit.SECONDS);  // both sides keep serving
        c.submit(500).get(5, TimeUnit.SECONDS);
        stores.heal();
        long[] all = sum(a.placedLoads(), b.placedLoads(), c.placedLoads());
        await("one dispatcher again", () -> b.router.replicas().dispatcher().equals(a.id())
                && c.router.replicas().dispatcher().equals(a.id()));
        await("its loads re-derived from every replica's own requests", () -> loadsAre(a, all));
        await("and every view agrees", () -> loadsAre(b, all) && loadsAre(c, all));
    }

    @Test
    void joiningAndLeavingTheStoreKeepsEveryRequestInFlight() throws Exception {
        Replica a = new Replica(true);
        Replica b = new Replica(false); // alone, with its own requests
        Placement running = b.submit(1000).get(5, TimeUnit.SECONDS);
        b.tokens(running.requestId(), 9);
        for (int i = 0; i < B * G - 1; i++) {
            b.submit(100).get(5, TimeUnit.SECONDS); // full
        }
        CompletableFuture<Placement> waiting = b.submit(2000);
        assertFalse(waiting.isDone());

        b.join(); // the cluster bundle arrives
        await("a's core holds b's requests", () -> loadsAre(a, b.placedLoads())
                && a.router.snapshot().poolDepth() == 1);
        b.complete(running.requestId());
        Placement p = waiting.get(5, TimeUnit.SECONDS);
        assertTrue(p.worker() >= 0, "placed by the dispatcher after the hand-over");

        b.router.unbindStore(b.store); // the cluster bundle goes
        await("a released b's requests", () -> loadsAre(a, new long[G]));
        assertEquals(ReplicasStatus.LOCAL, b.router.replicas().store());
        await("b routes alone with all its requests", () -> loadsAre(b, b.placedLoads()));
        CompletableFuture<Placement> more = b.submit(50);
        b.complete(p.requestId());
        assertTrue(more.get(5, TimeUnit.SECONDS).worker() >= 0);
    }

    @Test
    void aPolicySwitchOnTheDispatcherReachesTheFollowersViewAtOnce() throws Exception {
        Replica a = new Replica(true);
        Replica b = new Replica(true);
        Map<String, Object> props = new HashMap<>();
        props.put(RoutingPolicy.NAME_PROPERTY, "jsq");
        props.put("service.id", 2L);
        a.router.bindPolicy(new org.balanceroute.policy.baseline.JoinShortestQueuePolicy(), props);
        await("b follows a", () -> "br0".equals(b.router.activePolicy())
                && b.router.replicas().dispatcher().equals(a.id()));
        long t0 = System.nanoTime();
        a.router.modified((Map.of("policy", "jsq")));
        await("the follower shows jsq", () -> "jsq".equals(b.router.activePolicy()));
        long ms = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0);
        assertTrue(ms < ReplicaRole.KEEPALIVE_MILLIS / 2, "the view with the new policy went out at once, not with"
                + " the keepalive: " + ms + " ms");
    }

    @Test
    void viewsAndStatusAreEmptyBeforeAnyoneReports() throws Exception {
        Replica a = new Replica(true);
        PoolSnapshot s = a.router.snapshot();
        assertEquals(G, s.workers());
        ReplicasStatus st = a.router.replicas();
        assertEquals(1, st.members().size());
        assertEquals(ReplicasStatus.Staleness.NONE, st.staleness());
        List<String> order = new CopyOnWriteArrayList<>();
        order.add(st.dispatcher());
        assertEquals(List.of(a.id()), order);
    }

    private static boolean drainingIs(Replica r, boolean... expected) {
        return java.util.Arrays.equals(r.router.snapshot().draining(), expected);
    }

    @Test
    void aDrainAskedOfAFollowerHoldsForEveryReplicaAndOutlivesTheDispatcher() throws Exception {
        Replica a = new Replica(true);
        Replica b = new Replica(true);
        Replica c = new Replica(true);
        await("c follows a", () -> c.router.replicas().dispatcher().equals(a.id())
                && b.router.replicas().dispatcher().equals(a.id()));
        c.router.setWorkerDraining(0, true);
        await("the dispatcher drains worker 0", () -> drainingIs(a, true, false, false, false));
        await("every view shows it", () -> drainingIs(b, true, false, false, false)
                && drainingIs(c, true, false, false, false));
        List<CompletableFuture<Placement>> placed = new ArrayList<>();
        for (int i = 0; i < 3 * (G - 1); i++) {
            placed.add((i % 2 == 0 ? b : c).submit(100 + i));
        }
        for (int i = 0; i < placed.size(); i++) {
            Placement p = placed.get(i).get(5, TimeUnit.SECONDS);
            assertEquals(WORKER_IDS.get(p.worker()), p.workerId());
            assertTrue(p.worker() != 0, "no replica's request goes to the draining worker");
            (i % 2 == 0 ? b : c).complete(p.requestId());
        }

        // c asks for a second drain; the dispatcher dies before it hears of it
        stores.hold((from, to, frame) -> from.equals(c.id()) && to.equals(a.id()));
        c.router.setWorkerDraining(2, true);
        await("c's ask on the wire", () -> stores.heldFrames() > 0);
        stores.kill(a.store);
        stores.loseHeld();
        await("b is the dispatcher", () -> b.router.replicas().isDispatcher());
        await("b keeps the drain it knew and takes c's again", () -> drainingIs(b, true, false, true, false));
        await("c's view agrees", () -> c.router.replicas().dispatcher().equals(b.id())
                && drainingIs(c, true, false, true, false));
        for (int i = 0; i < 4; i++) {
            int w = c.submit(50).get(5, TimeUnit.SECONDS).worker();
            assertTrue(w == 1 || w == 3, "placed on a worker not draining: " + w);
        }
    }

    @Test
    void aNewLayoutOnEveryReplicaKeepsTheFollowersRequestsAndReleasesThoseOfARemovedWorker() throws Exception {
        Replica a = new Replica(true);
        Replica b = new Replica(true);
        await("b follows a", () -> b.router.replicas().dispatcher().equals(a.id()));
        List<Placement> placed = new ArrayList<>();
        for (int i = 0; i < G; i++) {
            placed.add(b.submit(1000 * (i + 1)).get(5, TimeUnit.SECONDS));
        }
        Placement gone = placed.stream().filter(p -> p.workerId().equals("http://d0")).findFirst().orElseThrow();
        Placement kept = placed.stream().filter(p -> p.workerId().equals("http://d3")).findFirst().orElseThrow();
        long keptLoad = a.router.snapshot().load(3);
        List<String> next = List.of("http://d3", "http://d1", "http://d2", "http://d4");
        for (Replica r : List.of(a, b)) {
            r.router.setLayout(next, new int[] {2, 2}, new int[] {B, B});
        }
        await("d3's load at its new index 0, d0's gone", () -> a.router.snapshot().load(0) == keptLoad
                && a.router.snapshot().load(3) == 0);
        await("b's view agrees", () -> java.util.Arrays.equals(b.router.snapshot().loads(), a.router.snapshot().loads()));
        assertArrayEquals(new int[] {0, 0, 1, 1}, b.router.snapshot().groups());
        b.tokens(kept.requestId(), 5);
        await("the kept request's tokens count", () -> a.router.snapshot().load(0) == keptLoad + 5);
        b.complete(gone.requestId());
        b.complete(kept.requestId());
        await("released on the dispatcher", () -> a.router.snapshot().load(0) == 0);
        Placement more = b.submit(10).get(5, TimeUnit.SECONDS);
        assertEquals(next.get(more.worker()), more.workerId());
    }

    /** A router frame's kind, inside its pool's envelope ({@link PoolChannels}: format, name length, name). */
    private static byte kind(byte[] frame) {
        return frame[2 + (frame[1] & 0xff) + 1];
    }
}
