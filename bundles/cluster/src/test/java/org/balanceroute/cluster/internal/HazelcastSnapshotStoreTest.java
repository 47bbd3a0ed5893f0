package org.balanceroute.cluster.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.hazelcast.core.HazelcastInstance;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.balanceroute.api.SnapshotStore;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/** The store over three real members on loopback (started once for the class). */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class HazelcastSnapshotStoreTest {

    private static final Duration BOUND = Duration.ofSeconds(15);

    private TestMembers members;
    private final List<HazelcastSnapshotStore> stores = new ArrayList<>();

    @BeforeAll
    void startThree() {
        members = new TestMembers(3);
        for (int i = 0; i < 3; i++) {
            HazelcastInstance hz = members.start(i);
            stores.add(new HazelcastSnapshotStore(hz, members.ids.get(i)));
        }
        for (HazelcastInstance hz : members.started) {
            TestMembers.await("3 members", BOUND, () -> hz.getCluster().getMembers().size() == 3);
        }
    }

    @AfterAll
    void stop() {
        stores.forEach(HazelcastSnapshotStore::close);
        members.close();
    }

    @Test
    void membersAreOldestFirstWithTheReplicaIdsOnEveryMember() {
        for (int i = 0; i < 3; i++) {
            RecordingReceiver r = new RecordingReceiver();
            try (SnapshotStore.Session s = stores.get(i).open(r)) {
                assertEquals(members.ids.get(i), s.localMember());
                List<SnapshotStore.Member> m = s.members();
                assertEquals(members.ids, m.stream().map(SnapshotStore.Member::id).toList(), "oldest first on member " + i);
                for (int j = 0; j < 3; j++) {
                    assertEquals("127.0.0.1:" + members.ports.get(j), m.get(j).address());
                }
                assertEquals(List.of(m), List.copyOf(r.memberships), "told the membership once before open returned");
            }
        }
    }

    @Test
    void framesFromEachSenderArriveInOrder() throws Exception {
        int n = 5000;
        RecordingReceiver atB = new RecordingReceiver();
        try (SnapshotStore.Session b = stores.get(1).open(atB);
                SnapshotStore.Session a = stores.get(0).open(new RecordingReceiver());
                SnapshotStore.Session c = stores.get(2).open(new RecordingReceiver())) {
            Thread fromA = new Thread(() -> sendNumbered(a, b.localMember(), n));
            Thread fromC = new Thread(() -> sendNumbered(c, b.localMember(), n));
            fromA.start();
            fromC.start();
            fromA.join();
            fromC.join();
            TestMembers.await(2 * n + " frames at B", BOUND, () -> atB.frames.size() >= 2 * n);
            Map<String, Integer> next = new HashMap<>();
            for (RecordingReceiver.Frame f : atB.frames) {
                int k = ByteBuffer.wrap(f.bytes()).getInt();
                int expected = next.getOrDefault(f.from(), 0);
                assertEquals(expected, k, "frame order from " + f.from());
                next.put(f.from(), k + 1);
            }
            assertEquals(Map.of(a.localMember(), n, c.localMember(), n), next);
            assertEquals(0, atB.concurrentCalls.get(), "the receiver is called serially");
        }
    }

    private static void sendNumbered(SnapshotStore.Session s, String to, int n) {
        for (int i = 0; i < n; i++) {
            s.send(to, ByteBuffer.allocate(64).putInt(i).array());
        }
    }

    @Test
    void sendToAllReachesTheOthersNotTheSender() {
        List<RecordingReceiver> rs = List.of(new RecordingReceiver(), new RecordingReceiver(), new RecordingReceiver());
        List<SnapshotStore.Session> sessions = new ArrayList<>();
        try {
            for (int i = 0; i < 3; i++) {
                sessions.add(stores.get(i).open(rs.get(i)));
            }
            sessions.get(0).sendToAll(new byte[] {1, 2, 3});
            sessions.get(0).send(sessions.get(0).localMember(), new byte[] {9}); // to itself: a marker
            TestMembers.await("broadcast at B and C", BOUND, () -> rs.get(1).frames.size() == 1 && rs.get(2).frames.size() == 1);
            TestMembers.await("A's marker to itself", BOUND, () -> !rs.get(0).frames.isEmpty());
            for (int i = 1; i < 3; i++) {
                RecordingReceiver.Frame f = rs.get(i).frames.peek();
                assertEquals(members.ids.get(0), f.from());
                assertTrue(Arrays.equals(new byte[] {1, 2, 3}, f.bytes()));
            }
            // A's own topic events are dispatched in order: its marker came after the broadcast, alone
            assertEquals(1, rs.get(0).frames.size());
            assertTrue(Arrays.equals(new byte[] {9}, rs.get(0).frames.peek().bytes()));
        } finally {
            sessions.forEach(SnapshotStore.Session::close);
        }
    }

    @Test
    void noCallbackAfterClose() throws Exception {
        RecordingReceiver atB = new RecordingReceiver();
        SnapshotStore.Session b = stores.get(1).open(atB);
        try (SnapshotStore.Session a = stores.get(0).open(new RecordingReceiver())) {
            a.send(b.localMember(), new byte[] {1});
            TestMembers.await("first frame", BOUND, () -> atB.frames.size() == 1);
            b.close();
            int membershipsAtClose = atB.memberships.size();
            for (int i = 0; i < 100; i++) {
                a.send(b.localMember(), new byte[] {2});
            }
            // a marker session on B opened after the close hears A's next frame: the ones before are past
            RecordingReceiver marker = new RecordingReceiver();
            try (SnapshotStore.Session b2 = stores.get(1).open(marker)) {
                a.send(b2.localMember(), new byte[] {3});
                TestMembers.await("marker", BOUND, () -> marker.frames.stream().anyMatch(f -> f.bytes()[0] == 3));
            }
            assertEquals(1, atB.frames.size());
            assertEquals(membershipsAtClose, atB.memberships.size());
        }
    }

    @Test
    void aMemberOfAnotherClusterNameDoesNotJoin() {
        TestMembers other = new TestMembers("another-name", 1);
        // the same member list as ours: it finds our members, which refuse it
        other.ports.clear();
        other.ports.addAll(members.ports);
        int port = TestMembers.freePort();
        Map<String, Object> p = Map.of("port", port, "members", "127.0.0.1:" + members.ports.get(0) + ",127.0.0.1:" + port);
        try (other) {
            HazelcastInstance alone = other.start(0, p);
            assertEquals(1, alone.getCluster().getMembers().size());
            for (HazelcastInstance hz : members.started) {
                assertEquals(3, hz.getCluster().getMembers().size());
            }
        }
    }

    @Test
    void openFailsOnAStoppedMember() {
        TestMembers one = new TestMembers(1);
        try (one) {
            HazelcastInstance hz = one.start(0);
            HazelcastSnapshotStore store = new HazelcastSnapshotStore(hz, one.ids.get(0));
            hz.shutdown();
            assertThrows(IllegalStateException.class, () -> store.open(new RecordingReceiver()));
        }
    }

    /** One-way latency of a 64-byte frame A to B, unloaded (one in flight), printed for docs/cluster-of-proxies.md. */
    @Test
    void oneWayLatencyOnLoopback() throws Exception {
        RecordingReceiver atB = new RecordingReceiver();
        int warmup = 1000;
        int samples = 3000;
        long[] micros = new long[samples];
        try (SnapshotStore.Session b = stores.get(1).open(atB);
                SnapshotStore.Session a = stores.get(0).open(new RecordingReceiver())) {
            for (int i = 0; i < warmup + samples; i++) {
                CountDownLatch arrived = new CountDownLatch(1);
                atB.onFrame = f -> arrived.countDown();
                byte[] frame = new byte[64];
                long sent = System.nanoTime();
                a.send(b.localMember(), frame);
                assertTrue(arrived.await(BOUND.toMillis(), TimeUnit.MILLISECONDS), "frame " + i);
                if (i >= warmup) {
                    long nanos = 0;
                    for (RecordingReceiver.Frame f = atB.frames.poll(); f != null; f = atB.frames.poll()) {
                        nanos = f.receivedNanos() - sent;
                    }
                    micros[i - warmup] = nanos / 1000;
                } else {
                    atB.frames.clear();
                }
            }
        }
        Arrays.sort(micros);
        System.out.printf("frame latency A->B, 64 bytes, one in flight, %d samples: p50 %d us, p99 %d us, max %d us%n",
                samples, micros[samples / 2], micros[samples * 99 / 100], micros[samples - 1]);
        assertNotNull(micros);
    }
}
