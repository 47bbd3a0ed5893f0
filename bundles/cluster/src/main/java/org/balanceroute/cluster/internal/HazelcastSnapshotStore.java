package org.balanceroute.cluster.internal;

import com.hazelcast.cluster.MembershipEvent;
import com.hazelcast.cluster.MembershipListener;
import com.hazelcast.core.HazelcastInstance;
import com.hazelcast.core.LifecycleEvent;
import com.hazelcast.topic.ITopic;
import com.hazelcast.topic.Message;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.locks.ReentrantLock;
import org.balanceroute.api.SnapshotStore;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The {@link SnapshotStore} over one Hazelcast member: the membership is Hazelcast's, frames go
 * through topics of {@code byte[]}.
 *
 * <p><b>Member ids.</b> A member's id is its {@value MemberConfigs#REPLICA_ATTRIBUTE} attribute,
 * drawn once per process: Hazelcast gives a member a new UUID when it merges after a split brain,
 * the attribute stays. Its address is {@code host:port} of its Hazelcast endpoint. {@code members()}
 * is {@code getCluster().getMembers()}'s order, oldest first, the same on every member.
 *
 * <p><b>Frames.</b> Point to point: every member listens on its own inbox topic
 * {@value #INBOX_PREFIX}{@code <id>}; {@code send} publishes there, {@code sendToAll} on
 * {@value #BROADCAST_TOPIC}, whose own messages a member ignores. A plain {@code ITopic} (not the
 * ringbuffer-backed reliable topic): a publish serializes the array, hands one event packet per
 * subscriber to the connection's write queue and returns; it does not wait for the network (the
 * one exception, Hazelcast's every-100,000th synchronous event, is turned off by
 * {@link MemberConfigs#start}). ITopic's ordering (its javadoc, and 5.7's {@code TopicService}):
 * the messages a member publishes to a topic reach every subscriber in the order published; the
 * receiver dispatches a topic's events on one event thread (order key = the topic name's hash),
 * so they are delivered in that order. A topic without subscriber (a member gone) drops the
 * message unserialized. Lost: an event a full event queue rejects (200,000 per event thread: 1,000,000 over 5),
 * and anything in flight when a connection breaks.
 *
 * <p><b>Threading.</b> Hazelcast calls the listeners on its event threads; a session serializes
 * its receiver's calls with a lock held only while the receiver runs (the receiver only enqueues),
 * so the receiver is called serially, and never after {@link Session#close()} returns.
 *
 * <p><b>Merge.</b> After a split-brain merge ({@code MERGED}, fired on the member that merged into
 * the other cluster) every session's receiver is told the membership. The topic listeners need no
 * new registration: Hazelcast 5.7 keeps them across the merge (the merging member's registrations
 * go with its join), checked by {@code SplitBrainMergeTest} both ways round, frames flowing once
 * each after the merge.
 */
final class HazelcastSnapshotStore implements SnapshotStore {

    static final String NAME = "hazelcast";
    static final String INBOX_PREFIX = "balanceroute.inbox.";
    static final String BROADCAST_TOPIC = "balanceroute.broadcast";

    private static final Logger LOG = LoggerFactory.getLogger(HazelcastSnapshotStore.class);

    private final HazelcastInstance hazelcast;
    private final String localId;
    private final Set<HazelcastSession> sessions = ConcurrentHashMap.newKeySet();
    private final ConcurrentHashMap<String, ITopic<byte[]>> inboxes = new ConcurrentHashMap<>();
    private final ITopic<byte[]> broadcast;
    private final UUID lifecycleRegistration;
    private volatile boolean closed;

    HazelcastSnapshotStore(HazelcastInstance hazelcast, String localId) {
        this.hazelcast = hazelcast;
        this.localId = localId;
        this.broadcast = hazelcast.getTopic(BROADCAST_TOPIC);
        this.lifecycleRegistration = hazelcast.getLifecycleService().addLifecycleListener(e -> {
            if (e.getState() == LifecycleEvent.LifecycleState.MERGED) {
                afterMerge();
            }
        });
    }

    @Override
    public String name() {
        return NAME;
    }

    /** This member's id. */
    String localId() {
        return localId;
    }

    @Override
    public Session open(Receiver receiver) {
        if (closed || !hazelcast.getLifecycleService().isRunning()) {
            throw new IllegalStateException("the Hazelcast member is not running");
        }
        HazelcastSession session = new HazelcastSession(receiver);
        sessions.add(session);
        try {
            session.open();
        } catch (RuntimeException e) {
            sessions.remove(session);
            session.close();
            throw new IllegalStateException("cannot open a session: " + e.getMessage(), e);
        }
        return session;
    }

    /** Closes every session (the member is about to go); no callback after this returns. */
    void close() {
        closed = true;
        for (HazelcastSession s : List.copyOf(sessions)) {
            s.close();
        }
        try {
            hazelcast.getLifecycleService().removeLifecycleListener(lifecycleRegistration);
        } catch (RuntimeException e) {
            LOG.debug("lifecycle listener not removed: {}", e.toString());
        }
    }

    /** The members now, oldest first. */
    List<Member> members() {
        return toMembers(hazelcast.getCluster().getMembers());
    }

    private void afterMerge() {
        LOG.info("cluster: merged after a split brain; {} members", members().size());
        for (HazelcastSession s : List.copyOf(sessions)) {
            s.deliverMembers();
        }
    }

    static List<Member> toMembers(Collection<com.hazelcast.cluster.Member> members) {
        List<Member> out = new ArrayList<>(members.size());
        for (com.hazelcast.cluster.Member m : members) {
            out.add(new Member(idOf(m), m.getAddress().getHost() + ":" + m.getAddress().getPort()));
        }
        return List.copyOf(out);
    }

    /** A member's replica id, or its Hazelcast UUID if it carries none (not a BalanceRoute member). */
    static String idOf(com.hazelcast.cluster.Member m) {
        String id = m.getAttribute(MemberConfigs.REPLICA_ATTRIBUTE);
        return id != null ? id : String.valueOf(m.getUuid());
    }

    private ITopic<byte[]> inbox(String member) {
        return inboxes.computeIfAbsent(member, id -> hazelcast.getTopic(INBOX_PREFIX + id));
    }

    /** One router's membership: its listeners on the member, and its receiver. */
    private final class HazelcastSession implements Session, MembershipListener {

        private final Receiver receiver;
        private final ReentrantLock lock = new ReentrantLock();
        /** Under the lock: set by open() once the receiver has been told the membership. */
        private boolean opened;
        /** Under the lock. */
        private boolean sessionClosed;
        /** Under the lock: frames that came between the listeners' registration and open()'s end. */
        private final List<Object[]> early = new ArrayList<>();
        private volatile UUID membershipRegistration;
        private volatile UUID inboxRegistration;
        private volatile UUID broadcastRegistration;

        HazelcastSession(Receiver receiver) {
            this.receiver = receiver;
        }

        void open() {
            membershipRegistration = hazelcast.getCluster().addMembershipListener(this);
            inboxRegistration = inbox(localId).addMessageListener(this::onInbox);
            broadcastRegistration = broadcast.addMessageListener(this::onBroadcast);
            lock.lock();
            try {
                call(() -> receiver.membersChanged(members()));
                for (Object[] f : early) {
                    call(() -> receiver.received((String) f[0], (byte[]) f[1]));
                }
                early.clear();
                opened = true;
            } finally {
                lock.unlock();
            }
        }

        @Override
        public String localMember() {
            return localId;
        }

        @Override
        public List<Member> members() {
            return HazelcastSnapshotStore.this.members();
        }

        @Override
        public void send(String member, byte[] frame) {
            inbox(member).publish(frame);
        }

        @Override
        public void sendToAll(byte[] frame) {
            broadcast.publish(frame);
        }

        @Override
        public void close() {
            lock.lock();
            try {
                if (sessionClosed) {
                    return;
                }
                sessionClosed = true;
                early.clear();
            } finally {
                lock.unlock();
            }
            sessions.remove(this);
            try {
                hazelcast.getCluster().removeMembershipListener(membershipRegistration);
                if (inboxRegistration != null) {
                    inbox(localId).removeMessageListener(inboxRegistration);
                }
                if (broadcastRegistration != null) {
                    broadcast.removeMessageListener(broadcastRegistration);
                }
            } catch (RuntimeException e) {
                // the member is shutting down: its listeners go with it
                LOG.debug("cluster: session listeners not removed: {}", e.toString());
            }
        }

        @Override
        public void memberAdded(MembershipEvent e) {
            deliverMembers();
        }

        @Override
        public void memberRemoved(MembershipEvent e) {
            inboxes.remove(idOf(e.getMember()));
            deliverMembers();
        }

        void deliverMembers() {
            lock.lock();
            try {
                // before open() ends, open() itself tells the membership, read after registering
                if (opened && !sessionClosed) {
                    call(() -> receiver.membersChanged(members()));
                }
            } finally {
                lock.unlock();
            }
        }

        private void onInbox(Message<byte[]> m) {
            deliverFrame(m);
        }

        private void onBroadcast(Message<byte[]> m) {
            com.hazelcast.cluster.Member from = m.getPublishingMember();
            if (from != null && !from.localMember()) {
                deliverFrame(m);
            }
        }

        private void deliverFrame(Message<byte[]> m) {
            com.hazelcast.cluster.Member from = m.getPublishingMember();
            String fromId = from == null ? null : from.getAttribute(MemberConfigs.REPLICA_ATTRIBUTE);
            if (fromId == null) {
                return; // not (or no longer) a member this one knows: dropped, as a frame may be
            }
            lock.lock();
            try {
                if (sessionClosed) {
                    return;
                }
                byte[] frame = m.getMessageObject();
                if (!opened) {
                    early.add(new Object[] {fromId, frame});
                    return;
                }
                call(() -> receiver.received(fromId, frame));
            } finally {
                lock.unlock();
            }
        }

        private void call(Runnable r) {
            try {
                r.run();
            } catch (RuntimeException e) {
                LOG.error("cluster: the receiver failed: {}", e.toString(), e);
            }
        }
    }
}
