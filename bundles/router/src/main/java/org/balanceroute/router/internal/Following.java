package org.balanceroute.router.internal;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.function.BiConsumer;
import java.util.function.LongSupplier;
import org.balanceroute.api.SnapshotStore;
import org.balanceroute.router.Placement;
import org.balanceroute.router.ReplicaShare;
import org.balanceroute.router.StepResult;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What a follower does in a cluster of proxies: tells its dispatcher its own requests' events
 * (batched in a {@link FollowerOutbox}: tokens at most every {@value #FLUSH_MILLIS} ms, anything
 * else at once), hands its whole state over with a SYNC (a new session) whenever the
 * dispatcher may not have it, completes the placement futures with the dispatcher's answers, and
 * keeps the dispatcher's latest view, which its callers are answered from; its core holds
 * everything. Owned by the dispatch thread; {@link #view()} is read by any.
 *
 * <p>Drains asked of this replica go to the dispatcher, which owns them; each is kept as asked
 * until a view shows it, and every SYNC carries those again (see {@link DispatchLoop}'s class
 * comment): a drain sent to a dispatcher that died, or in a lost frame, is not lost.
 */
final class Following implements ReplicaRole {

    /** Longest a follower holds tokens before telling the dispatcher. */
    static final long FLUSH_MILLIS = 2;
    /** A follower that heard nothing from its dispatcher this long sends its state again. */
    static final long DISPATCHER_SILENCE_MILLIS = 3000;

    private static final Logger LOG = LoggerFactory.getLogger(Following.class);
    // the lines this class took over from the loop keep their logger name
    private static final Logger LOOP_LOG = LoggerFactory.getLogger(DispatchLoop.class);

    private final RoleHost host;
    private final LongSupplier clock;
    /** Where a SYNC goes that reaches this member: another member takes it for its dispatcher already. */
    private final BiConsumer<String, byte[]> earlySyncs;
    private final FollowerOutbox outbox = new FollowerOutbox();
    private final Frames.Writer frame = new Frames.Writer();
    private final ArrayDeque<CompletableFuture<StepResult>> stepAnswers = new ArrayDeque<>();
    private volatile SharedView view;
    private String dispatcher;
    private int session;
    private long seq;
    private long expectedAnswerSeq;
    private long lastSentAt;
    private long lastHeardAt;
    private long lastSyncAt;
    /** Drains asked of this replica that no view has shown yet, by worker identity. */
    private final Map<String, Boolean> pendingDrains = new LinkedHashMap<>();

    Following(RoleHost host, LongSupplier clock, BiConsumer<String, byte[]> earlySyncs) {
        this.host = host;
        this.clock = clock;
        this.earlySyncs = earlySyncs;
    }

    @Override
    public boolean decides() {
        return false;
    }

    /** The dispatcher's latest view, null before the first (or when not following). Any thread. */
    SharedView view() {
        return view;
    }

    /** Follows a (new) dispatcher: its state goes there with a SYNC. */
    void follow(String member) {
        dispatcher = member;
        view = null;
        answerSteps();
        sendSync();
    }

    /** No longer a follower (the drains asked here are in the loop's set already). */
    void stop() {
        view = null;
        outbox.clear();
        pendingDrains.clear();
        answerSteps();
    }

    /**
     * This replica's layout changed: its requests' workers are found in it again, the drains asked
     * for workers it no longer has are dropped, and its core takes the new shape, empty.
     */
    @Override
    public void relaid(WorkerLayout before, WorkerLayout next) {
        host.ownRequests().forEachValue(f -> {
            if (f.workerId != null) {
                f.worker = next.indexOf(f.workerId);
                f.retired = f.worker < 0;
            }
        });
        pendingDrains.keySet().removeIf(id -> next.indexOf(id) < 0);
        host.core().relaidEmpty(next);
    }

    // ------------------------------------------------------------------ this replica's events

    @Override
    public void submit(InFlight f) {
        outbox.submit(f, clock.getAsLong());
    }

    @Override
    public void tokens(InFlight f, int count, long at) {
        if (f.workerId == null) {
            LOOP_LOG.warn("tokens for request {}, which has no worker yet; ignored", f.id);
            return;
        }
        f.decoded += count;
        outbox.tokens(f, count, at);
        host.steps().observe(f, count, at);
    }

    @Override
    public void complete(InFlight f) {
        if (f.workerId == null) {
            throw new IllegalStateException("request " + f.id + " is waiting for a worker, not on one: abort it"
                    + " instead of completing it");
        }
        host.ownRequests().remove(f.id);
        if (!f.retired) {
            host.learned(f, f.decoded);
        }
        outbox.complete(f, clock.getAsLong());
    }

    @Override
    public void abort(InFlight f) {
        outbox.abort(f, clock.getAsLong());
    }

    @Override
    public void marked(int g, String workerId, boolean up) {
        outbox.mark(workerId, up, clock.getAsLong());
    }

    /** An operator's drain asked of this replica: to the dispatcher, and kept until a view shows it. */
    @Override
    public void drain(int g, String workerId, boolean draining) {
        host.marks().askDrain(g, workerId, draining);
        pendingDrains.put(workerId, draining);
        outbox.drain(workerId, draining, clock.getAsLong());
    }

    /** The proxy wants a dispatch step: the dispatcher is asked for one. */
    @Override
    public void askStep() {
        outbox.flag(Frames.F_STEP, clock.getAsLong());
    }

    /** A caller waits for a dispatch step (RouterService.dispatchStep): the dispatcher runs one and answers. */
    @Override
    public void step(CompletableFuture<StepResult> answer) {
        stepAnswers.add(answer);
        outbox.flag(Frames.F_STEP_ANSWER, clock.getAsLong());
    }

    // ------------------------------------------------------------------ what it shows

    /** The members' shares as the last view shows them; none for a member it does not show. */
    @Override
    public List<ReplicaShare> shares() {
        SharedView v = view;
        List<ReplicaShare> shares = new ArrayList<>();
        Map<String, ReplicaShare> byMember = new HashMap<>();
        if (v != null) {
            v.shares().forEach(s -> byMember.put(s.member(), s));
        }
        int g = v != null ? v.totals().workers() : host.marks().workers();
        for (SnapshotStore.Member m : host.members()) {
            ReplicaShare s = byMember.get(m.id());
            shares.add(s != null ? s : new ReplicaShare(m.id(), m.address(), m.id().equals(dispatcher), 0,
                    new long[g], new int[g], new int[g]));
        }
        return shares;
    }

    @Override
    public double viewAgeMillis() {
        SharedView v = view;
        return v == null ? 0 : (clock.getAsLong() - v.receivedAtNanos()) / 1e6;
    }

    // ------------------------------------------------------------------ timers

    /** Nanoseconds until something is due: 0 now. */
    @Override
    public long untilDue(long now) {
        if (outbox.urgent()) {
            return 0;
        }
        long wait = Long.MAX_VALUE;
        if (!outbox.isEmpty()) {
            wait = Deadlines.until(now, outbox.since() + Deadlines.millis(FLUSH_MILLIS));
        }
        wait = Math.min(wait, Deadlines.until(now, lastSentAt + Deadlines.millis(KEEPALIVE_MILLIS)));
        return Math.min(wait, Deadlines.until(now, silentSince() + Deadlines.millis(DISPATCHER_SILENCE_MILLIS)));
    }

    @Override
    public void runTimers(long now) {
        if (outbox.urgent() || (!outbox.isEmpty() && Deadlines.due(now, outbox.since()
                + Deadlines.millis(FLUSH_MILLIS)))
                || Deadlines.due(now, lastSentAt + Deadlines.millis(KEEPALIVE_MILLIS))) {
            outbox.writeFrame(frame, session, seq++, now);
            host.send(dispatcher, frame.toBytes());
            lastSentAt = now;
        }
        if (Deadlines.due(now, silentSince() + Deadlines.millis(DISPATCHER_SILENCE_MILLIS))) {
            LOG.warn("router: nothing from the dispatcher {} for {} ms; sending this replica's state again", dispatcher,
                    DISPATCHER_SILENCE_MILLIS);
            sendSync();
        }
    }

    private long silentSince() {
        return Math.max(lastHeardAt, lastSyncAt);
    }

    // ------------------------------------------------------------------ state hand-over

    /** This replica's whole state to its dispatcher, opening a new session. */
    void sendSync() {
        long now = clock.getAsLong();
        session++;
        seq = 0;
        expectedAnswerSeq = 0;
        outbox.clear();
        frame.begin(Frames.SYNC, session, seq++, now, now).putByte(Frames.F_STEP);
        WorkerLayout layout = host.marks().layout();
        if (layout == null) {
            frame.putByte(0);
        } else {
            layout.write(frame.putByte(1));
        }
        Set<String> down = host.marks().ownDown();
        frame.putInt(down.size());
        down.forEach(frame::putString);
        frame.putInt(pendingDrains.size());
        pendingDrains.forEach((id, draining) -> frame.putString(id).putByte(draining ? 1 : 0));
        LongMap<InFlight> own = host.ownRequests();
        frame.putInt(own.size());
        own.forEachValue(f -> frame.putLong(f.id).putInt(f.promptTokens).putLong(f.promptKey).putInt(f.bodyBytes)
                .putLong(now - f.arrivalNanos).putString(f.workerId == null ? "" : f.workerId).putInt(f.decoded));
        host.send(dispatcher, frame.toBytes());
        lastSyncAt = now;
        lastSentAt = now;
        answerSteps();
    }

    /** An empty SYNC: the dispatcher releases what it held for this replica, which routes alone from now on. */
    void sendLeave() {
        long now = clock.getAsLong();
        frame.begin(Frames.SYNC, ++session, 0, now, 0).putByte(0).putByte(0).putInt(0).putInt(0).putInt(0);
        host.send(dispatcher, frame.toBytes());
    }

    /** The waiting dispatchStep() callers get an empty answer (their dispatcher changed). */
    private void answerSteps() {
        for (CompletableFuture<StepResult> a; (a = stepAnswers.poll()) != null; ) {
            a.complete(new StepResult(-1, host.activePolicy(), List.of(), host.poolDepth()));
        }
    }

    /** Fails whoever still waits for a step (the router stopped). */
    @Override
    public void stopped(RuntimeException cause) {
        stepAnswers.forEach(a -> a.completeExceptionally(cause));
        stepAnswers.clear();
    }

    // ------------------------------------------------------------------ frames from the dispatcher

    @Override
    public void receive(String from, Frames.Reader r, byte[] frame) {
        if (r.type == Frames.SYNC) {
            earlySyncs.accept(from, frame); // it may know before this member that this one decides
            return;
        }
        if (!from.equals(dispatcher)) {
            return; // a dispatcher of another membership (a split healing), or an old one
        }
        switch (r.type) {
            case Frames.PLACEMENTS -> onPlacements(r);
            case Frames.VIEW -> onView(r);
            case Frames.RESYNC -> {
                // the dispatcher may not know this replica's session yet; one SYNC per gap is enough
                if (r.session == session || clock.getAsLong() - lastSyncAt > Deadlines.millis(RESYNC_GAP_MILLIS)) {
                    sendSync();
                }
            }
            default -> { }
        }
    }

    /** A frame from the dispatcher could not be read: its state goes again. */
    @Override
    public void malformed(String from) {
        if (from.equals(dispatcher)) {
            sendSync();
        }
    }

    private void onPlacements(Frames.Reader r) {
        if (r.session != session) {
            return; // an answer to a session this replica has replaced with a SYNC
        }
        lastHeardAt = clock.getAsLong();
        if (r.seq != expectedAnswerSeq) {
            LOG.warn("router: answer {} from the dispatcher, expected {}; sending this replica's state", r.seq,
                    expectedAnswerSeq);
            sendSync();
            return;
        }
        expectedAnswerSeq++;
        int stepsRun = r.getInt();
        long step = r.getLong();
        int depth = r.getInt();
        int n = r.getCount(12);
        LongMap<InFlight> own = host.ownRequests();
        List<Placement> placements = stepsRun > 0 ? new ArrayList<>() : null;
        WorkerLayout layout = host.marks().layout();
        for (int i = 0; i < n; i++) {
            long id = r.getLong();
            int worker = r.getInt();
            String workerId = r.getString();
            InFlight f = own.get(id);
            if (f == null || f.workerId != null) {
                continue; // ended meanwhile: its abort tells the dispatcher
            }
            if (worker == Frames.REFUSED) {
                own.remove(id);
                f.placed.completeExceptionally(new IllegalArgumentException("the dispatcher " + dispatcher
                        + " refused request " + id + " (a duplicate id, or its policy failed; see its log)"));
                continue;
            }
            // the dispatcher's index; this replica's own for that worker where its layout differs
            int mine = layout == null ? -1 : layout.indexOf(workerId);
            f.workerId = workerId;
            f.worker = mine;
            f.retired = layout != null && mine < 0;
            Placement p = new Placement(id, mine >= 0 ? mine : worker, workerId);
            if (placements != null) {
                placements.add(p);
            }
            f.placed.complete(p);
        }
        for (int i = 0; i < stepsRun; i++) {
            CompletableFuture<StepResult> a = stepAnswers.poll();
            if (a != null) {
                a.complete(new StepResult(step, host.activePolicy(), i == 0 ? placements : List.of(), depth));
            }
        }
    }

    private void onView(Frames.Reader r) {
        long now = clock.getAsLong();
        lastHeardAt = now;
        SharedView v = SharedView.read(r, dispatcher, now);
        view = v;
        learnDrains(v);
        host.viewed(v);
        if (r.oldestSeenNanos != 0) {
            host.staleness().record(now - r.oldestSeenNanos);
        }
    }

    /**
     * The drains the view shows, if it numbers the workers as this replica's layout does, with the
     * asks it does not show yet; the asks it shows are done.
     */
    private void learnDrains(SharedView v) {
        WorkerLayout layout = host.marks().layout();
        boolean[] shown = v.totals().draining();
        if (layout == null || v.layoutFingerprint() != layout.fingerprint() || shown.length != layout.workers()) {
            return;
        }
        pendingDrains.entrySet().removeIf(e -> {
            int g = layout.indexOf(e.getKey());
            return g < 0 || shown[g] == e.getValue();
        });
        Set<String> drains = host.marks().drains();
        drains.clear();
        for (int g = 0; g < shown.length; g++) {
            if (shown[g]) {
                drains.add(layout.id(g));
            }
        }
        pendingDrains.forEach((id, draining) -> {
            if (draining) {
                drains.add(id);
            } else {
                drains.remove(id);
            }
        });
    }
}
