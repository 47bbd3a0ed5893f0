package org.balanceroute.router.internal;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;
import org.awaitility.Awaitility;
import org.balanceroute.api.SnapshotStore;
import org.balanceroute.policy.balance.BalancePolicy;
import org.balanceroute.policy.balance.BalanceSettings;
import org.balanceroute.router.Placement;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Pools a and b over one {@link LoopbackStores} membership of two members: each pool's sessions
 * get only their pool's frames, all get the membership, the real session lives from the first
 * channel session to the last, a closed session is never called, and two pools' dispatch loops
 * share one dispatcher.
 */
class PoolChannelsTest {

    private final LoopbackStores stores = new LoopbackStores();
    private final List<DispatchLoop> loops = new ArrayList<>();

    @AfterEach
    void stop() {
        loops.forEach(DispatchLoop::stop);
        stores.close();
    }

    private static void await(String what, BooleanSupplier condition) {
        Awaitility.await(what).atMost(Duration.ofSeconds(10)).pollInterval(Duration.ofMillis(1))
                .until(condition::getAsBoolean);
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    /** A member's real store, counting its sessions; its receiver can be called as the store would. */
    private static final class CountingStore implements SnapshotStore {
        final LoopbackStores.Store real;
        final AtomicInteger opened = new AtomicInteger();
        final AtomicInteger closed = new AtomicInteger();
        /** Every frame the real session delivered, dropped here or not. */
        final AtomicInteger framesIn = new AtomicInteger();
        volatile Receiver receiver;

        CountingStore(LoopbackStores.Store real) {
            this.real = real;
        }

        @Override
        public String name() {
            return real.name();
        }

        @Override
        public Session open(Receiver r) {
            opened.incrementAndGet();
            receiver = r;
            Session s = real.open(new Receiver() {
                @Override
                public void membersChanged(List<Member> members) {
                    r.membersChanged(members);
                }

                @Override
                public void received(String fromMember, byte[] frame) {
                    r.received(fromMember, frame);
                    framesIn.incrementAndGet();
                }
            });
            return new Session() {
                @Override
                public String localMember() {
                    return s.localMember();
                }

                @Override
                public List<Member> members() {
                    return s.members();
                }

                @Override
                public void send(String member, byte[] frame) {
                    s.send(member, frame);
                }

                @Override
                public void sendToAll(byte[] frame) {
                    s.sendToAll(frame);
                }

                @Override
                public void close() {
                    closed.incrementAndGet();
                    s.close();
                }
            };
        }
    }

    /** What one channel session was told; a call after its close returned, or two at once, is a violation. */
    private static final class Inbox implements SnapshotStore.Receiver {
        final List<List<String>> memberships = new CopyOnWriteArrayList<>();
        final List<String> frames = new CopyOnWriteArrayList<>();
        final AtomicBoolean inCall = new AtomicBoolean();
        final List<String> violations = new CopyOnWriteArrayList<>();
        volatile boolean closed;

        @Override
        public void membersChanged(List<SnapshotStore.Member> members) {
            enter();
            memberships.add(members.stream().map(SnapshotStore.Member::id).toList());
            inCall.set(false);
        }

        @Override
        public void received(String fromMember, byte[] frame) {
            enter();
            frames.add(fromMember + ":" + new String(frame, StandardCharsets.UTF_8));
            inCall.set(false);
        }

        private void enter() {
            if (closed) {
                violations.add("a call after close");
            }
            if (!inCall.compareAndSet(false, true)) {
                violations.add("two calls at once");
            }
        }

        List<String> lastMembers() {
            return memberships.isEmpty() ? List.of() : memberships.get(memberships.size() - 1);
        }
    }

    /** A channel session with its inbox. */
    private record Opened(SnapshotStore.Session session, Inbox inbox) {

        void close() {
            session.close();
            inbox.closed = true;
        }
    }

    /** One member: its real store and its pool channels. */
    private final class Member {
        final CountingStore store = new CountingStore(stores.join());
        final PoolChannels channels = new PoolChannels(store);

        String id() {
            return store.real.id;
        }

        Opened open(String pool) {
            Inbox inbox = new Inbox();
            return new Opened(channels.channel(pool).open(inbox), inbox);
        }
    }

    /** Two members, each with a session of pools a and b. */
    private final class TwoByTwo {
        final Member one = new Member();
        final Member two = new Member();
        final Opened a1 = one.open("a");
        final Opened b1 = one.open("b");
        final Opened a2 = two.open("a");
        final Opened b2 = two.open("b");
    }

    @Test
    void aPoolsFramesReachOnlyThatPoolsSessionOnTheOtherMember() {
        TwoByTwo c = new TwoByTwo();
        assertSame(c.one.channels.channel("a"), c.one.channels.channel("a"), "a loop detaches the store it attached");
        assertEquals("loopback", c.one.channels.channel("a").name());
        assertEquals(c.two.id(), c.b2.session().localMember());
        assertEquals(List.of(c.one.id(), c.two.id()), c.b2.session().members().stream().map(SnapshotStore.Member::id).toList());

        c.a1.session().send(c.two.id(), bytes("to a"));
        c.b1.session().send(c.two.id(), bytes("to b"));
        c.a1.session().sendToAll(bytes("all a"));
        c.b1.session().sendToAll(bytes("all b"));
        c.b2.session().send(c.one.id(), bytes("back to b"));
        await("a's frames on a", () -> c.a2.inbox().frames.size() == 2);
        await("b's frames on b", () -> c.b2.inbox().frames.size() == 2 && c.b1.inbox().frames.size() == 1);
        assertEquals(List.of(c.one.id() + ":to a", c.one.id() + ":all a"), c.a2.inbox().frames);
        assertEquals(List.of(c.one.id() + ":to b", c.one.id() + ":all b"), c.b2.inbox().frames);
        assertEquals(List.of(c.two.id() + ":back to b"), c.b1.inbox().frames);
        assertEquals(List.of(), c.a1.inbox().frames, "nothing for a came back, and a sender does not get its own");
        assertEquals(1, c.one.store.opened.get(), "one real session for both pools");
        for (Opened o : List.of(c.a1, c.b1, c.a2, c.b2)) {
            assertEquals(List.of(), o.inbox().violations);
        }
    }

    @Test
    void everyPoolsSessionIsToldTheMembershipBeforeOpenReturnsAndEveryChange() {
        Member one = new Member();
        Opened a = one.open("a");
        assertEquals(List.of(List.of(one.id())), a.inbox().memberships, "told once before open returned");
        Opened b = one.open("b");
        assertEquals(List.of(List.of(one.id())), b.inbox().memberships);

        Member two = new Member();
        List<String> both = List.of(one.id(), two.id());
        await("both pools see two members", () -> a.inbox().lastMembers().equals(both)
                && b.inbox().lastMembers().equals(both));
        stores.kill(two.store.real);
        await("both pools see it gone", () -> a.inbox().lastMembers().equals(List.of(one.id()))
                && b.inbox().lastMembers().equals(List.of(one.id())));
        assertEquals(List.of(), a.inbox().violations);
        assertEquals(List.of(), b.inbox().violations);
    }

    @Test
    void closingOnePoolKeepsTheOtherAndTheRealSessionTheLastClosesItOnce() {
        TwoByTwo c = new TwoByTwo();

        c.a2.close();
        c.a1.session().send(c.two.id(), bytes("lost"));
        c.b1.session().send(c.two.id(), bytes("kept")); // same sender and receiver: after a's frame
        await("b still served", () -> c.b2.inbox().frames.equals(List.of(c.one.id() + ":kept")));
        assertEquals(List.of(), c.a2.inbox().frames);
        assertEquals(List.of(), c.a2.inbox().violations);
        assertEquals(0, c.two.store.closed.get(), "b still rides on the real session");
        c.a2.close(); // twice: nothing more
        assertEquals(0, c.two.store.closed.get());

        c.b2.close();
        assertEquals(1, c.two.store.closed.get());
        c.b2.close();
        assertEquals(1, c.two.store.closed.get(), "closed once");

        Opened again = c.two.open("a");
        assertEquals(2, c.two.store.opened.get(), "a new real session for the next one");
        assertEquals(List.of(List.of(c.one.id(), c.two.id())), again.inbox().memberships);
        c.a1.session().send(c.two.id(), bytes("again"));
        await("the new session gets a's frames", () -> again.inbox().frames.equals(List.of(c.one.id() + ":again")));
    }

    @Test
    void aFrameForAPoolNotOpenHereIsDropped() {
        Member one = new Member();
        Member two = new Member();
        Opened a1 = one.open("a");
        Opened b1 = one.open("b");
        Opened a2 = two.open("a");
        b1.session().send(two.id(), bytes("early"));
        a1.session().send(two.id(), bytes("marker"));
        await("the marker came, so did b's frame before it", () -> a2.inbox().frames.size() == 1);

        Opened b2 = two.open("b");
        b1.session().send(two.id(), bytes("late"));
        await("b's next frame", () -> b2.inbox().frames.size() == 1);
        assertEquals(List.of(one.id() + ":late"), b2.inbox().frames, "the frame before b opened was dropped");
        assertEquals(List.of(one.id() + ":marker"), a2.inbox().frames);
    }

    @Test
    void aMalformedFrameIsDroppedWithoutThrowing() {
        TwoByTwo c = new TwoByTwo();
        SnapshotStore.Receiver real = c.two.store.receiver;
        byte[][] malformed = {
            {},
            {PoolChannels.FORMAT},
            {PoolChannels.FORMAT, 5, 'a'}, // the name runs past the end
            {Frames.VERSION, Frames.EVENTS, 0, 0}, // a router frame without a pool
        };
        for (byte[] f : malformed) {
            assertDoesNotThrow(() -> real.received(c.one.id(), f));
        }
        c.a1.session().send(c.two.id(), bytes("fine"));
        await("a well-formed frame still arrives", () -> c.a2.inbox().frames.size() == 1);
        assertEquals(List.of(c.one.id() + ":fine"), c.a2.inbox().frames);
        assertEquals(List.of(), c.b2.inbox().frames);
        assertEquals(List.of(), c.a2.inbox().violations);
    }

    @Test
    void closingAllClosesTheRealSessionOnceAndRefusesNewSessions() {
        Member one = new Member();
        Opened a = one.open("a");
        Opened b = one.open("b");
        one.channels.close();
        a.inbox().closed = true;
        b.inbox().closed = true;
        assertEquals(1, one.store.closed.get());
        a.close();
        b.close();
        one.channels.close();
        assertEquals(1, one.store.closed.get(), "closed once");
        assertThrows(IllegalStateException.class, () -> one.open("a"), "as a store no longer a member");
        assertEquals(List.of(), a.inbox().violations);
        assertEquals(List.of(), b.inbox().violations);
    }

    @Test
    void aPoolsNameLongerThan255BytesIsRefused() {
        Member one = new Member();
        assertThrows(IllegalArgumentException.class, () -> one.channels.channel("é".repeat(128)));
        one.channels.channel("é".repeat(127) + "x"); // 255 bytes
    }

    @Test
    void sessionsOpenedAndClosedWhileFramesFlowAreNeverCalledAfterTheirClose() throws Exception {
        Member one = new Member();
        Member two = new Member();
        Opened sender = one.open("b");
        Opened stays = two.open("a"); // keeps the real session open throughout
        AtomicBoolean stop = new AtomicBoolean();
        AtomicInteger sent = new AtomicInteger();
        CompletableFuture<Void> flow = CompletableFuture.runAsync(() -> {
            while (!stop.get()) {
                if (sent.get() - two.store.framesIn.get() < 1000) { // bounds the queue to the receiver
                    sender.session().send(two.id(), bytes("f" + sent.incrementAndGet()));
                } else {
                    Thread.onSpinWait();
                }
            }
        });
        List<Inbox> closed = new ArrayList<>();
        try {
            for (int i = 0; i < 100; i++) {
                Opened b = two.open("b");
                await("frames reach the session", () -> !b.inbox().frames.isEmpty());
                b.close();
                closed.add(b.inbox());
            }
        } finally {
            stop.set(true);
        }
        flow.get(10, TimeUnit.SECONDS);
        int in = sent.get();
        await("every frame sent went through", () -> two.store.framesIn.get() == in);
        for (Inbox inbox : closed) {
            assertEquals(List.of(), inbox.violations);
        }
        assertEquals(1, two.store.opened.get());
        assertEquals(0, two.store.closed.get());
        stays.close();
        assertEquals(1, two.store.closed.get());
        assertEquals(List.of(), stays.inbox().frames);
    }

    private DispatchLoop loop(Member m, String pool) {
        DispatchLoop loop = new DispatchLoop(new RouterSettings("br0", "jsq", 0), System::nanoTime);
        loops.add(loop);
        loop.offer(Map.of("br0", BalancePolicy.br0(BalanceSettings.defaults())));
        loop.start();
        loop.setLayout(List.of("http://" + pool + "0", "http://" + pool + "1"), new int[] {2}, new int[] {4});
        loop.attach(m.channels.channel(pool));
        return loop;
    }

    private static long load(DispatchLoop loop) {
        return java.util.Arrays.stream(loop.snapshot().loads()).sum();
    }

    @Test
    void theDispatchersPoolLoopPlacesAFollowersRequestOnItsPoolsWorkersOnly() throws Exception {
        Member one = new Member();
        Member two = new Member();
        DispatchLoop a1 = loop(one, "a");
        DispatchLoop b1 = loop(one, "b");
        DispatchLoop a2 = loop(two, "a");
        DispatchLoop b2 = loop(two, "b");
        await("both of two's loops follow one", () -> a2.replicasStatus().dispatcher().equals(one.id())
                && b2.replicasStatus().dispatcher().equals(one.id()));
        assertTrue(a1.replicasStatus().isDispatcher() && b1.replicasStatus().isDispatcher());
        assertFalse(b2.replicasStatus().isDispatcher());

        CompletableFuture<Placement> placed = b2.submit(7, 1000, 0, 10);
        b2.requestStep();
        Placement p = placed.get(5, TimeUnit.SECONDS);
        assertTrue(p.workerId().startsWith("http://b"), "on a worker of pool b: " + p);
        await("the dispatcher's pool-b loop holds it", () -> load(b1) == 1000);
        assertEquals(0, load(a1), "pool a's loop never saw it");

        CompletableFuture<Placement> inA = a2.submit(7, 300, 0, 10); // the same id in another pool
        a2.requestStep();
        assertTrue(inA.get(5, TimeUnit.SECONDS).workerId().startsWith("http://a"));
        await("pool a's dispatcher holds its own", () -> load(a1) == 300 && load(b1) == 1000);
        await("each follower's view is its pool's", () -> load(a2) == 300 && load(b2) == 1000);
        assertEquals(1, two.store.opened.get(), "two loops, one real session");
    }
}
