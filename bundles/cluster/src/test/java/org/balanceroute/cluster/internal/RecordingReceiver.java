package org.balanceroute.cluster.internal;

import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import org.balanceroute.api.SnapshotStore;

/** A receiver that records what it is told and checks that it is called serially. */
final class RecordingReceiver implements SnapshotStore.Receiver {

    record Frame(String from, byte[] bytes, long receivedNanos) {
    }

    final ConcurrentLinkedQueue<List<SnapshotStore.Member>> memberships = new ConcurrentLinkedQueue<>();
    final ConcurrentLinkedQueue<Frame> frames = new ConcurrentLinkedQueue<>();
    final AtomicInteger concurrentCalls = new AtomicInteger();
    private final AtomicInteger inside = new AtomicInteger();
    volatile Consumer<Frame> onFrame = f -> { };

    @Override
    public void membersChanged(List<SnapshotStore.Member> members) {
        enter();
        memberships.add(members);
        inside.decrementAndGet();
    }

    @Override
    public void received(String fromMember, byte[] frame) {
        enter();
        Frame f = new Frame(fromMember, frame, System.nanoTime());
        frames.add(f);
        onFrame.accept(f);
        inside.decrementAndGet();
    }

    private void enter() {
        if (inside.incrementAndGet() != 1) {
            concurrentCalls.incrementAndGet();
        }
    }

    List<SnapshotStore.Member> lastMembership() {
        List<SnapshotStore.Member> last = null;
        for (List<SnapshotStore.Member> m : memberships) {
            last = m;
        }
        return last;
    }
}
