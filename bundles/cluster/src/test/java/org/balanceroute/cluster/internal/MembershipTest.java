package org.balanceroute.cluster.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.hazelcast.core.HazelcastInstance;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.balanceroute.api.SnapshotStore;
import org.junit.jupiter.api.Test;

/** Members leaving: the others' membership drops them within the configured bound. */
class MembershipTest {

    @Test
    void aMemberThatIsKilledOrShutDownLeavesTheOthersWithinTheBound() {
        try (TestMembers m = new TestMembers(3)) {
            Map<String, Object> bound = Map.of("heartbeatIntervalSeconds", 1, "maxNoHeartbeatSeconds", 5);
            HazelcastInstance a = m.start(0, bound);
            m.start(1, bound);
            HazelcastInstance c = m.start(2, bound);
            TestMembers.await("3 members", Duration.ofSeconds(15), () -> a.getCluster().getMembers().size() == 3);
            HazelcastSnapshotStore store = new HazelcastSnapshotStore(a, m.ids.get(0));
            RecordingReceiver r = new RecordingReceiver();
            try (SnapshotStore.Session s = store.open(r)) {
                // terminate: no goodbye, connections cut (as a killed process's are)
                long t0 = System.nanoTime();
                c.getLifecycleService().terminate();
                TestMembers.await("C dropped", Duration.ofSeconds(5 + 2), () -> s.members().size() == 2);
                long killedMillis = (System.nanoTime() - t0) / 1_000_000;
                TestMembers.await("told", Duration.ofSeconds(30), () -> r.lastMembership().size() == 2);
                assertEquals(List.of(m.ids.get(0), m.ids.get(1)), r.lastMembership().stream().map(SnapshotStore.Member::id).toList());

                // graceful shutdown of B, the youngest left
                long t1 = System.nanoTime();
                m.started.get(1).shutdown();
                TestMembers.await("B dropped", Duration.ofSeconds(5 + 2), () -> s.members().size() == 1);
                long shutMillis = (System.nanoTime() - t1) / 1_000_000;
                TestMembers.await("told", Duration.ofSeconds(30), () -> r.lastMembership().size() == 1);
                System.out.printf("membership: a terminated member dropped after %d ms, a shut-down one after %d ms%n",
                        killedMillis, shutMillis);
                assertTrue(r.concurrentCalls.get() == 0);
            }
            store.close();
        }
    }
}
