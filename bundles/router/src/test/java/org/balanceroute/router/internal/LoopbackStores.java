package org.balanceroute.router.internal;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BiPredicate;
import org.balanceroute.api.SnapshotStore;

/**
 * Snapshot stores of several members in one JVM, for the cluster protocol's tests: members join
 * in order (the first is the oldest), each member's callbacks run serially on its own thread in
 * the order sent, a member can be killed (it leaves every other member's list at once), the
 * members can be split into groups that cannot reach each other and healed, and frames can be
 * dropped by a filter, or held back and delivered later (after the membership changed, as a frame
 * still on the wire when its sender left).
 */
final class LoopbackStores {

    private final List<Store> joined = new ArrayList<>(); // guarded by this, oldest first
    private final AtomicInteger ids = new AtomicInteger();
    private volatile BiPredicate<String, byte[]> drop = (to, frame) -> false;
    private volatile FrameFilter hold = (from, to, frame) -> false;
    private final List<Runnable> held = new ArrayList<>(); // guarded by this
    /** Member id to group; members of different groups cannot reach each other. */
    private final Map<String, Integer> groups = new LinkedHashMap<>(); // guarded by this

    /** A new member (the youngest). */
    synchronized Store join() {
        Store s = new Store("m" + ids.incrementAndGet());
        joined.add(s);
        groups.put(s.id, 0);
        announce();
        return s;
    }

    /** Drops the frames to a member the filter accepts (member id, frame). */
    void drop(BiPredicate<String, byte[]> filter) {
        drop = filter;
    }

    /** Which frames to hold back: sender id, receiver id, the frame. */
    interface FrameFilter {
        boolean test(String from, String to, byte[] frame);
    }

    /** Holds back the frames the filter accepts until {@link #release} or {@link #loseHeld}. */
    void hold(FrameFilter filter) {
        hold = filter;
    }

    synchronized int heldFrames() {
        return held.size();
    }

    /** The held frames are lost; the filter stays. */
    synchronized void loseHeld() {
        held.clear();
    }

    /** Stops holding and delivers what was held, in order, even from a member that is gone now. */
    void release() {
        List<Runnable> out;
        synchronized (this) {
            hold = (from, to, frame) -> false;
            out = new ArrayList<>(held);
            held.clear();
        }
        out.forEach(Runnable::run);
    }

    /** The member dies: no frame from or to it, every other member sees it gone. */
    synchronized void kill(Store s) {
        joined.remove(s);
        groups.remove(s.id);
        s.dead = true;
        s.thread.shutdownNow();
        announce();
    }

    /** Splits the membership: the given members form one side, the rest the other. */
    synchronized void split(Store... side) {
        Set<Store> a = new HashSet<>(List.of(side));
        for (Store s : joined) {
            groups.put(s.id, a.contains(s) ? 1 : 2);
        }
        announce();
    }

    /** One membership again (the oldest of all first, as after a real merge). */
    synchronized void heal() {
        for (Store s : joined) {
            groups.put(s.id, 0);
        }
        announce();
    }

    synchronized void close() {
        for (Store s : joined) {
            s.thread.shutdownNow();
        }
    }

    private List<SnapshotStore.Member> membersOf(Store s) {
        List<SnapshotStore.Member> out = new ArrayList<>();
        Integer g = groups.get(s.id);
        for (Store o : joined) {
            if (g != null && g.equals(groups.get(o.id))) {
                out.add(new SnapshotStore.Member(o.id, "loopback/" + o.id));
            }
        }
        return out;
    }

    private void announce() {
        for (Store s : joined) {
            List<SnapshotStore.Member> m = membersOf(s);
            s.deliver(r -> r.membersChanged(m));
        }
    }

    private synchronized boolean reachable(Store from, Store to) {
        Integer a = groups.get(from.id);
        return a != null && a.equals(groups.get(to.id)) && !from.dead && !to.dead;
    }

    private synchronized Store byId(String id) {
        for (Store s : joined) {
            if (s.id.equals(id)) {
                return s;
            }
        }
        return null;
    }

    /** One member's store. */
    final class Store implements SnapshotStore {
        final String id;
        final ExecutorService thread = Executors.newSingleThreadExecutor();
        volatile boolean dead;
        volatile Receiver receiver;
        final AtomicInteger framesSent = new AtomicInteger();

        Store(String id) {
            this.id = id;
        }

        @Override
        public String name() {
            return "loopback";
        }

        @Override
        public Session open(Receiver r) {
            receiver = r;
            List<Member> m;
            synchronized (LoopbackStores.this) {
                m = membersOf(this);
            }
            r.membersChanged(m);
            return new Session() {
                @Override
                public String localMember() {
                    return id;
                }

                @Override
                public List<Member> members() {
                    synchronized (LoopbackStores.this) {
                        return membersOf(Store.this);
                    }
                }

                @Override
                public void send(String member, byte[] frame) {
                    Store to = byId(member);
                    framesSent.incrementAndGet();
                    if (to != null && reachable(Store.this, to) && !drop.test(member, frame)) {
                        byte[] copy = frame.clone();
                        Runnable delivery = () -> to.deliver(rr -> rr.received(id, copy));
                        if (hold.test(id, member, copy)) {
                            synchronized (LoopbackStores.this) {
                                held.add(delivery);
                            }
                        } else {
                            delivery.run();
                        }
                    }
                }

                @Override
                public void sendToAll(byte[] frame) {
                    List<Store> all;
                    synchronized (LoopbackStores.this) {
                        all = new ArrayList<>(joined);
                    }
                    for (Store to : all) {
                        if (to != Store.this) {
                            send(to.id, frame);
                        }
                    }
                }

                @Override
                public void close() {
                    receiver = null;
                }
            };
        }

        void deliver(java.util.function.Consumer<Receiver> call) {
            if (dead) {
                return;
            }
            try {
                thread.execute(() -> {
                    Receiver r = receiver;
                    if (r != null && !dead) {
                        call.accept(r);
                    }
                });
            } catch (java.util.concurrent.RejectedExecutionException e) {
                // killed meanwhile
            }
        }
    }
}
