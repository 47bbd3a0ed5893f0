package org.balanceroute.router.internal;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.LinkedTransferQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.LongSupplier;
import java.util.function.Supplier;
import org.balanceroute.api.ClusterSnapshot;
import org.balanceroute.api.CompletionListener;
import org.balanceroute.api.RequestView;
import org.balanceroute.api.RoutingPolicy;
import org.balanceroute.api.SnapshotStore;
import org.balanceroute.api.TerminationPredictor;
import org.balanceroute.core.ClusterState;
import org.balanceroute.core.DecodeLayout;
import org.balanceroute.core.PromptPool;
import org.balanceroute.core.Router;
import org.balanceroute.core.TrackedRequest;
import org.balanceroute.router.ClusterStatus;
import org.balanceroute.router.DispatchObserver;
import org.balanceroute.router.Placement;
import org.balanceroute.router.ReplicaShare;
import org.balanceroute.router.StepResult;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The single dispatch thread and the state it owns: a core {@link Router} over a
 * {@link ClusterState}, the requests in flight, the active policy, and this replica's place in
 * a cluster of proxies. Other threads never touch that state: they enqueue commands on a
 * lock-free queue and, where they need an answer, wait on a {@link CompletableFuture} the
 * dispatch thread completes.
 *
 * <p><b>Roles.</b> Without a {@link SnapshotStore} the router is alone: its core holds its own
 * requests and decides (a cluster of one, the local snapshot). With one, the oldest member is the
 * <em>dispatcher</em>: its core holds every replica's requests, it runs the per-step batch over
 * the cluster-wide prompt pool with the same policies, sends each placement back to the replica
 * that asked, and broadcasts the cluster view. Every other member is a <em>follower</em>: it keeps
 * its own requests' records, tells the dispatcher their events in frames ({@link Frames}: tokens
 * summed per request, every {@value #FLUSH_MILLIS} ms at most; submissions and completions at once)
 * and serves {@link #snapshot()} from the last view. One decider, so replicas never fill the same
 * worker on a stale view (no thundering herd), and the single-writer core stays single-writer.
 *
 * <p><b>Repair.</b> A follower's frames are numbered within a session; the dispatcher applies
 * them in order and answers a gap (or an unknown session) with RESYNC. A SYNC carries the
 * follower's whole state and replaces what the dispatcher held for it: its requests waiting in the
 * pool, and those placed, on their workers with their tokens. A follower sends one when it
 * follows a new dispatcher (it joined; the old one left), when asked, and when the dispatcher has
 * been silent for {@value #DISPATCHER_SILENCE_MILLIS} ms. A new dispatcher rebuilds its core from
 * its own requests and the SYNCs (holding placements for up to {@value #SETTLE_MILLIS} ms until
 * every member has synced), so loads are re-derived from the replicas that own the requests, never
 * merged blindly; the same happens after a split cluster heals. A member that leaves takes its
 * requests with it: the dispatcher releases them at once.
 *
 * <p>Policy selection: {@link #offer} publishes the configured names and the registered
 * policies; the dispatch thread then picks configured, else fallback, else {@link HoldPolicy},
 * switching with {@link Router#setPolicy} (sticky placements, the pool handed to the new
 * policy) and logging once per transition. Until the layout is known ({@link #setLayout})
 * everything waits in the pool.
 *
 * <p><b>Layout.</b> A new layout ({@link #setLayout}: worker identities, instances, capacities)
 * applies at once, whatever is in flight: a new core of the new shape takes every request on a
 * worker that stays, on that worker's new index with its decoded tokens (those running first,
 * then the queues in the order they were placed), then the requests waiting in the pool, oldest
 * first. A request on a removed worker leaves the core for a side table ({@link #retired}): its
 * stream ends on that engine, its tokens are ignored, its completion or abort releases it. Health
 * marks and drains go by worker identity, so they follow a worker to its new index; those of a
 * removed worker are dropped. The step index goes on.
 *
 * <p><b>Drains.</b> An operator's drain ({@link #setWorkerDraining}) is cluster state owned by the
 * dispatcher, by worker identity, and shown to every replica in the view (per worker
 * {@code draining}). A follower forwards it ({@link Frames#K_DRAIN}) and keeps it as asked until
 * a view shows it; each replica keeps the drains of the last view it read (when that view numbers
 * the workers as its own layout does) plus its own asks not yet shown. So no drain is lost when
 * the dispatcher changes: the new dispatcher starts from the drains it knew as a follower, and
 * every follower's SYNC carries again the drains it asked for that no view has shown yet (sent to
 * a dispatcher that died, or in a lost frame). Two asks for one worker on different replicas at
 * once end as the dispatcher applies them last.
 */
final class DispatchLoop {

    /** Member id and address of a router with no shared store. */
    static final String SOURCE = "local";

    private static final Logger LOG = LoggerFactory.getLogger(DispatchLoop.class);
    private static final long ANSWER_TIMEOUT_SECONDS = 10;

    /** Longest a follower holds tokens before telling the dispatcher. */
    static final long FLUSH_MILLIS = 2;
    /** Shortest gap between two views the dispatcher broadcasts. */
    static final long VIEW_MILLIS = 5;
    /** A view (dispatcher) or an empty frame (follower) at least this often, so silence means trouble. */
    static final long KEEPALIVE_MILLIS = 1000;
    /** A follower that heard nothing from its dispatcher this long sends its state again. */
    static final long DISPATCHER_SILENCE_MILLIS = 3000;
    /** A new dispatcher holds placements this long at most, until every member has sent its state. */
    static final long SETTLE_MILLIS = 300;
    /** The dispatcher releases the requests of a replica it has not heard from this long. */
    static final long ORIGIN_TIMEOUT_MILLIS = 10_000;
    /** Shortest gap between two RESYNCs asked of one replica. */
    static final long RESYNC_GAP_MILLIS = 200;

    /** A unit of work for the dispatch thread; {@link #abandon} is told if it never runs. */
    @FunctionalInterface
    private interface Command {
        void run();

        default void abandon(RuntimeException cause) {
        }
    }

    /** A command whose result a caller waits for. */
    private static final class Call<T> implements Command {
        final CompletableFuture<T> future = new CompletableFuture<>();
        private final Supplier<T> body;

        Call(Supplier<T> body) {
            this.body = body;
        }

        @Override
        public void run() {
            try {
                future.complete(body.get());
            } catch (RuntimeException e) {
                future.completeExceptionally(e);
            }
        }

        @Override
        public void abandon(RuntimeException cause) {
            future.completeExceptionally(cause);
        }
    }

    private enum Role { ALONE, DISPATCHER, FOLLOWER }

    /** One open session with a snapshot store: its callbacks become commands, ignored once it is not current. */
    private final class Attachment implements SnapshotStore.Receiver {
        final SnapshotStore store;
        volatile SnapshotStore.Session session;

        Attachment(SnapshotStore store) {
            this.store = store;
        }

        @Override
        public void membersChanged(List<SnapshotStore.Member> members) {
            List<SnapshotStore.Member> copy = List.copyOf(members);
            enqueue(() -> {
                if (attachment == this) {
                    applyMembers(copy);
                }
            });
        }

        @Override
        public void received(String fromMember, byte[] frame) {
            enqueue(() -> {
                if (attachment == this) {
                    onFrame(fromMember, frame);
                }
            });
        }
    }

    private static final Command STOP = () -> { };

    /** Commands run at most before a due step runs anyway, so a flood of token reports cannot starve it. */
    private static final int MAX_COMMANDS_BEFORE_STEP = 256;

    private final LinkedTransferQueue<Command> commands = new LinkedTransferQueue<>();
    private final LongSupplier clock;
    private final Thread thread;
    private final AtomicBoolean reselectQueued = new AtomicBoolean();
    private final AtomicBoolean stepRequestQueued = new AtomicBoolean();
    private final Command stepRequest = this::onStepRequest;
    private final CompletionListener predictorFanout = this::teachPredictors;
    private final PolicyChoice policy;
    private final HoldPolicy hold;
    private final StepTimer steps;
    private final Map<SnapshotStore, Attachment> attachments = new HashMap<>(); // guarded by itself

    private volatile boolean stopped;
    private volatile boolean terminated;
    private volatile CompletionListener[] predictors = new CompletionListener[0];
    /** Told about every dispatch step (metrics); null when none is registered. */
    private volatile DispatchObserver observer;
    /** The cluster-wide pool's size after the last command, published by the dispatch thread for lock-free readers. */
    private volatile int poolDepth;

    // --- owned by the dispatch thread ---
    private ClusterState cluster;
    private Router router;
    /** The decode workers and their instances, from the topology; null until told. */
    private WorkerLayout layout;
    /** G, the layout's workers; 0 until told. */
    private int workers;
    /** This replica's own health marks: the workers it marked down, by identity. */
    private final Set<String> ownDown = new HashSet<>();
    /**
     * The operators' drains, by worker identity: those in force (alone, dispatcher), or the last
     * view's with this replica's own asks not shown yet (follower; what it starts from if it comes
     * to dispatch).
     */
    private final Set<String> drains = new HashSet<>();
    /** Requests on workers the layout no longer has (own and, on the dispatcher, other replicas'), by core key. */
    private final LongMap<InFlight> retired = new LongMap<>();
    /** Dispatch steps run by the cores replaced so far: the step index goes on across a new core. */
    private long stepBase;
    /** Counts placements: a worker's FCFS order when its requests move to a new core. */
    private long placeSeq;
    /** Each group's imbalance after a step, for the observer; reused step after step. */
    private long[] groupImbalances = new long[1];
    /** This replica's own requests, by the ids its callers gave them. */
    private final LongMap<InFlight> local = new LongMap<>();
    /** Every request in the core (own and, on the dispatcher, the other replicas'), by core key. */
    private final LongMap<InFlight> byCore = new LongMap<>();
    private long coreSeq;
    private TrackedRequest[] poolCopy = new TrackedRequest[64];

    // --- membership (dispatch thread)
    private Attachment attachment;
    private Role role = Role.ALONE;
    private String storeName = ClusterStatus.LOCAL;
    private String localMember = SOURCE;
    private List<SnapshotStore.Member> members = List.of(new SnapshotStore.Member(SOURCE, SOURCE));
    private String dispatcherId = SOURCE;
    private final StalenessSamples staleness = new StalenessSamples();
    private final Dispatching dispatching;
    private final Following following;

    DispatchLoop(RouterSettings settings, LongSupplier clock) {
        this.policy = new PolicyChoice(Objects.requireNonNull(settings, "settings"));
        this.clock = Objects.requireNonNull(clock, "clock");
        this.hold = policy.hold();
        this.steps = new StepTimer(settings, clock);
        newCore(hold);
        this.dispatching = new Dispatching(this, clock);
        this.following = new Following(this, clock);
        this.thread = new Thread(this::run, "balanceroute-dispatch");
        this.thread.setDaemon(true);
    }

    /**
     * Selects the policy among those offered so far (on the calling thread: the dispatch thread
     * does not run yet, and starting it publishes that state to it), then starts the dispatch
     * thread; commands enqueued before are applied first, in order.
     */
    void start() {
        applySelection();
        thread.start();
    }

    /** Stops the dispatch thread; requests in flight fail their pending futures. */
    void stop() {
        stopped = true;
        commands.add(STOP);
        try {
            thread.join(TimeUnit.SECONDS.toMillis(ANSWER_TIMEOUT_SECONDS));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        if (thread.isAlive()) {
            LOG.warn("the dispatch thread did not stop within {} s", ANSWER_TIMEOUT_SECONDS);
            thread.interrupt();
        }
        List<Attachment> open;
        synchronized (attachments) {
            open = new ArrayList<>(attachments.values());
            attachments.clear();
        }
        for (Attachment a : open) {
            closeQuietly(a);
        }
    }

    // ------------------------------------------------------------------ inputs from other threads

    /** New configuration (already validated); applied by the dispatch thread. */
    void configure(RouterSettings next) {
        policy.settings(Objects.requireNonNull(next, "settings"));
        enqueue(this::applySettings);
        reselect();
    }

    /** The registered policies changed. */
    void offer(Map<String, RoutingPolicy> policies) {
        policy.offer(policies);
        reselect();
    }

    /** The registered predictors (and other completion listeners) changed; the next completion is taught to these. */
    void predictors(List<? extends CompletionListener> next) {
        predictors = next.toArray(new CompletionListener[0]);
    }

    /**
     * The decode workers (identities, in router order), the instances they form and each one's B,
     * from the topology; validated here, in force at the next command (see the class comment).
     *
     * @throws IllegalArgumentException as {@link WorkerLayout#of} says
     */
    void setLayout(List<String> workerIds, int[] groupSizes, int[] capacities) {
        WorkerLayout next = WorkerLayout.of(workerIds, groupSizes, capacities);
        enqueue(() -> applyLayout(next));
    }

    /** An operator's drain of the worker at {@code worker} in the layout in force when the command runs. */
    void setWorkerDraining(int worker, boolean draining) {
        enqueue(() -> {
            if (worker < 0 || worker >= workers) {
                LOG.debug("router: drain of worker {}, outside [0, {}); ignored", worker, workers);
                return;
            }
            String id = layout.id(worker);
            if (role == Role.FOLLOWER) {
                if (draining ? drains.add(id) : drains.remove(id)) {
                    LOG.info("router: worker {} ({}) {}; the dispatcher is told", worker, id,
                            draining ? "drains" : "ends its drain");
                }
                following.drain(id, draining);
            } else {
                applyDrain(id, draining);
            }
        });
    }

    /**
     * Joins the membership of a shared store (bound by the framework): opens a session on the
     * calling thread (it may take a network round trip), then moves the router to it.
     */
    void attach(SnapshotStore store) {
        Attachment a = new Attachment(store);
        SnapshotStore.Session s;
        try {
            s = store.open(a);
        } catch (RuntimeException e) {
            LOG.error("router: cannot join the {} snapshot store: {}; staying on the local snapshot", safeName(store),
                    e.toString());
            return;
        }
        a.session = s;
        synchronized (attachments) {
            attachments.put(store, a);
        }
        enqueue(() -> attached(a));
    }

    /**
     * Leaves a store (unbound): back to the local snapshot (a follower first tells the dispatcher
     * it holds nothing for it any more), then closes the session.
     */
    void detach(SnapshotStore store) {
        Attachment a;
        synchronized (attachments) {
            a = attachments.remove(store);
        }
        if (a == null) {
            return;
        }
        try {
            call(() -> {
                detached(a);
                return null;
            }).get(ANSWER_TIMEOUT_SECONDS, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (ExecutionException | TimeoutException e) {
            LOG.warn("router: leaving the {} snapshot store: {}", safeName(store), e.toString());
        }
        closeQuietly(a);
    }

    String activePolicy() {
        return policy.active();
    }

    int poolDepth() {
        return poolDepth;
    }

    RouterSettings settings() {
        return policy.settings();
    }

    CompletableFuture<Placement> submit(long requestId, int promptTokens, long promptKey, int bodyBytes) {
        InFlight f = new InFlight(requestId, promptTokens, promptKey, bodyBytes, clock.getAsLong(), null);
        enqueue(new Command() {
            @Override
            public void run() {
                doSubmit(f);
            }

            @Override
            public void abandon(RuntimeException cause) {
                f.placed.completeExceptionally(cause);
            }
        });
        return f.placed;
    }

    void tokens(long requestId, int count) {
        if (count < 1) {
            throw new IllegalArgumentException("count must be >= 1, got " + count);
        }
        long at = clock.getAsLong(); // when the chunk was seen, not when the dispatch thread gets to it
        enqueue(() -> doTokens(requestId, count, at));
    }

    CompletableFuture<Boolean> complete(long requestId) {
        return call(() -> doComplete(requestId));
    }

    CompletableFuture<Boolean> abort(long requestId) {
        return call(() -> doAbort(requestId));
    }

    /** Runs a dispatch step now; on a follower, asks the dispatcher for one and completes with its answer. */
    CompletableFuture<StepResult> dispatchStep() {
        CompletableFuture<StepResult> answer = new CompletableFuture<>();
        enqueue(new Command() {
            @Override
            public void run() {
                if (role == Role.FOLLOWER) {
                    following.askStep(answer);
                } else {
                    try {
                        answer.complete(doStep(true));
                    } catch (RuntimeException e) {
                        answer.completeExceptionally(e);
                    }
                }
            }

            @Override
            public void abandon(RuntimeException cause) {
                answer.completeExceptionally(cause);
            }
        });
        return answer;
    }

    /**
     * Asks for a dispatch step at the next decode step boundary; requests made before it runs
     * coalesce into that one step. Any thread, no allocation.
     */
    void requestStep() {
        if (stepRequestQueued.compareAndSet(false, true)) {
            enqueue(stepRequest);
        }
    }

    long observedStepNanos() {
        return steps.observedStepNanos();
    }

    /** A step request reaches the dispatch thread: a step here, or the dispatcher is asked for one. */
    private void onStepRequest() {
        stepRequestQueued.set(false);
        if (role == Role.FOLLOWER) {
            following.askStep();
        } else {
            steps.want();
        }
    }

    /**
     * The cluster as this router sees it: its core between two commands (alone, dispatcher), or
     * the dispatcher's last view (follower; answered without the dispatch thread). Blocks for
     * the dispatch thread's answer otherwise; answers directly when called on it.
     */
    ClusterSnapshot snapshot() {
        SharedView v = following.view();
        if (v != null) {
            return v.totals();
        }
        return answer(this::takeSnapshot, "snapshot");
    }

    /** The membership, each member's share and the view's staleness. Blocks like {@link #snapshot()}. */
    ClusterStatus clusterStatus() {
        return answer(this::takeStatus, "cluster status");
    }

    private <T> T answer(Supplier<T> body, String what) {
        if (Thread.currentThread() == thread) {
            return body.get();
        }
        try {
            return call(body).get(ANSWER_TIMEOUT_SECONDS, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while waiting for the dispatch thread", e);
        } catch (ExecutionException e) {
            throw new IllegalStateException(what + " failed: " + e.getCause(), e.getCause());
        } catch (TimeoutException e) {
            throw new IllegalStateException("the dispatch thread did not answer within "
                    + ANSWER_TIMEOUT_SECONDS + " s", e);
        }
    }

    private <T> CompletableFuture<T> call(Supplier<T> body) {
        Call<T> c = new Call<>(body);
        enqueue(c);
        return c.future;
    }

    private void reselect() {
        if (reselectQueued.compareAndSet(false, true)) {
            enqueue(() -> {
                reselectQueued.set(false);
                applySelection();
            });
        }
    }

    private void enqueue(Command c) {
        if (stopped) {
            c.abandon(new IllegalStateException("the router is stopped"));
            return;
        }
        commands.add(c);
        if (terminated) {
            drainAbandoned(); // the loop ended between the check and the add
        }
    }

    // ------------------------------------------------------------------ the dispatch thread

    /**
     * The loop: commands in order; timers (a dispatch step, frames to send, a view to broadcast)
     * when one is due. A due timer first lets the commands already queued run (up to
     * {@link #MAX_COMMANDS_BEFORE_STEP}), so the completions that arrived together at the end of
     * a decode step free their slots in the same dispatch step, and events batch into one frame.
     */
    private void run() {
        try {
            int sinceDue = 0;
            while (true) {
                long wait = untilDue();
                Command c;
                if (wait == 0) {
                    c = sinceDue < MAX_COMMANDS_BEFORE_STEP ? commands.poll() : null;
                    if (c == null) {
                        sinceDue = 0;
                        runTimers();
                        publishPoolDepth();
                        continue;
                    }
                    sinceDue++;
                } else if (wait < 0) {
                    c = commands.take();
                } else {
                    c = commands.poll(wait, TimeUnit.NANOSECONDS);
                }
                if (c == STOP) {
                    break;
                }
                if (c != null) {
                    runSafely(c);
                    publishPoolDepth();
                }
            }
        } catch (InterruptedException e) {
            LOG.debug("dispatch thread interrupted", e);
        } finally {
            terminated = true;
            IllegalStateException stoppedCause = new IllegalStateException("the router is stopped");
            drainAbandoned();
            local.forEachValue(r -> r.placed.completeExceptionally(stoppedCause));
            local.clear();
            following.failSteps(stoppedCause);
        }
    }

    private void publishPoolDepth() {
        if (role != Role.FOLLOWER) {
            poolDepth = router.pool().size();
        }
    }

    /** Nanoseconds until the next timer is due: 0 now, -1 none. */
    private long untilDue() {
        long now = clock.getAsLong();
        if (role == Role.FOLLOWER) {
            return following.untilDue(now);
        }
        long wait = steps.untilDue(now);
        if (role == Role.DISPATCHER) {
            wait = Math.min(wait, dispatching.untilDue(now));
        }
        return wait == Long.MAX_VALUE ? -1 : wait;
    }

    private void runTimers() {
        long now = clock.getAsLong();
        if (role == Role.FOLLOWER) {
            runSafely(() -> following.runTimers(now));
            return;
        }
        if (role == Role.DISPATCHER) {
            runSafely(() -> dispatching.runTimersBeforeStep(now));
        }
        if (steps.due(now)) {
            runSafely(this::scheduledStep);
        }
        if (role == Role.DISPATCHER) {
            runSafely(() -> dispatching.runTimersAfterStep(now));
        }
    }

    private void scheduledStep() {
        steps.taking();
        doStep(false);
    }

    private void drainAbandoned() {
        IllegalStateException cause = new IllegalStateException("the router is stopped");
        for (Command c; (c = commands.poll()) != null; ) {
            c.abandon(cause);
        }
    }

    private static void runSafely(Command c) {
        try {
            c.run();
        } catch (RuntimeException | LinkageError e) {
            // A faulty policy or predictor, or a bad frame, must not kill the loop.
            LOG.error("dispatch thread: command failed", e);
        }
    }

    // ------------------------------------------------------------------ own requests

    private void doSubmit(InFlight f) {
        if (!local.putIfAbsent(f.id, f)) {
            f.placed.completeExceptionally(new IllegalArgumentException("request " + f.id + " is already in flight"));
            return;
        }
        if (role == Role.FOLLOWER) {
            following.submit(f);
            return;
        }
        try {
            coreSubmit(f);
        } catch (RuntimeException e) {
            local.remove(f.id);
            f.placed.completeExceptionally(e);
        }
    }

    private void doTokens(long id, int count, long at) {
        InFlight f = local.get(id);
        if (f == null) {
            LOG.debug("tokens for request {}, which is not in flight", id);
            return;
        }
        if (role == Role.FOLLOWER) {
            if (f.workerId == null) {
                LOG.warn("tokens for request {}, which has no worker yet; ignored", id);
                return;
            }
            f.decoded += count;
            following.tokens(f, count, at);
            steps.observe(f, count, at);
            return;
        }
        coreTokens(f, count, at);
    }

    private boolean doComplete(long id) {
        InFlight f = local.get(id);
        if (f == null) {
            return false;
        }
        if (role == Role.FOLLOWER) {
            if (f.workerId == null) {
                throw new IllegalStateException("request " + id + " is waiting for a worker, not on one: abort it"
                        + " instead of completing it");
            }
            local.remove(id);
            if (!f.retired) {
                teachPredictors(f, f.decoded);
            }
            following.complete(f);
            return true;
        }
        if (f.retired) {
            local.remove(id); // its worker left the layout: released, nothing learned (its tokens were not counted)
            coreAbort(f);
            return true;
        }
        if (f.core == null || !onWorker(f.core)) {
            throw new IllegalStateException("request " + id + " is " + (f.core == null ? "unknown to the core"
                    : f.core.phase()) + ", not on a worker: abort it instead of completing it");
        }
        local.remove(id);
        coreComplete(f);
        return true;
    }

    private boolean doAbort(long id) {
        InFlight f = local.remove(id);
        if (f == null) {
            return false;
        }
        if (role == Role.FOLLOWER) {
            following.abort(f);
        } else {
            coreAbort(f);
        }
        f.placed.cancel(false);
        return true;
    }

    private static boolean onWorker(TrackedRequest r) {
        return r.phase() == TrackedRequest.Phase.RUNNING || r.phase() == TrackedRequest.Phase.QUEUED;
    }

    // ------------------------------------------------------------------ the core (alone, dispatcher)

    void coreSubmit(InFlight f) {
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
        dispatching.changed();
    }

    /** Another replica's request, already on a worker, into the core (a SYNC): where it is, with its tokens. */
    void coreRestore(InFlight f, int worker, int decoded) {
        keyInCore(f);
        restore(f, worker, decoded);
        dispatching.changed();
    }

    /** Another replica's request, on a worker this layout does not have (a SYNC): kept aside until it ends. */
    void coreRetired(InFlight f, String workerId) {
        keyInCore(f);
        f.workerId = workerId;
        retire(f);
    }

    /** A request keyed in the core onto worker g of the current core, as it was: running or queued, with its tokens. */
    private void restore(InFlight f, int g, int decoded) {
        router.restore(f.newCore(), g, decoded);
        f.workerId = layout.id(g);
        f.retired = false;
        f.placedSeq = ++placeSeq;
    }

    /** Out of the core into the side table: its worker left the layout (see the class comment). */
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

    void coreTokens(InFlight f, int count, long at) {
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
        dispatching.seen(at);
    }

    void coreComplete(InFlight f) {
        if (f.retired) {
            coreAbort(f); // its tokens were not counted: nothing to learn
            return;
        }
        byCore.remove(f.coreKey);
        if (f.core != null) {
            router.complete(f.core);
        }
        dispatching.changed();
    }

    void coreAbort(InFlight f) {
        if (f.retired) {
            retired.remove(f.coreKey);
            return;
        }
        byCore.remove(f.coreKey);
        if (f.core != null) {
            router.abort(f.core);
        }
        dispatching.changed();
    }

    /** Tells whoever waits for the request's placement: its future, or its replica's next answer. */
    private void placed(InFlight f, List<Placement> report) {
        int g = f.core.worker();
        f.workerId = layout.id(g);
        f.placedSeq = ++placeSeq;
        Placement p = new Placement(f.id, g, f.workerId);
        if (report != null) {
            report.add(p);
        }
        if (f.origin == null) {
            f.placed.complete(p);
        } else {
            dispatching.placed(f.origin, f.id, g, f.workerId);
        }
    }

    private StepResult doStep(boolean report) {
        long started = System.nanoTime();
        steps.started();
        long step = step();
        int n = copyPool();
        List<Placement> placements = report ? new ArrayList<>() : null;
        try {
            router.dispatch();
        } finally {
            notifyPlaced(n, placements);
            cluster.advanceStep();
        }
        int depth = router.pool().size();
        DispatchObserver o = observer;
        if (o != null) {
            observeStep(o, System.nanoTime() - started, depth);
        }
        return new StepResult(step, policy.active(), report ? placements : List.of(), depth);
    }

    /** Sets (or clears, with null) the step observer. Any thread. */
    void observer(DispatchObserver o) {
        observer = o;
    }

    /**
     * Tells the observer about a step: each group's imbalance (its workers not draining) and their
     * sum, the pool's. O(G), no allocation; its failures are logged and ignored.
     */
    private void observeStep(DispatchObserver o, long durationNanos, int depth) {
        long[] perGroup = groupImbalances;
        long sum = 0;
        for (int i = 0; i < perGroup.length; i++) {
            perGroup[i] = workers == 0 ? 0 : cluster.groupImbalance(i);
            sum += perGroup[i];
        }
        try {
            o.stepCompleted(durationNanos, sum, depth, perGroup);
        } catch (RuntimeException e) {
            LOG.warn("router: the dispatch observer failed: {}", e.toString());
        }
    }

    /** The core's snapshot (no worker, B 0, before the first layout), with the step index that goes on across cores. */
    private ClusterSnapshot takeSnapshot() {
        if (workers == 0) {
            return new ClusterSnapshot(dispatcherId, step(), clock.getAsLong(), 0, new long[0],
                    new int[0], new int[0], router.pool().size(), new boolean[0]);
        }
        ClusterSnapshot s = cluster.snapshot(dispatcherId, clock.getAsLong(), router.pool().size());
        return stepBase == 0 ? s : new ClusterSnapshot(s.source(), step(), s.capturedNanos(), s.capacity(), s.loads(),
                s.running(), s.queued(), s.poolDepth(), s.available(), s.groups(), s.capacities(), s.draining());
    }

    private ClusterStatus takeStatus() {
        List<ReplicaShare> shares;
        double age = 0;
        SharedView v = following.view();
        if (role == Role.FOLLOWER) {
            shares = new ArrayList<>();
            Map<String, ReplicaShare> byMember = new HashMap<>();
            if (v != null) {
                v.shares().forEach(s -> byMember.put(s.member(), s));
                age = (clock.getAsLong() - v.receivedAtNanos()) / 1e6;
            }
            int g = v != null ? v.totals().workers() : workers;
            for (SnapshotStore.Member m : members) {
                ReplicaShare s = byMember.get(m.id());
                shares.add(s != null ? s : new ReplicaShare(m.id(), m.address(), m.id().equals(dispatcherId), 0,
                        new long[g], new int[g], new int[g]));
            }
        } else {
            shares = computeShares();
        }
        return new ClusterStatus(storeName, localMember, dispatcherId, shares, age, staleness.summary());
    }

    /** Each member's share of the core, oldest member first (the dispatcher's, or a cluster of one's). */
    private List<ReplicaShare> computeShares() {
        int g = workers;
        List<ReplicaShare> shares = new ArrayList<>(members.size());
        Set<String> named = new HashSet<>();
        for (SnapshotStore.Member m : members) {
            named.add(m.id());
            if (m.id().equals(localMember)) {
                shares.add(share(m.id(), m.address(), local, g));
            } else {
                Origin o = dispatching.originOf(m.id());
                shares.add(o == null ? share(m.id(), m.address(), null, g) : share(m.id(), m.address(), o.requests, g));
            }
        }
        for (Origin o : dispatching.origins()) {
            if (!named.contains(o.member)) {
                shares.add(share(o.member, "?", o.requests, g));
            }
        }
        return shares;
    }

    private ReplicaShare share(String member, String address, LongMap<InFlight> requests, int g) {
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
        return new ReplicaShare(member, address, member.equals(dispatcherId), pooled[0], loads, running, queued);
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
            dispatching.changed();
        }
        if (placements != null && placements.size() > 1) {
            // the order of the policy's assignments is not kept: report by worker, then id
            placements.sort((a, b) -> a.worker() != b.worker() ? Integer.compare(a.worker(), b.worker())
                    : Long.compare(a.requestId(), b.requestId()));
        }
    }

    /** Health-check ejection and re-admission: enqueued, applied in order like every other command. */
    void setWorkerAvailable(int worker, boolean up) {
        enqueue(() -> {
            if (worker < 0 || worker >= workers) {
                LOG.debug("router: availability of worker {}, outside [0, {}); ignored", worker, workers);
                return;
            }
            String id = layout.id(worker);
            if (!(up ? ownDown.remove(id) : ownDown.add(id))) {
                return;
            }
            if (role == Role.FOLLOWER) {
                following.mark(id, up);
            } else {
                applyAvailability(worker);
            }
        });
    }

    /** Worker g takes requests unless this replica or any other one marks it down. */
    void applyAvailability(int g) {
        String id = layout.id(g);
        boolean up = !ownDown.contains(id) && !dispatching.markedDownElsewhere(id);
        if (router.setWorkerAvailable(g, up)) {
            LOG.info("router: worker {} {}", g, up ? "is back in routing" : "is out of routing");
            dispatching.changed();
            if (up && router.pool().size() > 0) {
                // requests that waited while every worker was down (or for a free slot): a step
                // places them now, not only after the next arrival or release
                steps.want();
            }
        }
    }

    /** Every worker's availability, again (the marks of a replica came or went). */
    void applyAvailability() {
        for (int g = 0; g < workers; g++) {
            applyAvailability(g);
        }
    }

    /** Worker g's availability, by identity, if this layout has it (another replica's mark). */
    void applyAvailability(String workerId) {
        int g = layout == null ? -1 : layout.indexOf(workerId);
        if (g >= 0) {
            applyAvailability(g);
        }
    }

    /**
     * Starts or ends the drain of a worker, by identity (alone, dispatcher; a follower's ask
     * arrives here too): ignored if the layout does not have it.
     */
    void applyDrain(String workerId, boolean draining) {
        int g = layout == null ? -1 : layout.indexOf(workerId);
        if (g < 0) {
            LOG.debug("router: drain of worker {}, not in the layout; ignored", workerId);
            return;
        }
        if (draining) {
            drains.add(workerId);
        } else {
            drains.remove(workerId);
        }
        if (router.setWorkerDraining(g, draining)) {
            LOG.info("router: worker {} ({}) {}", g, workerId, draining ? "drains: no new requests" : "ends its drain");
            dispatching.changed();
            if (!draining && router.pool().size() > 0) {
                steps.want(); // what waited for a free slot may go there now
            }
        }
    }

    /** Every worker's marks onto a new core: health (this replica's and the others') and drains, by identity. */
    private void applyMarks() {
        for (int g = 0; g < workers; g++) {
            String id = layout.id(g);
            router.setWorkerAvailable(g, !ownDown.contains(id) && !dispatching.markedDownElsewhere(id));
            router.setWorkerDraining(g, drains.contains(id));
        }
    }

    private void teachPredictors(RequestView request, int outputTokens) {
        for (CompletionListener p : predictors) {
            try {
                p.onCompleted(request, outputTokens);
            } catch (RuntimeException e) {
                LOG.error("{} failed to learn a completion", p instanceof TerminationPredictor t
                        ? "predictor " + t.name() : "completion listener " + p, e);
            }
        }
    }

    private void applySettings() {
        steps.apply(policy.settings());
    }

    /** A new layout, on the dispatch thread: at once, whatever is in flight (see the class comment). */
    private void applyLayout(WorkerLayout next) {
        if (next.equals(layout)) {
            return;
        }
        WorkerLayout before = layout;
        layout = next;
        workers = next.workers();
        ownDown.removeIf(id -> next.indexOf(id) < 0);
        drains.removeIf(id -> next.indexOf(id) < 0);
        if (role == Role.FOLLOWER) {
            local.forEachValue(f -> {
                if (f.workerId != null) {
                    f.worker = next.indexOf(f.workerId);
                    f.retired = f.worker < 0;
                }
            });
            following.layoutChanged(next);
            newCore(hold);
            applyMarks();
            LOG.info("router: the decode pool is now {}", next);
        } else {
            rebuildCore(before, next);
        }
        dispatching.changed();
        if (before == null) {
            applySelection(); // nothing could be placed before
        }
    }

    /**
     * A core of the new layout with every request of the old one: on the worker of the same
     * identity (running first, then each queue in the order it was placed), else aside; then the
     * pool, oldest first, handed to the policy in force as a policy switch does.
     */
    private void rebuildCore(WorkerLayout before, WorkerLayout next) {
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
        newCore(hold);
        applyMarks();
        int kept = 0;
        for (int i = 0; i < workerIds.length; i++) {
            InFlight f = onWorkers.get(i);
            int g = next.indexOf(workerIds[i]);
            if (g >= 0) {
                restore(f, g, decoded[i]);
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

    /**
     * A new, empty core of the current layout (one placeholder worker until it is known); the step
     * index goes on from the old one's.
     */
    private void newCore(RoutingPolicy policy) {
        if (cluster != null) {
            stepBase += cluster.step();
        }
        cluster = new ClusterState(layout == null ? DecodeLayout.single(1, 1) : layout.decode());
        router = new Router(cluster, policy, List.of(predictorFanout));
        if (groupImbalances.length != cluster.groups()) {
            groupImbalances = new long[cluster.groups()];
        }
    }

    /** The policy of the core from now on; what it places at once (an arrival policy takes the pool over) is told. */
    private void switchPolicy(RoutingPolicy next) {
        int n = copyPool();
        try {
            router.setPolicy(next);
        } finally {
            notifyPlaced(n, null);
        }
    }

    private void applySelection() {
        String before = policy.selected();
        RoutingPolicy next = policy.select();
        String name = policy.selected();
        if (!name.equals(before)) {
            dispatching.changed(); // the followers show the policy in force: tell them now, not at the keepalive
        }
        if (role != Role.FOLLOWER || following.view() == null) {
            policy.active(name); // before the placements below complete anyone's future
        }
        if (workers == 0 || dispatching.settling() || role == Role.FOLLOWER) {
            next = hold; // nothing to place on, or not this router's decision
        }
        if (next != router.policy()) {
            boolean held = router.policy() == hold;
            int n = router.pool().size();
            switchPolicy(next);
            if (held && n > 0 && next != hold && role != Role.FOLLOWER) {
                // requests that waited while no policy was available: a step places them now, not
                // only after the next arrival or release (which may never come)
                steps.want();
            }
        }
        policy.logTransition();
    }

    // ------------------------------------------------------------------ membership

    private void attached(Attachment a) {
        attachment = a;
        storeName = safeName(a.store);
        SnapshotStore.Session s = a.session;
        localMember = s.localMember();
        LOG.info("router: joined the {} snapshot store as member {}", storeName, localMember);
        applyMembers(s.members());
    }

    private void detached(Attachment a) {
        if (attachment != a) {
            return;
        }
        if (role == Role.FOLLOWER) {
            following.sendLeave();
        }
        attachment = null;
        LOG.info("router: left the {} snapshot store; routing on the local snapshot", storeName);
        storeName = ClusterStatus.LOCAL;
        localMember = SOURCE;
        dispatcherId = SOURCE;
        members = List.of(new SnapshotStore.Member(SOURCE, SOURCE));
        if (role == Role.FOLLOWER) {
            becomeDispatcher(Role.ALONE);
        } else {
            dispatching.stop("the cluster was left");
            role = Role.ALONE;
        }
        staleness.clear();
    }

    private void applyMembers(List<SnapshotStore.Member> now) {
        members = now.isEmpty() ? List.of(new SnapshotStore.Member(localMember, "?")) : now;
        dispatching.membersChanged(members);
        String oldest = members.get(0).id();
        if (oldest.equals(localMember)) {
            if (role == Role.FOLLOWER) {
                becomeDispatcher(Role.DISPATCHER);
            } else if (role == Role.ALONE) {
                role = Role.DISPATCHER;
                LOG.info("router: this replica ({}) is the dispatcher of {} member(s)", localMember, members.size());
            }
        } else if (role != Role.FOLLOWER || !oldest.equals(dispatcherId)) {
            becomeFollower(oldest);
        }
        dispatcherId = oldest;
    }

    /** This replica decides from now on: its core is rebuilt from its own requests, then the others' SYNCs. */
    private void becomeDispatcher(Role next) {
        role = next;
        dispatcherId = localMember;
        byCore.clear();
        retired.clear();
        newCore(hold);
        List<InFlight> own = new ArrayList<>();
        local.forEachValue(own::add);
        own.sort(Comparator.comparingLong(f -> f.arrivalNanos));
        applyMarks();
        int restored = 0;
        int aside = 0;
        for (InFlight f : own) {
            keyInCore(f);
            int g = f.workerId == null || layout == null ? -1 : layout.indexOf(f.workerId);
            if (g >= 0) {
                restore(f, g, f.decoded);
                restored++;
            } else if (f.workerId != null) {
                retire(f); // on a worker this layout does not have: it ends there
                aside++;
            } else {
                router.submit(f.newCore());
            }
        }
        following.stop();
        dispatching.start(next == Role.DISPATCHER ? members : List.of(), localMember);
        applyAvailability();
        LOG.info("router: this replica ({}) is the {} now: {} own request(s) on workers, {} waiting{}", localMember,
                next == Role.DISPATCHER ? "dispatcher of " + members.size() + " member(s)" : "only router",
                restored, own.size() - restored - aside,
                dispatching.settling() ? "; placements wait until the others have reported" : "");
        applySelection();
        steps.want();
    }

    /** Another replica decides from now on: this one hands its own requests over with a SYNC. */
    private void becomeFollower(String dispatcher) {
        if (role != Role.FOLLOWER) {
            local.forEachValue(InFlight::leaveCore);
            byCore.clear();
            retired.clear();
            dispatching.forget();
            newCore(hold);
            poolDepth = 0;
        }
        role = Role.FOLLOWER;
        dispatcherId = dispatcher;
        policy.active(policy.selected());
        LOG.info("router: following the dispatcher {}; {} own request(s) handed over", dispatcher, local.size());
        following.follow(dispatcher);
    }

    // ------------------------------------------------------------------ what the roles use

    void send(String member, byte[] bytes) {
        Attachment a = attachment;
        if (a == null || a.session == null) {
            return;
        }
        try {
            a.session.send(member, bytes);
        } catch (RuntimeException e) {
            LOG.warn("router: a frame to {} was not sent: {}", member, e.toString());
        }
    }

    void sendToAll(byte[] bytes) {
        Attachment a = attachment;
        if (a == null || a.session == null) {
            return;
        }
        try {
            a.session.sendToAll(bytes);
        } catch (RuntimeException e) {
            LOG.warn("router: the cluster view was not sent: {}", e.toString());
        }
    }

    List<SnapshotStore.Member> members() {
        return members;
    }

    int workers() {
        return workers;
    }

    /** The layout in force, null before the first. */
    WorkerLayout layout() {
        return layout;
    }

    Set<String> ownDown() {
        return ownDown;
    }

    /** The drains as this replica knows them (see the class comment); a follower's view updates them. */
    Set<String> drains() {
        return drains;
    }

    LongMap<InFlight> ownRequests() {
        return local;
    }

    StalenessSamples staleness() {
        return staleness;
    }

    /** The step index: the dispatch steps run so far, over every core this router had. */
    long step() {
        return stepBase + cluster.step();
    }

    int poolSize() {
        return router.pool().size();
    }

    /** A dispatch step at the next decode step boundary. */
    void wantStep() {
        steps.want();
    }

    /** A dispatch step now (a follower's dispatchStep()). */
    void stepNow() {
        doStep(false);
    }

    /** Every member reported (or the wait ended): placements resume. */
    void settled() {
        applySelection();
        steps.want();
    }

    /** The dispatcher's new view reached this follower. */
    void viewed(SharedView v) {
        poolDepth = v.totals().poolDepth();
        policy.active(v.activePolicy());
    }

    void writeView(Frames.Writer w) {
        SharedView.write(w, takeSnapshot(), policy.selected(), steps.observedStepNanos(), layout == null ? 0 : layout.fingerprint(),
                computeShares());
    }

    // ------------------------------------------------------------------ frames

    void onFrame(String from, byte[] bytes) {
        try {
            Frames.Reader r = new Frames.Reader(bytes);
            switch (role) {
                case FOLLOWER -> {
                    if (r.type == Frames.SYNC) {
                        dispatching.early(from, bytes); // it may know before this member that this one decides
                    } else {
                        following.onFrame(from, r);
                    }
                }
                case DISPATCHER -> dispatching.onFrame(from, r);
                default -> { }
            }
        } catch (Frames.MalformedFrameException e) {
            LOG.warn("router: a malformed frame from {}: {}", from, e.getMessage());
            if (role == Role.DISPATCHER) {
                dispatching.onMalformed(from);
            } else if (role == Role.FOLLOWER) {
                following.onMalformed(from);
            }
        }
    }

    private static String safeName(SnapshotStore store) {
        try {
            return store.name();
        } catch (RuntimeException e) {
            return "shared";
        }
    }

    private static void closeQuietly(Attachment a) {
        SnapshotStore.Session s = a.session;
        if (s != null) {
            try {
                s.close();
            } catch (RuntimeException e) {
                LOG.warn("router: closing the snapshot store session: {}", e.toString());
            }
        }
    }
}
