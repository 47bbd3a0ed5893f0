package org.balanceroute.router.internal;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.locks.ReentrantLock;
import org.balanceroute.api.SnapshotStore;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One {@link SnapshotStore} shared by the dispatch loops of several pools: {@link #channel} is a
 * pool's store, which its {@link DispatchLoop} attaches as it would the real one.
 *
 * <p><b>One membership for all pools.</b> Every channel rides on one session of the real store,
 * so every pool sees the same members and the oldest dispatches every pool: a replica lost is one
 * failover and one election, not one per pool, and no two pools can disagree on who dispatches.
 * Only the frames are per pool: each carries its pool, and goes to that pool's loop alone.
 *
 * <p><b>Envelope.</b> {@code format:byte nameLength:byte name:utf8} before the loop's frame.
 * {@link #FORMAT} is not a {@link Frames#VERSION}, so a frame without a pool is malformed here,
 * not misread. A frame is copied once on send (envelope and frame) and once on receipt (the frame).
 *
 * <p><b>Sessions.</b> The first channel session opened opens the real one; the last closed, or
 * {@link #close()}, closes it. A channel session is told the membership before its open returns,
 * then every change and its pool's frames, serially, and nothing after its close returns. A frame
 * for a pool with no session open here is dropped, as a lost one: the router repairs it by
 * resending its state.
 */
final class PoolChannels {

    private static final Logger LOG = LoggerFactory.getLogger(PoolChannels.class);

    /** The envelope's first byte. */
    static final byte FORMAT = 0x50;
    /** A pool name's UTF-8 bytes at most: its length is one byte. */
    static final int MAX_NAME_BYTES = 255;

    private final SnapshotStore store;
    private final ConcurrentHashMap<String, Channel> channels = new ConcurrentHashMap<>();
    /** The open channel sessions by pool, read for every frame; changed under lifecycle. */
    private final ConcurrentHashMap<String, PoolSession[]> open = new ConcurrentHashMap<>();
    /** Held across the real store's open and close, so never taken by the store's callbacks. */
    private final Object lifecycle = new Object();
    /** Taken by the store's membership callback, so never held across a call into the store. */
    private final Object membership = new Object();
    private final SnapshotStore.Receiver inbound = new Inbound();
    private SnapshotStore.Session session; // guarded by lifecycle
    private boolean closed; // guarded by lifecycle
    private List<SnapshotStore.Member> members = List.of(); // guarded by membership

    PoolChannels(SnapshotStore store) {
        this.store = Objects.requireNonNull(store, "store");
    }

    /** The real store under the channels. */
    SnapshotStore store() {
        return store;
    }

    /**
     * The pool's store, the same object for every call (a loop detaches the store it attached).
     *
     * @throws IllegalArgumentException if the pool's name is longer than {@value #MAX_NAME_BYTES} UTF-8 bytes
     */
    SnapshotStore channel(String pool) {
        return channels.computeIfAbsent(Objects.requireNonNull(pool, "pool"), Channel::new);
    }

    /**
     * Closes every channel session and the real one (the store is going): no callback after this
     * returns, and every open after it fails as on a store that is no longer a member.
     */
    void close() {
        synchronized (lifecycle) {
            closed = true;
            for (PoolSession[] sessions : open.values()) {
                for (PoolSession s : sessions) {
                    s.markClosed();
                }
            }
            open.clear();
            closeReal();
        }
    }

    private SnapshotStore.Session open(Channel channel, SnapshotStore.Receiver receiver) {
        Objects.requireNonNull(receiver, "receiver");
        synchronized (lifecycle) {
            if (closed) {
                throw new IllegalStateException("the pool channels of the " + channel.name() + " store are closed");
            }
            if (session == null) {
                session = store.open(inbound); // tells inbound the membership before it returns
            }
            PoolSession s = new PoolSession(channel, receiver, session);
            synchronized (membership) {
                // told before it can be reached, so before any change or frame, and the latest
                s.membersChanged(members);
                open.compute(channel.pool, (pool, sessions) -> with(sessions, s));
            }
            return s;
        }
    }

    private void closed(PoolSession s) {
        synchronized (lifecycle) {
            open.computeIfPresent(s.channel.pool, (pool, sessions) -> without(sessions, s));
            if (open.isEmpty()) {
                closeReal();
            }
        }
    }

    /** Under lifecycle. */
    private void closeReal() {
        if (session == null) {
            return;
        }
        try {
            session.close();
        } catch (RuntimeException e) {
            LOG.warn("router: closing the {} snapshot store session: {}", store.name(), e.toString());
        }
        session = null;
    }

    private static PoolSession[] with(PoolSession[] sessions, PoolSession s) {
        if (sessions == null) {
            return new PoolSession[] {s};
        }
        PoolSession[] out = Arrays.copyOf(sessions, sessions.length + 1);
        out[sessions.length] = s;
        return out;
    }

    /** Null (the pool's entry goes) when none is left. */
    private static PoolSession[] without(PoolSession[] sessions, PoolSession s) {
        PoolSession[] out = Arrays.stream(sessions).filter(o -> o != s).toArray(PoolSession[]::new);
        return out.length == 0 ? null : out;
    }

    /** The real session's receiver: the store calls it serially. */
    private final class Inbound implements SnapshotStore.Receiver {

        @Override
        public void membersChanged(List<SnapshotStore.Member> now) {
            synchronized (membership) {
                members = now;
                for (PoolSession[] sessions : open.values()) {
                    for (PoolSession s : sessions) {
                        s.membersChanged(now);
                    }
                }
            }
        }

        @Override
        public void received(String fromMember, byte[] frame) {
            int nameBytes = frame.length < 2 ? -1 : frame[1] & 0xff;
            if (nameBytes < 0 || frame[0] != FORMAT || 2 + nameBytes > frame.length) {
                LOG.warn("router: a frame from {} without a pool ({} bytes); dropped", fromMember, frame.length);
                return;
            }
            String pool = new String(frame, 2, nameBytes, StandardCharsets.UTF_8);
            PoolSession[] to = open.get(pool);
            if (to == null) {
                LOG.debug("router: a frame from {} for pool {}, not open here; dropped", fromMember, pool);
                return;
            }
            for (PoolSession s : to) {
                s.received(fromMember, Arrays.copyOfRange(frame, 2 + nameBytes, frame.length)); // each its own array
            }
        }
    }

    /** A pool's store: its sessions share the real one. */
    private final class Channel implements SnapshotStore {
        final String pool;
        /** FORMAT, the name's length and bytes: the start of every frame sent. */
        final byte[] envelope;

        Channel(String pool) {
            byte[] name = pool.getBytes(StandardCharsets.UTF_8);
            if (name.length > MAX_NAME_BYTES) {
                throw new IllegalArgumentException("pool name longer than " + MAX_NAME_BYTES + " UTF-8 bytes: " + pool);
            }
            this.pool = pool;
            this.envelope = new byte[2 + name.length];
            envelope[0] = FORMAT;
            envelope[1] = (byte) name.length;
            System.arraycopy(name, 0, envelope, 2, name.length);
        }

        @Override
        public String name() {
            return store.name();
        }

        @Override
        public Session open(Receiver receiver) {
            return PoolChannels.this.open(this, receiver);
        }

        byte[] wrap(byte[] frame) {
            byte[] out = Arrays.copyOf(envelope, envelope.length + frame.length);
            System.arraycopy(frame, 0, out, envelope.length, frame.length);
            return out;
        }
    }

    /** One loop's session on its pool's channel. */
    private final class PoolSession implements SnapshotStore.Session {
        final Channel channel;
        private final SnapshotStore.Receiver receiver;
        private final SnapshotStore.Session real;
        /** Held while the receiver runs, so close() waits out a callback under way. */
        private final ReentrantLock lock = new ReentrantLock();
        private volatile boolean sessionClosed; // written under lock
        /** The membership last told (under lock): the store may tell one again; a receiver hears changes only. */
        private List<SnapshotStore.Member> told;

        PoolSession(Channel channel, SnapshotStore.Receiver receiver, SnapshotStore.Session real) {
            this.channel = channel;
            this.receiver = receiver;
            this.real = real;
        }

        @Override
        public String localMember() {
            return real.localMember();
        }

        @Override
        public List<SnapshotStore.Member> members() {
            return real.members();
        }

        @Override
        public void send(String member, byte[] frame) {
            if (!sessionClosed) { // the real session may stay open for other pools
                real.send(member, channel.wrap(frame));
            }
        }

        @Override
        public void sendToAll(byte[] frame) {
            if (!sessionClosed) {
                real.sendToAll(channel.wrap(frame));
            }
        }

        @Override
        public void close() {
            if (markClosed()) {
                closed(this);
            }
        }

        /** False if it was closed already. */
        boolean markClosed() {
            lock.lock();
            try {
                if (sessionClosed) {
                    return false;
                }
                sessionClosed = true;
                return true;
            } finally {
                lock.unlock();
            }
        }

        void membersChanged(List<SnapshotStore.Member> now) {
            lock.lock();
            try {
                if (!sessionClosed && !now.equals(told)) {
                    told = now;
                    receiver.membersChanged(now);
                }
            } catch (RuntimeException e) {
                failed(e); // the other pools are still told
            } finally {
                lock.unlock();
            }
        }

        void received(String fromMember, byte[] frame) {
            lock.lock();
            try {
                if (!sessionClosed) {
                    receiver.received(fromMember, frame);
                }
            } catch (RuntimeException e) {
                failed(e);
            } finally {
                lock.unlock();
            }
        }

        private void failed(RuntimeException e) {
            LOG.error("router: the receiver of pool {} failed: {}", channel.pool, e.toString(), e);
        }
    }
}
