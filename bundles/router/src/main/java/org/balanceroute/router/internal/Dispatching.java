package org.balanceroute.router.internal;

import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.LongSupplier;
import org.balanceroute.api.SnapshotStore;
import org.balanceroute.core.TrackedRequest;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What the dispatcher of a cluster of proxies does for the other replicas: applies their frames
 * to its core in order (a gap, or a session it does not know, is answered with RESYNC; a SYNC
 * replaces what it held for that replica), sends each one its placements, broadcasts the cluster
 * view (at most every {@value #VIEW_MILLIS} ms, and every {@value #KEEPALIVE_MILLIS} ms at
 * least), and releases the requests of a replica that left (membership) or went silent
 * ({@value #ORIGIN_TIMEOUT_MILLIS} ms). A new dispatcher holds placements until every member has
 * reported (at most {@value #SETTLE_MILLIS} ms). It decides for its own requests as a replica
 * {@link Alone} does.
 *
 * <p>One instance lives as long as the loop, whatever the role: as the core's {@link Core.Watcher}
 * it keeps what the next view carries, and it keeps the membership's departures and the SYNCs that
 * reach this replica before it knows it dispatches. Owned by the dispatch thread.
 */
final class Dispatching extends Alone implements Core.Watcher {

    /** Shortest gap between two views the dispatcher broadcasts. */
    static final long VIEW_MILLIS = 5;
    /** A new dispatcher holds placements this long at most, until every member has sent its state. */
    static final long SETTLE_MILLIS = 300;
    /** The dispatcher releases the requests of a replica it has not heard from this long. */
    static final long ORIGIN_TIMEOUT_MILLIS = 10_000;

    private static final Logger LOG = LoggerFactory.getLogger(Dispatching.class);

    private final LongSupplier clock;
    private final Frames.Writer frame = new Frames.Writer();
    private final Map<String, Origin> origins = new LinkedHashMap<>();
    private final Set<String> awaitingSync = new HashSet<>();
    /** SYNCs that reached this member while it did not know yet that it dispatches, by sender. */
    private final Map<String, byte[]> earlySyncs = new HashMap<>();
    /**
     * Members that left, until they are members again: a frame of theirs still in flight when the
     * membership changed would make a new origin of them, outside the membership, never purged,
     * and their requests would stay in every view.
     */
    private final Set<String> departed = new HashSet<>();
    private Set<String> lastMembers = Set.of();
    private boolean answersPending;
    private boolean settling;
    private long settleUntil;
    private boolean viewDirty;
    private long lastViewAt;
    private long viewSeq;
    private long viewOldestSeen = Long.MAX_VALUE;
    private long nextSweepAt;

    Dispatching(RoleHost host, LongSupplier clock) {
        super(host);
        this.clock = clock;
    }

    /** The other replicas this dispatcher holds requests for. */
    @Override
    Collection<Origin> origins() {
        return origins.values();
    }

    @Override
    Origin originOf(String member) {
        return origins.get(member);
    }

    /** Whether placements wait for the members' reports. */
    boolean settling() {
        return settling;
    }

    /** Whether any other replica's health checks mark this worker down. */
    @Override
    public boolean markedDownElsewhere(String workerId) {
        for (Origin o : origins.values()) {
            if (o.marksDown(workerId)) {
                return true;
            }
        }
        return false;
    }

    /** The state changed: a view is due. */
    @Override
    public void changed() {
        viewDirty = true;
    }

    /** This dispatcher's own client saw tokens at {@code at}: the next view carries them. */
    @Override
    public void seen(long at) {
        viewOldestSeen = Math.min(viewOldestSeen, at);
        viewDirty = true;
    }

    /** The answer to an origin's request: sent with the next answers. */
    @Override
    public void placed(Origin o, long id, int worker, String workerId) {
        o.placed(id, worker, workerId);
        answersPending = true;
    }

    /**
     * Starts dispatching (or routing alone, with no members): the other members' reports are
     * awaited (their SYNCs); those that came early are {@linkplain #takeEarlySyncs taken} next.
     */
    void start(List<SnapshotStore.Member> members, String localMember) {
        origins.clear();
        awaitingSync.clear();
        for (SnapshotStore.Member m : members) {
            if (!m.id().equals(localMember)) {
                awaitingSync.add(m.id());
            }
        }
        settling = !awaitingSync.isEmpty();
        settleUntil = clock.getAsLong() + Deadlines.millis(SETTLE_MILLIS);
        viewDirty = true;
    }

    /** The SYNCs that came before this member knew it dispatches, by sender; forgotten here. */
    Map<String, byte[]> takeEarlySyncs() {
        Map<String, byte[]> early = new LinkedHashMap<>(earlySyncs);
        earlySyncs.clear();
        return early;
    }

    /** No longer the dispatcher (or alone): every other replica's request is out of the core. */
    void stop(String why) {
        for (Origin o : new ArrayList<>(origins.values())) {
            purge(o, why);
        }
        origins.clear();
        awaitingSync.clear();
        settling = false;
        answersPending = false;
    }

    /** Forgets the other replicas without touching the core (it is about to be dropped). */
    void forget() {
        origins.clear();
        awaitingSync.clear();
        settling = false;
        answersPending = false;
    }

    /** Keeps a SYNC that came before this member knew it dispatches; applied if it comes to. */
    void early(String from, byte[] frame) {
        earlySyncs.put(from, frame);
    }

    /** The membership changed: replicas that left take their requests with them. */
    void membersChanged(List<SnapshotStore.Member> members) {
        Set<String> ids = new HashSet<>();
        for (SnapshotStore.Member m : members) {
            ids.add(m.id());
        }
        for (String gone : lastMembers) {
            if (!ids.contains(gone)) {
                departed.add(gone);
            }
        }
        departed.removeAll(ids);
        lastMembers = ids;
        for (Origin o : new ArrayList<>(origins.values())) {
            if (ids.contains(o.member)) {
                o.seenInMembership = true;
            } else if (o.seenInMembership) {
                purge(o, "it left the cluster");
            }
        }
        awaitingSync.retainAll(ids);
        earlySyncs.keySet().retainAll(ids);
        viewDirty = true;
    }

    // ------------------------------------------------------------------ timers

    @Override
    public long untilDue(long now) {
        if (answersPending) {
            return 0;
        }
        long wait = Deadlines.until(now, lastViewAt + Deadlines.millis(KEEPALIVE_MILLIS));
        if (viewDirty) {
            wait = Math.min(wait, Deadlines.until(now, lastViewAt + Deadlines.millis(VIEW_MILLIS)));
        }
        wait = Math.min(wait, Deadlines.until(now, nextSweepAt));
        return settling ? Math.min(wait, Deadlines.until(now, settleUntil)) : wait;
    }

    /** Settling ends before a step is taken (so it may place), answers and views after it. */
    @Override
    public void runTimers(long now) {
        if (settling && (awaitingSync.isEmpty() || Deadlines.due(now, settleUntil))) {
            endSettling();
        }
    }

    @Override
    public void runTimersAfterStep(long now) {
        if (answersPending) {
            sendAnswers(now);
        }
        if ((viewDirty && Deadlines.due(now, lastViewAt + Deadlines.millis(VIEW_MILLIS)))
                || Deadlines.due(now, lastViewAt + Deadlines.millis(KEEPALIVE_MILLIS))) {
            broadcastView(now);
        }
        if (Deadlines.due(now, nextSweepAt)) {
            nextSweepAt = now + Deadlines.millis(KEEPALIVE_MILLIS);
            for (Origin o : new ArrayList<>(origins.values())) {
                if (now - o.lastHeardAt > Deadlines.millis(ORIGIN_TIMEOUT_MILLIS)) {
                    purge(o, "nothing was heard from it for " + ORIGIN_TIMEOUT_MILLIS + " ms");
                }
            }
        }
    }

    private void endSettling() {
        settling = false;
        if (!awaitingSync.isEmpty()) {
            LOG.warn("router: no state from {} within {} ms; placing without it", awaitingSync,
                    SETTLE_MILLIS);
            awaitingSync.clear();
        }
        host.settled();
    }

    // ------------------------------------------------------------------ frames from the followers

    @Override
    public void receive(String from, Frames.Reader r, byte[] frame) {
        if (departed.contains(from)) {
            return; // sent before it left (see departed)
        }
        if (r.type == Frames.SYNC) {
            onSync(from, r);
        } else if (r.type == Frames.EVENTS) {
            onEvents(from, r);
        }
    }

    /** A frame from a follower could not be read: its state is asked for. */
    @Override
    public void malformed(String from) {
        Origin o = origins.get(from);
        if (o != null) {
            o.awaitingSync = true;
            askResync(o, clock.getAsLong());
        }
    }

    private Origin origin(String member) {
        Origin o = origins.get(member);
        if (o == null) {
            o = new Origin(member);
            o.lastHeardAt = clock.getAsLong();
            for (SnapshotStore.Member m : host.members()) {
                o.seenInMembership |= m.id().equals(member);
            }
            origins.put(member, o);
        }
        return o;
    }

    /** A follower's whole state: what the dispatcher held for it is replaced. */
    private void onSync(String from, Frames.Reader r) {
        long now = clock.getAsLong();
        Origin o = origin(from);
        release(o);
        o.session = r.session;
        o.expectedSeq = r.seq + 1;
        o.awaitingSync = false;
        o.lastHeardAt = now;
        o.outSeq = 0;
        byte flags = r.getByte();
        WorkerLayout theirs = r.getByte() != 0 ? WorkerLayout.read(r) : null;
        WorkerLayout mine = host.marks().layout();
        if (theirs != null && mine != null && theirs.fingerprint() != mine.fingerprint()
                && o.layoutMismatchLogged != theirs.fingerprint()) {
            LOG.error("router: member {} has the decode pool {}, this dispatcher {}: the replicas' topologies differ;"
                    + " its requests are placed by worker identity", from, theirs, mine);
            o.layoutMismatchLogged = theirs.fingerprint();
        }
        int down = r.getCount(4);
        o.down.clear();
        for (int i = 0; i < down; i++) {
            o.down.add(r.getString());
        }
        host.core().applyAvailability();
        int drains = r.getCount(5);
        for (int i = 0; i < drains; i++) {
            String worker = r.getString();
            host.core().applyDrain(worker, r.getByte() != 0); // asked of it, not yet shown by a view: maybe lost on the way
        }
        int n = r.getCount(40);
        int restored = 0;
        int aside = 0;
        for (int i = 0; i < n; i++) {
            long id = r.getLong();
            int prompt = r.getInt();
            long key = r.getLong();
            int bodyBytes = r.getInt();
            long age = r.getLong();
            String worker = r.getString();
            int decoded = r.getInt();
            InFlight f = new InFlight(id, Math.max(1, prompt), key, Math.max(0, bodyBytes), now - Math.max(0, age), o);
            if (!o.requests.putIfAbsent(id, f)) {
                continue;
            }
            int g = worker.isEmpty() || mine == null ? -1 : mine.indexOf(worker);
            if (g >= 0) {
                host.core().restore(f, g, Math.max(0, decoded));
                restored++;
            } else if (!worker.isEmpty()) {
                host.core().retired(f, worker); // its worker is not in this layout: it ends there
                aside++;
            } else {
                submit(o, f);
            }
        }
        LOG.info("router: member {} reported {} request(s): {} on workers, {} waiting{}", from, n, restored,
                n - restored - aside, aside == 0 ? "" : ", " + aside + " on workers no longer in the layout");
        if (awaitingSync.remove(from) && settling && awaitingSync.isEmpty()) {
            endSettling();
        }
        noteFlags(o, flags);
        viewOldestSeen = Math.min(viewOldestSeen, r.oldestSeenNanos);
        viewDirty = true;
    }

    private void onEvents(String from, Frames.Reader r) {
        long now = clock.getAsLong();
        Origin o = origins.get(from);
        if (o == null || o.awaitingSync || o.session != r.session || r.seq != o.expectedSeq) {
            Origin asked = origin(from);
            if (!asked.awaitingSync) {
                LOG.warn("router: member {} sent frame {} of session {}, expected {} of {}; asking for its state", from,
                        r.seq, r.session, asked.expectedSeq, asked.session);
            }
            asked.awaitingSync = true;
            askResync(asked, now);
            return;
        }
        o.expectedSeq++;
        o.lastHeardAt = now;
        byte flags = r.getByte();
        while (r.hasMore()) {
            byte kind = r.getByte();
            switch (kind) {
                case Frames.K_SUBMIT -> {
                    long id = r.getLong();
                    int prompt = r.getInt();
                    long key = r.getLong();
                    int bodyBytes = r.getInt();
                    long age = r.getLong();
                    InFlight f = new InFlight(id, Math.max(1, prompt), key, Math.max(0, bodyBytes),
                            now - Math.max(0, age), o);
                    if (!o.requests.putIfAbsent(id, f)) {
                        refuse(o, id, "it is already in flight");
                    } else {
                        submit(o, f);
                    }
                }
                case Frames.K_TOKENS -> {
                    long id = r.getLong();
                    int count = r.getInt();
                    long age = r.getLong();
                    InFlight f = o.requests.get(id);
                    if (f != null && count > 0) {
                        host.core().tokens(f, count, now - Math.max(0, age));
                    }
                }
                case Frames.K_COMPLETE -> {
                    InFlight f = o.requests.remove(r.getLong());
                    if (f != null) {
                        if (f.core != null && (f.core.phase() == TrackedRequest.Phase.RUNNING
                                || f.core.phase() == TrackedRequest.Phase.QUEUED)) {
                            host.core().complete(f);
                        } else {
                            host.core().abort(f); // waiting, or on a worker no longer in the layout
                        }
                    }
                }
                case Frames.K_ABORT -> {
                    InFlight f = o.requests.remove(r.getLong());
                    if (f != null) {
                        host.core().abort(f);
                    }
                }
                case Frames.K_MARK -> {
                    String worker = r.getString();
                    boolean changed = r.getByte() != 0 ? o.down.remove(worker) : o.down.add(worker);
                    if (changed) {
                        host.core().applyAvailability(worker);
                    }
                }
                case Frames.K_DRAIN -> {
                    String worker = r.getString();
                    host.core().applyDrain(worker, r.getByte() != 0);
                }
                default -> throw new Frames.MalformedFrameException("unknown event kind " + kind);
            }
        }
        noteFlags(o, flags);
        if (r.oldestSeenNanos != 0) {
            host.staleness().record(now - r.oldestSeenNanos);
            viewOldestSeen = Math.min(viewOldestSeen, r.oldestSeenNanos);
        }
    }

    /** Another replica's request into the core; if the policy fails it, the replica is told (its caller gets an error). */
    private void submit(Origin o, InFlight f) {
        try {
            host.core().submit(f);
        } catch (RuntimeException e) {
            o.requests.remove(f.id);
            LOG.error("router: request {} of member {} could not be submitted: {}", f.id, o.member, e.toString());
            refuse(o, f.id, e.getMessage());
        }
    }

    private void refuse(Origin o, long id, String why) {
        LOG.warn("router: request {} of member {} refused: {}", id, o.member, why);
        placed(o, id, Frames.REFUSED, "");
    }

    private void noteFlags(Origin o, byte flags) {
        if ((flags & Frames.F_STEP) != 0) {
            host.steps().want();
        }
        if ((flags & Frames.F_STEP_ANSWER) != 0) {
            host.step(false);
            o.stepsRun++;
            answersPending = true;
        }
    }

    private void askResync(Origin o, long now) {
        if (o.resyncAskedAt != 0 && now - o.resyncAskedAt < Deadlines.millis(RESYNC_GAP_MILLIS)) {
            return;
        }
        o.resyncAskedAt = now;
        frame.begin(Frames.RESYNC, o.session, 0, now, 0); // not an answer: no sequence of its own
        host.send(o.member, frame.toBytes());
    }

    // ------------------------------------------------------------------ frames to the followers

    /** Sends each replica the placements (and step answers) the last commands made for it. */
    private void sendAnswers(long now) {
        answersPending = false;
        for (Origin o : origins.values()) {
            if (o.hasAnswers()) {
                if (o.awaitingSync) {
                    o.clearAnswers(); // its SYNC will say what it still waits for
                    continue;
                }
                frame.begin(Frames.PLACEMENTS, o.session, o.outSeq++, now, 0);
                o.writeAnswers(frame, host.core().step(), host.core().poolSize());
                host.send(o.member, frame.toBytes());
            }
        }
    }

    private void broadcastView(long now) {
        viewDirty = false;
        lastViewAt = now;
        long oldest = viewOldestSeen == Long.MAX_VALUE ? 0 : viewOldestSeen;
        viewOldestSeen = Long.MAX_VALUE;
        if (host.members().size() < 2) {
            return;
        }
        frame.begin(Frames.VIEW, 0, viewSeq++, now, oldest);
        host.writeView(frame);
        host.sendToAll(frame.toBytes());
    }

    /** A replica left: its requests leave the core at once (they went with its clients). */
    private void purge(Origin o, String why) {
        int n = o.requests.size();
        release(o);
        origins.remove(o.member);
        awaitingSync.remove(o.member);
        host.core().applyAvailability();
        LOG.info("router: member {} is gone ({}): its {} request(s) released", o.member, why, n);
        if (settling && awaitingSync.isEmpty()) {
            endSettling();
        }
        viewDirty = true;
    }

    /** Takes every request of a replica out of the core (nothing learned). */
    private void release(Origin o) {
        if (o.requests.isEmpty()) {
            return;
        }
        o.requests.forEachValue(host.core()::abort);
        o.requests.clear();
        o.clearAnswers();
        host.steps().want();
    }
}
