package org.balanceroute.api;

import java.util.List;
import java.util.Objects;
import org.osgi.annotation.versioning.ConsumerType;

/**
 * How the router of one proxy replica reaches the routers of the others, so that N replicas in
 * front of one decode tier share one cluster snapshot: a membership, and frames between members.
 * Without a store the router is a cluster of one (the local snapshot); a store bundle (e.g.
 * Hazelcast) registers this service and the router, which references it dynamically, moves to
 * the shared snapshot while it runs, and back when the store goes.
 *
 * <p><b>Membership.</b> {@link Session#members()} lists the members oldest first, the same on
 * every member once the membership has settled; the oldest is the dispatcher, which owns the
 * cluster-wide prompt pool and decides every placement. A member that leaves (stopped, killed,
 * cut off) is dropped from the list within the store's failure-detection bound.
 *
 * <p><b>Frames</b> are opaque bytes, encoded and decoded by the router (nothing crosses bundle
 * class loaders but {@code byte[]}). From one sender to one receiver they arrive in the order
 * sent, or not at all: a frame may be lost when a member is overloaded or the membership changes.
 * The router numbers its frames and repairs a gap by resending its state.
 *
 * <p><b>Threading.</b> The store calls the {@link Receiver} on its own threads, for one session
 * serially; the receiver must not block (the router only enqueues). {@link Session#send} and
 * {@link Session#sendToAll} may be called from any thread and never block on the network.
 */
@ConsumerType
public interface SnapshotStore {

    /** Service property naming the store, e.g. {@code hazelcast}. */
    String NAME_PROPERTY = "balanceroute.snapshot.store";

    /** The store's name, as in {@link #NAME_PROPERTY}. */
    String name();

    /**
     * Joins this replica's router to the membership. The receiver is told the membership once
     * before this returns ({@link Receiver#membersChanged}) and again on every change, and every
     * frame sent to this member, until the session is closed.
     *
     * @throws IllegalStateException if the store is not (or no longer) a member
     */
    Session open(Receiver receiver);

    /** One member of the cluster of proxy replicas. */
    record Member(String id, String address) {

        public Member {
            Objects.requireNonNull(id, "id");
            Objects.requireNonNull(address, "address");
        }
    }

    /** What the router is told. */
    @ConsumerType
    interface Receiver {

        /** The members now, oldest first, this one included. */
        void membersChanged(List<Member> members);

        /** A frame another member sent to this one (or to all); the array is the receiver's. */
        void received(String fromMember, byte[] frame);
    }

    /** A router's membership, until {@link #close()}. */
    interface Session extends AutoCloseable {

        /** This member's id (stable for the session). */
        String localMember();

        /** The members now, oldest first, this one included. */
        List<Member> members();

        /** Sends a frame to one member; dropped if that member is gone. The array must not change after. */
        void send(String member, byte[] frame);

        /** Sends a frame to every other member. The array must not change after. */
        void sendToAll(byte[] frame);

        /** Leaves: no callback after this returns. The store itself stays a member. */
        @Override
        void close();
    }
}
