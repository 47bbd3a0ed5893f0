package org.balanceroute.router.internal;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import org.balanceroute.api.BarrierFigures;
import org.balanceroute.api.CompletionListener;
import org.balanceroute.api.PoolSnapshot;
import org.balanceroute.api.RoutingPolicy;
import org.balanceroute.core.DecodeLayout;
import org.balanceroute.core.PoolState;
import org.balanceroute.core.PromptPool;
import org.balanceroute.core.Router;
import org.balanceroute.core.TrackedRequest;
import org.balanceroute.router.DispatchObserver;
import org.balanceroute.router.Placement;
import org.balanceroute.router.ReplicaShare;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The deciding core: a core {@link Router} over a {@link PoolState} of the layout in force,
 * with the records of the requests in it (own and, on the dispatcher, the other replicas'), those
 * aside on removed workers ({@link #retired}), and the marks applied to its workers. Replaced
 * whole by a new layout or a new role; the step index goes on. A follower keeps an empty one
 * under the hold policy. Owned by the dispatch thread.
 */
final class Core {

    // the router's lines keep the logger name operators filter on
    private static final Logger LOG = LoggerFactory.getLogger(DispatchLoop.class);

    /** Who shows the core to the other replicas: the dispatcher's bookkeeping, told in every role. */
    interface Watcher {
        /** The core changed: a view is due. */
        void changed();

        /** Tokens seen at {@code at} reached the core: the next view carries them. */
        void seen(long at);

        /** Another replica's request was placed: its answer is due. */
        void placed(Origin o, long id, int worker, String workerId);

        /** Whether another replica's health checks mark the worker down. */
        boolean markedDownElsewhere(String workerId);
    }

    /** Own requests taken over by a new core: how many went on workers, and how many aside. */
    record Adopted(int onWorkers, int aside) {
    }

    private final WorkerMarks marks;
    private final StepTimer steps;
    private final RoutingPolicy hold;
    private final List<CompletionListener> listeners;
    private final Watcher watcher;

    private PoolState state;
    private Router router;
    /** Requests on workers the layout no longer has (own and, on the dispatcher, other replicas'), by core key. */
    private final LongMap<InFlight> retired = new LongMap<>();
    /** Every request in the core (own and, on the dispatcher, the other replicas'), by core key. */
    private final LongMap<InFlight> byCore = new LongMap<>();
    /** Dispatch steps run by the cores replaced so far: the step index goes on across a new core. */
    private long stepBase;
    /** Counts placements: a worker's FCFS order when its requests move to a new core. */
    private long placeSeq;
    private long coreSeq;
    private TrackedRequest[] poolCopy = new TrackedRequest[64];
    /** Each group's barrier after a step, for the observer; reused step after step. */
    private final BarrierFigures barrier = new BarrierFigures();

    Core(WorkerMarks marks, StepTimer steps, RoutingPolicy hold, CompletionListener listener, Watcher watcher) {
        this.marks = marks;
        this.steps = steps;
        this.hold = hold;
        this.listeners = List.of(listener);
        this.watcher = watcher;
        renew(hold);
    }

    /** The step index: the dispatch steps run so far, over every core this router had. */
    long step() {
        return stepBase + state.step();
    }

    int poolSize() {
        return router.pool().size();
    }

    RoutingPolicy policy() {
        return router.policy();
    }

    // ------------------------------------------------------------------ requests

    void submit(InFlight f) {
        keyInCore(f);
        TrackedRequest t = f.newCore();
        try {
            router.submit(t);
        } catch (RuntimeException e) {
            byCore.remove(f.coreKey);
            f.core = null;
            throw e;
        }
        if (t.phase() != TrackedRequest.Phase.POOLED) {
            placed(f, null);
        }
        watcher.changed();
    }

    /** Another replica's request, already on a worker, into the core (a SYNC): where it is, with its tokens. */
    void restore(InFlight f, int worker, int decoded) {
        keyInCore(f);
        restoreKeyed(f, worker, decoded);
        watcher.changed();
    }

    /** Another replica's request, on a worker this layout does not have (a SYNC): kept aside until it ends. */
    void retired(InFlight f, String workerId) {
        keyInCore(f);
        f.workerId = workerId;
        retire(f);
    }

    void tokens(InFlight f, int count, long at) {
        TrackedRequest t = f.core;
        if (t == null) {
            return;
        }
        if (!onWorker(t)) {
            LOG.warn("tokens for request {}, which is {} and not on a worker; ignored", f.id, t.phase());
            return;
        }
        router.onTokens(t, count);
        steps.observe(f, count, at);
        watcher.seen(at);
    }

    void complete(InFlight f) {
        if (f.retired) {
            abort(f); // its tokens were not counted: nothing to learn
            return;
        }
        byCore.remove(f.coreKey);
        if (f.core != null) {
            router.complete(f.core);
        }
        watcher.changed();
    }

    void abort(InFlight f) {
        if (f.retired) {
            retired.remove(f.coreKey);
            return;
        }
        byCore.remove(f.coreKey);
        if (f.core != null) {
            router.abort(f.core);
        }
        watcher.changed();
    }

    static boolean onWorker(TrackedRequest r) {
        return r.phase() == TrackedRequest.Phase.RUNNING || r.phase() == TrackedRequest.Phase.QUEUED;
    }

    /** A request keyed in the core onto worker g of the current core, as it was: running or queued, with its tokens. */
    private void restoreKeyed(InFlight f, int g, int decoded) {
        router.restore(f.newCore(), g, decoded);
        f.workerId = marks.id(g);
        f.retired = false;
        f.placedSeq = ++placeSeq;
    }

    /** Out of the core into the side table: its worker left the layout (see DispatchLoop's class comment). */
    private void retire(InFlight f) {
        byCore.remove(f.coreKey);
        f.core = null;
        f.retired = true;
        retired.putIfAbsent(f.coreKey, f);
    }

    /**
     * Gives a request its key in the core, unique over every origin: an own request keeps its
     * caller's id (what predictors and reports see), another replica's gets a negative one.
     */
    private void keyInCore(InFlight f) {
        if (f.origin == null && byCore.putIfAbsent(f.id, f)) {
            f.coreKey = f.id;
            return;
        }
        do {
            f.coreKey = --coreSeq;
        } while (!byCore.putIfAbsent(f.coreKey, f));
    }

    /** Tells whoever waits for the request's placement: its future, or its replica's next answer. */
    private void placed(InFlight f, List<Placement> report) {
        int g = f.core.worker();
        f.workerId = marks.id(g);
        f.placedSeq = ++placeSeq;
        Placement p = new Placement(f.id, g, f.workerId);
        if (report != null) {
            report.add(p);
        }
        if (f.origin == null) {
            f.placed.complete(p);
        } else {
            watcher.placed(f.origin, f.id, g, f.workerId);
        }
    }

    // ------------------------------------------------------------------ steps and policies

    /** A dispatch step; the placements it made go into {@code placements} unless it is null. */
    void dispatch(List<Placement> placements) {
        int n = copyPool();
        try {
            router.dispatch();
        } finally {
            notifyPlaced(n, placements);
            state.advanceStep();
        }
    }

    /** The policy of the core from now on; what it places at once (an arrival policy takes the pool over) is told. */
    void switchPolicy(RoutingPolicy next) {
        int n = copyPool();
        try {
            router.setPolicy(next);
        } finally {
            notifyPlaced(n, null);
        }
    }

    /** Copies the pool's requests, so that those a step or a switch places can be found after. */
    private int copyPool() {
        PromptPool pool = router.pool();
        int n = pool.size();
        if (poolCopy.length < n) {
            poolCopy = new TrackedRequest[Math.max(n, poolCopy.length * 2)];
        }
        for (int i = 0; i < n; i++) {
            poolCopy[i] = pool.get(i);
        }
        return n;
    }

    /** Tells the waiters of the copied requests that left the pool. */
    private void notifyPlaced(int n, List<Placement> placements) {
        for (int i = 0; i < n; i++) {
            TrackedRequest r = poolCopy[i];
            poolCopy[i] = null;
            if (r.phase() != TrackedRequest.Phase.POOLED && r.worker() >= 0) {
                InFlight f = byCore.get(r.id());
                if (f != null && f.core == r) {
                    placed(f, placements);
                }
            }
        }
        if (n > 0) {
            watcher.changed();
        }
        if (placements != null && placements.size() > 1) {
            // the order of the policy's assignments is not kept: report by worker, then id
            placements.sort((a, b) -> a.worker() != b.worker() ? Integer.compare(a.worker(), b.worker())
                    : Long.compare(a.requestId(), b.requestId()));
        }
    }

    /**
     * Tells the observer about a step: each group's barrier (its workers not draining), the pool's
     * imbalance their sum. O(workers), no allocation (but when the layout changes); its failures are
     * logged and ignored.
     */
    void observeStep(DispatchObserver o, long durationNanos, int depth) {
        if (marks.workers() == 0) {
            barrier.reset(state.groups());
        } else {
            state.measureBarrier(barrier);
        }
        try {
            o.stepCompleted(durationNanos, depth, barrier);
        } catch (RuntimeException e) {
            LOG.warn("router: the dispatch observer failed: {}", e.toString());
        }
    }

    // ------------------------------------------------------------------ what it shows

    /** The core's snapshot (no worker, B 0, before the first layout), with the step index that goes on across cores. */
    PoolSnapshot snapshot(String source, long now) {
        if (marks.workers() == 0) {
            return new PoolSnapshot(source, step(), now, 0, new long[0],
                    new int[0], new int[0], router.pool().size(), new boolean[0]);
        }
        PoolSnapshot s = state.snapshot(source, now, router.pool().size());
        return stepBase == 0 ? s : new PoolSnapshot(s.source(), step(), s.capturedNanos(), s.capacity(), s.loads(),
                s.running(), s.queued(), s.poolDepth(), s.available(), s.groups(), s.capacities(), s.draining());
    }

    /** One member's share of the core: its requests (none: null) per worker, and those waiting. */
    ReplicaShare share(String member, String address, boolean dispatcher, LongMap<InFlight> requests) {
        int g = marks.workers();
        long[] loads = new long[g];
        int[] running = new int[g];
        int[] queued = new int[g];
        int[] pooled = new int[1];
        if (requests != null) {
            requests.forEachValue(f -> {
                TrackedRequest t = f.core;
                if (t == null) {
                    return;
                }
                switch (t.phase()) {
                    case POOLED -> pooled[0]++;
                    case RUNNING -> {
                        loads[t.worker()] += t.kvLoad();
                        running[t.worker()]++;
                    }
                    case QUEUED -> queued[t.worker()]++;
                    default -> { }
                }
            });
        }
        return new ReplicaShare(member, address, dispatcher, pooled[0], loads, running, queued);
    }

    // ------------------------------------------------------------------ marks

    /** Worker g takes requests unless this replica or any other one marks it down. */
    void applyAvailability(int g) {
        String id = marks.id(g);
        boolean up = !marks.isDown(id) && !watcher.markedDownElsewhere(id);
        if (router.setWorkerAvailable(g, up)) {
            LOG.info("router: worker {} {}", g, up ? "is back in routing" : "is out of routing");
            watcher.changed();
            if (up && router.pool().size() > 0) {
                // requests that waited while every worker was down (or for a free slot): a step
                // places them now, not only after the next arrival or release
                steps.want();
            }
        }
    }

    /** Every worker's availability, again (the marks of a replica came or went). */
    void applyAvailability() {
        for (int g = 0; g < marks.workers(); g++) {
            applyAvailability(g);
        }
    }

    /** Worker g's availability, by identity, if this layout has it (another replica's mark). */
    void applyAvailability(String workerId) {
        int g = marks.indexOf(workerId);
        if (g >= 0) {
            applyAvailability(g);
        }
    }

    /**
     * Starts or ends the drain of a worker, by identity (alone, dispatcher; a follower's ask
     * arrives here too): ignored if the layout does not have it.
     */
    void applyDrain(String workerId, boolean draining) {
        int g = marks.indexOf(workerId);
        if (g < 0) {
            LOG.debug("router: drain of worker {}, not in the layout; ignored", workerId);
            return;
        }
        if (draining) {
            marks.drains().add(workerId);
        } else {
            marks.drains().remove(workerId);
        }
        if (router.setWorkerDraining(g, draining)) {
            LOG.info("router: worker {} ({}) {}", g, workerId, draining ? "drains: no new requests" : "ends its drain");
            watcher.changed();
            if (!draining && router.pool().size() > 0) {
                steps.want(); // what waited for a free slot may go there now
            }
        }
    }

    /** Every worker's marks onto a new core: health (this replica's and the others') and drains, by identity. */
    private void applyMarks() {
        for (int g = 0; g < marks.workers(); g++) {
            String id = marks.id(g);
            router.setWorkerAvailable(g, !marks.isDown(id) && !watcher.markedDownElsewhere(id));
            router.setWorkerDraining(g, marks.isDraining(id));
        }
    }

    // ------------------------------------------------------------------ new cores

    /**
     * A new, empty core of the current layout (one placeholder worker until it is known); the step
     * index goes on from the old one's.
     */
    private void renew(RoutingPolicy policy) {
        if (state != null) {
            stepBase += state.step();
        }
        WorkerLayout layout = marks.layout();
        state = new PoolState(layout == null ? DecodeLayout.single(1, 1) : layout.decode());
        router = new Router(state, policy, listeners);
    }

    /** An empty core of the new layout with the marks, holding everything (a follower's: it decides nothing). */
    void relaidEmpty(WorkerLayout next) {
        renew(hold);
        applyMarks();
        LOG.info("router: the decode pool is now {}", next);
    }

    /** An empty core, the requests of the old one forgotten (this replica follows from now on; it hands them over). */
    void drop() {
        byCore.clear();
        retired.clear();
        renew(hold);
    }

    /**
     * A new core of this replica's own requests (it decides from now on), oldest first: on their
     * workers if this layout has them, aside if not, else waiting; with every worker's marks.
     */
    Adopted adopt(LongMap<InFlight> own) {
        byCore.clear();
        retired.clear();
        renew(hold);
        List<InFlight> ordered = new ArrayList<>();
        own.forEachValue(ordered::add);
        ordered.sort(Comparator.comparingLong(f -> f.arrivalNanos));
        applyMarks();
        int restored = 0;
        int aside = 0;
        for (InFlight f : ordered) {
            keyInCore(f);
            int g = f.workerId == null ? -1 : marks.indexOf(f.workerId);
            if (g >= 0) {
                restoreKeyed(f, g, f.decoded);
                restored++;
            } else if (f.workerId != null) {
                retire(f); // on a worker this layout does not have: it ends there
                aside++;
            } else {
                router.submit(f.newCore());
            }
        }
        return new Adopted(restored, aside);
    }

    /**
     * A core of the new layout with every request of the old one: on the worker of the same
     * identity (running first, then each queue in the order it was placed), else aside; then the
     * pool, oldest first, handed to the policy in force as a policy switch does.
     */
    void relaid(WorkerLayout before, WorkerLayout next) {
        List<InFlight> pooled = pooledInOrder();
        List<InFlight> onWorkers = new ArrayList<>();
        byCore.forEachValue(f -> {
            if (f.core != null && onWorker(f.core)) {
                onWorkers.add(f);
            }
        });
        onWorkers.sort(Comparator.comparingInt((InFlight f) -> f.core.phase() == TrackedRequest.Phase.RUNNING ? 0 : 1)
                .thenComparingLong(f -> f.placedSeq));
        String[] workerIds = new String[onWorkers.size()];
        int[] decoded = new int[onWorkers.size()];
        for (int i = 0; i < workerIds.length; i++) {
            TrackedRequest t = onWorkers.get(i).core;
            workerIds[i] = before.id(t.worker());
            decoded[i] = t.decodedTokens();
        }
        RoutingPolicy policy = router.policy();
        renew(hold);
        applyMarks();
        int kept = 0;
        for (int i = 0; i < workerIds.length; i++) {
            InFlight f = onWorkers.get(i);
            int g = next.indexOf(workerIds[i]);
            if (g >= 0) {
                restoreKeyed(f, g, decoded[i]);
                kept++;
            } else {
                f.workerId = workerIds[i];
                retire(f);
            }
        }
        for (InFlight f : pooled) {
            router.submit(f.newCore()); // the hold policy: into the pool, in order
        }
        switchPolicy(policy);
        LOG.info("router: the decode pool is now {}{}: {} request(s) kept on their workers, {} on removed workers"
                + " until they end, {} waiting", next, before == null ? "" : " (was " + before + ")", kept,
                workerIds.length - kept, pooled.size());
        if (router.pool().size() > 0) {
            steps.want(); // new workers, or more slots: the pool may go there now
        }
    }

    /** The core's waiting requests, oldest first. */
    private List<InFlight> pooledInOrder() {
        PromptPool pool = router.pool();
        List<InFlight> out = new ArrayList<>(pool.size());
        for (int i = 0; i < pool.size(); i++) {
            InFlight f = byCore.get(pool.get(i).id());
            if (f != null) {
                out.add(f);
            }
        }
        return out;
    }
}
