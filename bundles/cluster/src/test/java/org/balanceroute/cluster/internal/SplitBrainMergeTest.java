package org.balanceroute.cluster.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;

import com.hazelcast.cluster.Member;
import com.hazelcast.core.HazelcastInstance;
import com.hazelcast.core.LifecycleEvent;
import com.hazelcast.instance.impl.HazelcastInstanceProxy;
import com.hazelcast.internal.cluster.impl.ClusterServiceImpl;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.balanceroute.api.SnapshotStore;
import org.junit.jupiter.api.Test;

/**
 * A split brain between two real members, healed by Hazelcast's merge: the split is made as
 * Hazelcast's own tests make it (each member suspects the other and closes the connection,
 * {@code ClusterServiceImpl.suspectMember}, internal API), then the split-brain handler finds the
 * other cluster and the younger member merges into the older one with a new Hazelcast UUID.
 */
class SplitBrainMergeTest {

    private static final Duration BOUND = Duration.ofSeconds(30);

    @Test
    void idsStayAndReceiversHearTheMembershipAndFramesAfterTheMerge() {
        try (TestMembers m = new TestMembers(2)) {
            HazelcastInstance a = m.start(0);
            HazelcastInstance b = m.start(1);
            TestMembers.await("2 members", BOUND, () -> b.getCluster().getMembers().size() == 2);
            AtomicInteger merged = new AtomicInteger();
            AtomicReference<HazelcastInstance> merging = new AtomicReference<>();
            for (HazelcastInstance hz : List.of(a, b)) {
                hz.getLifecycleService().addLifecycleListener(e -> {
                    if (e.getState() == LifecycleEvent.LifecycleState.MERGED) {
                        merging.set(hz);
                        merged.incrementAndGet();
                    }
                });
            }
            HazelcastSnapshotStore storeA = new HazelcastSnapshotStore(a, m.ids.get(0));
            HazelcastSnapshotStore storeB = new HazelcastSnapshotStore(b, m.ids.get(1));
            RecordingReceiver atA = new RecordingReceiver();
            RecordingReceiver atB = new RecordingReceiver();
            try (SnapshotStore.Session sa = storeA.open(atA); SnapshotStore.Session sb = storeB.open(atB)) {
                Map<HazelcastInstance, UUID> uuidsBefore = Map.of(a, a.getCluster().getLocalMember().getUuid(),
                        b, b.getCluster().getLocalMember().getUuid());

                split(a, b);
                TestMembers.await("the split seen on both", BOUND, () -> atA.memberships.stream().anyMatch(l -> l.size() == 1)
                        && atB.memberships.stream().anyMatch(l -> l.size() == 1));
                TestMembers.await("merged", BOUND, () -> merged.get() > 0
                        && a.getCluster().getMembers().size() == 2 && b.getCluster().getMembers().size() == 2);

                HazelcastInstance mergingMember = merging.get();
                UUID uuidBefore = uuidsBefore.get(mergingMember);
                UUID uuidAfter = mergingMember.getCluster().getLocalMember().getUuid();
                assertNotEquals(uuidBefore, uuidAfter, "Hazelcast gave the merging member a new UUID");
                // oldest first: the member the other merged into comes first
                List<String> ids = mergingMember == b ? List.of(m.ids.get(0), m.ids.get(1)) : List.of(m.ids.get(1), m.ids.get(0));
                TestMembers.await("A told the merged membership", BOUND, () -> ids.equals(idsOf(atA.lastMembership())));
                TestMembers.await("B told the merged membership", BOUND, () -> ids.equals(idsOf(atB.lastMembership())));
                assertEquals(ids, idsOf(sa.members()));
                assertEquals(ids, idsOf(sb.members()));

                // frames flow both ways after the merge, once each (no doubled registration)
                TestMembers.await("frames after the merge", BOUND, () -> {
                    atA.frames.clear();
                    atB.frames.clear();
                    sa.send(sb.localMember(), new byte[] {1});
                    sb.send(sa.localMember(), new byte[] {2});
                    sa.sendToAll(new byte[] {3});
                    long until = System.nanoTime() + 200_000_000L;
                    while (System.nanoTime() < until && (atB.frames.size() < 2 || atA.frames.isEmpty())) {
                        Thread.onSpinWait();
                    }
                    return atB.frames.size() == 2 && atA.frames.size() == 1;
                });
                assertEquals(0, atA.concurrentCalls.get() + atB.concurrentCalls.get());
                System.out.printf("split brain: merged (%d MERGED event(s)); the merging member's Hazelcast UUID %s -> %s, "
                        + "its id stayed %s%n", merged.get(), uuidBefore, uuidAfter, m.ids.get(mergingMember == a ? 0 : 1));
            }
            storeA.close();
            storeB.close();
        }
    }

    private static List<String> idsOf(List<SnapshotStore.Member> members) {
        return members == null ? List.of() : members.stream().map(SnapshotStore.Member::id).toList();
    }

    /** Each member suspects the other and closes their connection (internal API, as Hazelcast's tests do). */
    private static void split(HazelcastInstance a, HazelcastInstance b) {
        Member ma = a.getCluster().getLocalMember();
        Member mb = b.getCluster().getLocalMember();
        clusterService(a).suspectMember(clusterService(a).getMember(mb.getAddress()), "test split", true);
        clusterService(b).suspectMember(clusterService(b).getMember(ma.getAddress()), "test split", true);
    }

    private static ClusterServiceImpl clusterService(HazelcastInstance hz) {
        return ((HazelcastInstanceProxy) hz).getOriginal().node.getClusterService();
    }
}
