package org.balanceroute.router.internal;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.function.LongSupplier;
import org.balanceroute.router.Placement;
import org.balanceroute.router.StepResult;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What a follower does in a cluster of proxies: tells its dispatcher its own requests' events
 * (batched in a {@link FollowerOutbox}: tokens at most every {@value DispatchLoop#FLUSH_MILLIS}
 * ms, anything else at once), hands its whole state over with a SYNC (a new session) whenever the
 * dispatcher may not have it, completes the placement futures with the dispatcher's answers, and
 * keeps the dispatcher's latest view. Owned by the dispatch thread; {@link #view()} is read by any.
 *
 * <p>Drains asked of this replica go to the dispatcher, which owns them; each is kept as asked
 * until a view shows it, and every SYNC carries those again (see {@link DispatchLoop}'s class
 * comment): a drain sent to a dispatcher that died, or in a lost frame, is not lost.
 */
final class Following {

    private static final Logger LOG = LoggerFactory.getLogger(Following.class);

    private final DispatchLoop loop;
    private final LongSupplier clock;
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

    Following(DispatchLoop loop, LongSupplier clock) {
        this.loop = loop;
        this.clock = clock;
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

    /** This replica's layout changed: the drains asked for workers it no longer has are dropped. */
    void layoutChanged(WorkerLayout layout) {
        pendingDrains.keySet().removeIf(id -> layout.indexOf(id) < 0);
    }

    // ------------------------------------------------------------------ this replica's events

    void submit(InFlight f) {
        outbox.submit(f, clock.getAsLong());
    }

    void tokens(InFlight f, int count, long at) {
        outbox.tokens(f, count, at);
    }

    void complete(InFlight f) {
        outbox.complete(f, clock.getAsLong());
    }

    void abort(InFlight f) {
        outbox.abort(f, clock.getAsLong());
    }

    void mark(String worker, boolean up) {
        outbox.mark(worker, up, clock.getAsLong());
    }

    /** An operator's drain asked of this replica: to the dispatcher, and kept until a view shows it. */
    void drain(String worker, boolean draining) {
        pendingDrains.put(worker, draining);
        outbox.drain(worker, draining, clock.getAsLong());
    }

    /** The proxy wants a dispatch step: the dispatcher is asked for one. */
    void askStep() {
        outbox.flag(Frames.F_STEP, clock.getAsLong());
    }

    /** A caller waits for a dispatch step (RouterService.dispatchStep): the dispatcher runs one and answers. */
    void askStep(CompletableFuture<StepResult> answer) {
        stepAnswers.add(answer);
        outbox.flag(Frames.F_STEP_ANSWER, clock.getAsLong());
    }

    // ------------------------------------------------------------------ timers

    /** Nanoseconds until something is due: 0 now. */
    long untilDue(long now) {
        if (outbox.urgent()) {
            return 0;
        }
        long wait = Long.MAX_VALUE;
        if (!outbox.isEmpty()) {
            wait = Deadlines.until(now, outbox.since() + Deadlines.millis(DispatchLoop.FLUSH_MILLIS));
        }
        wait = Math.min(wait, Deadlines.until(now, lastSentAt + Deadlines.millis(DispatchLoop.KEEPALIVE_MILLIS)));
        return Math.min(wait, Deadlines.until(now, silentSince() + Deadlines.millis(DispatchLoop.DISPATCHER_SILENCE_MILLIS)));
    }

    void runTimers(long now) {
        if (outbox.urgent() || (!outbox.isEmpty() && Deadlines.due(now, outbox.since()
                + Deadlines.millis(DispatchLoop.FLUSH_MILLIS)))
                || Deadlines.due(now, lastSentAt + Deadlines.millis(DispatchLoop.KEEPALIVE_MILLIS))) {
            outbox.writeFrame(frame, session, seq++, now);
            loop.send(dispatcher, frame.toBytes());
            lastSentAt = now;
        }
        if (Deadlines.due(now, silentSince() + Deadlines.millis(DispatchLoop.DISPATCHER_SILENCE_MILLIS))) {
            LOG.warn("router: nothing from the dispatcher {} for {} ms; sending this replica's state again", dispatcher,
                    DispatchLoop.DISPATCHER_SILENCE_MILLIS);
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
        WorkerLayout layout = loop.marks().layout();
        if (layout == null) {
            frame.putByte(0);
        } else {
            layout.write(frame.putByte(1));
        }
        Set<String> down = loop.marks().ownDown();
        frame.putInt(down.size());
        down.forEach(frame::putString);
        frame.putInt(pendingDrains.size());
        pendingDrains.forEach((id, draining) -> frame.putString(id).putByte(draining ? 1 : 0));
        LongMap<InFlight> own = loop.ownRequests();
        frame.putInt(own.size());
        own.forEachValue(f -> frame.putLong(f.id).putInt(f.promptTokens).putLong(f.promptKey).putInt(f.bodyBytes)
                .putLong(now - f.arrivalNanos).putString(f.workerId == null ? "" : f.workerId).putInt(f.decoded));
        loop.send(dispatcher, frame.toBytes());
        lastSyncAt = now;
        lastSentAt = now;
        answerSteps();
    }

    /** An empty SYNC: the dispatcher releases what it held for this replica, which routes alone from now on. */
    void sendLeave() {
        long now = clock.getAsLong();
        frame.begin(Frames.SYNC, ++session, 0, now, 0).putByte(0).putByte(0).putInt(0).putInt(0).putInt(0);
        loop.send(dispatcher, frame.toBytes());
    }

    /** The waiting dispatchStep() callers get an empty answer (their dispatcher changed). */
    private void answerSteps() {
        for (CompletableFuture<StepResult> a; (a = stepAnswers.poll()) != null; ) {
            a.complete(new StepResult(-1, loop.activePolicy(), List.of(), loop.poolDepth()));
        }
    }

    /** Fails whoever still waits for a step (the router stopped). */
    void failSteps(RuntimeException cause) {
        stepAnswers.forEach(a -> a.completeExceptionally(cause));
        stepAnswers.clear();
    }

    // ------------------------------------------------------------------ frames from the dispatcher

    void onFrame(String from, Frames.Reader r) {
        if (!from.equals(dispatcher)) {
            return; // a dispatcher of another membership (a split healing), or an old one
        }
        switch (r.type) {
            case Frames.PLACEMENTS -> onPlacements(r);
            case Frames.VIEW -> onView(r);
            case Frames.RESYNC -> {
                // the dispatcher may not know this replica's session yet; one SYNC per gap is enough
                if (r.session == session || clock.getAsLong() - lastSyncAt > Deadlines.millis(DispatchLoop.RESYNC_GAP_MILLIS)) {
                    sendSync();
                }
            }
            default -> { }
        }
    }

    /** A frame from the dispatcher could not be read: its state goes again. */
    void onMalformed(String from) {
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
        LongMap<InFlight> own = loop.ownRequests();
        List<Placement> placements = stepsRun > 0 ? new ArrayList<>() : null;
        WorkerLayout layout = loop.marks().layout();
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
                a.complete(new StepResult(step, loop.activePolicy(), i == 0 ? placements : List.of(), depth));
            }
        }
    }

    private void onView(Frames.Reader r) {
        long now = clock.getAsLong();
        lastHeardAt = now;
        SharedView v = SharedView.read(r, dispatcher, now);
        view = v;
        learnDrains(v);
        loop.viewed(v);
        if (r.oldestSeenNanos != 0) {
            loop.staleness().record(now - r.oldestSeenNanos);
        }
    }

    /**
     * The drains the view shows, if it numbers the workers as this replica's layout does, with the
     * asks it does not show yet; the asks it shows are done.
     */
    private void learnDrains(SharedView v) {
        WorkerLayout layout = loop.marks().layout();
        boolean[] shown = v.totals().draining();
        if (layout == null || v.layoutFingerprint() != layout.fingerprint() || shown.length != layout.workers()) {
            return;
        }
        pendingDrains.entrySet().removeIf(e -> {
            int g = layout.indexOf(e.getKey());
            return g < 0 || shown[g] == e.getValue();
        });
        Set<String> drains = loop.marks().drains();
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
