package org.balanceroute.router.internal;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.LinkedTransferQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.LongSupplier;
import java.util.function.Supplier;
import org.balanceroute.api.CompletionListener;
import org.balanceroute.api.PoolSnapshot;
import org.balanceroute.api.RequestView;
import org.balanceroute.api.RoutingPolicy;
import org.balanceroute.api.SnapshotStore;
import org.balanceroute.api.TerminationPredictor;
import org.balanceroute.core.PoolState;
import org.balanceroute.core.Router;
import org.balanceroute.router.DispatchObserver;
import org.balanceroute.router.Placement;
import org.balanceroute.router.ReplicasStatus;
import org.balanceroute.router.StepResult;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The single dispatch thread and the state it owns: a core {@link Router} over a
 * {@link PoolState}, the requests in flight, the active policy, and this replica's place in
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
 * summed per request, every {@value Following#FLUSH_MILLIS} ms at most; submissions and completions at once)
 * and serves {@link #snapshot()} from the last view. One decider, so replicas never fill the same
 * worker on a stale view (no thundering herd), and the single-writer core stays single-writer.
 *
 * <p><b>Repair.</b> A follower's frames are numbered within a session; the dispatcher applies
 * them in order and answers a gap (or an unknown session) with RESYNC. A SYNC carries the
 * follower's whole state and replaces what the dispatcher held for it: its requests waiting in the
 * pool, and those placed, on their workers with their tokens. A follower sends one when it
 * follows a new dispatcher (it joined; the old one left), when asked, and when the dispatcher has
 * been silent for {@value Following#DISPATCHER_SILENCE_MILLIS} ms. A new dispatcher rebuilds its core from
 * its own requests and the SYNCs (holding placements for up to {@value Dispatching#SETTLE_MILLIS} ms until
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
    private final WorkerMarks marks = new WorkerMarks();
    private final Core core;
    /** This replica's own requests, by the ids its callers gave them. */
    private final LongMap<InFlight> local = new LongMap<>();

    // --- membership (dispatch thread)
    private Attachment attachment;
    private String storeName = ReplicasStatus.LOCAL;
    private String localMember = SOURCE;
    private List<SnapshotStore.Member> members = List.of(new SnapshotStore.Member(SOURCE, SOURCE));
    private String dispatcherId = SOURCE;
    private final StalenessSamples staleness = new StalenessSamples();
    private final Alone alone;
    /** Lives as long as the loop: it keeps what the dispatcher's view needs in every role (see its comment). */
    private final Dispatching dispatching;
    private final Following following;
    /** One of the three above. */
    private ReplicaRole role;

    DispatchLoop(RouterSettings settings, LongSupplier clock) {
        this.policy = new PolicyChoice(Objects.requireNonNull(settings, "settings"));
        this.clock = Objects.requireNonNull(clock, "clock");
        this.hold = policy.hold();
        this.steps = new StepTimer(settings, clock);
        RoleHost host = new Host();
        this.alone = new Alone(host);
        this.dispatching = new Dispatching(host, clock);
        this.following = new Following(host, clock, dispatching::early);
        this.role = alone;
        this.core = new Core(marks, steps, hold, predictorFanout, dispatching);
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
            if (worker < 0 || worker >= marks.workers()) {
                LOG.debug("router: drain of worker {}, outside [0, {}); ignored", worker, marks.workers());
                return;
            }
            role.drain(worker, marks.id(worker), draining);
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
                role.step(answer);
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
        role.askStep();
    }

    /**
     * The cluster as this router sees it: its core between two commands (alone, dispatcher), or
     * the dispatcher's last view (follower; answered without the dispatch thread). Blocks for
     * the dispatch thread's answer otherwise; answers directly when called on it.
     */
    PoolSnapshot snapshot() {
        SharedView v = following.view();
        if (v != null) {
            return v.totals();
        }
        return answer(this::takeSnapshot, "snapshot");
    }

    /** The membership, each member's share and the view's staleness. Blocks like {@link #snapshot()}. */
    ReplicasStatus replicasStatus() {
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
            role.stopped(stoppedCause);
        }
    }

    private void publishPoolDepth() {
        if (role.decides()) {
            poolDepth = core.poolSize();
        }
    }

    /** Nanoseconds until the next timer is due: 0 now, -1 none. */
    private long untilDue() {
        long now = clock.getAsLong();
        long wait = role.untilDue(now);
        if (role.decides()) {
            wait = Math.min(wait, steps.untilDue(now));
        }
        return wait == Long.MAX_VALUE ? -1 : wait;
    }

    private void runTimers() {
        long now = clock.getAsLong();
        runSafely(() -> role.runTimers(now));
        if (role.decides() && steps.due(now)) {
            runSafely(this::scheduledStep);
        }
        runSafely(() -> role.runTimersAfterStep(now));
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
        role.submit(f);
    }

    private void doTokens(long id, int count, long at) {
        InFlight f = local.get(id);
        if (f == null) {
            LOG.debug("tokens for request {}, which is not in flight", id);
            return;
        }
        role.tokens(f, count, at);
    }

    private boolean doComplete(long id) {
        InFlight f = local.get(id);
        if (f == null) {
            return false;
        }
        role.complete(f);
        return true;
    }

    private boolean doAbort(long id) {
        InFlight f = local.remove(id);
        if (f == null) {
            return false;
        }
        role.abort(f);
        f.placed.cancel(false);
        return true;
    }

    private StepResult doStep(boolean report) {
        long started = System.nanoTime();
        steps.started();
        long step = core.step();
        List<Placement> placements = report ? new ArrayList<>() : null;
        core.dispatch(placements);
        int depth = core.poolSize();
        DispatchObserver o = observer;
        if (o != null) {
            core.observeStep(o, System.nanoTime() - started, depth);
        }
        return new StepResult(step, policy.active(), report ? placements : List.of(), depth);
    }

    /** Sets (or clears, with null) the step observer. Any thread. */
    void observer(DispatchObserver o) {
        observer = o;
    }

    /** The core's snapshot (no worker, B 0, before the first layout), with the step index that goes on across cores. */
    private PoolSnapshot takeSnapshot() {
        return core.snapshot(dispatcherId, clock.getAsLong());
    }

    private ReplicasStatus takeStatus() {
        return new ReplicasStatus(storeName, localMember, dispatcherId, role.shares(), role.viewAgeMillis(),
                staleness.summary());
    }

    /** Health-check ejection and re-admission: enqueued, applied in order like every other command. */
    void setWorkerAvailable(int worker, boolean up) {
        enqueue(() -> {
            if (worker < 0 || worker >= marks.workers()) {
                LOG.debug("router: availability of worker {}, outside [0, {}); ignored", worker, marks.workers());
                return;
            }
            String id = marks.id(worker);
            if (!marks.mark(id, up)) {
                return;
            }
            role.marked(worker, id, up);
        });
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
        if (next.equals(marks.layout())) {
            return;
        }
        WorkerLayout before = marks.layout();
        marks.relayout(next);
        role.relaid(before, next);
        dispatching.changed();
        if (before == null) {
            applySelection(); // nothing could be placed before
        }
    }

    private void applySelection() {
        String before = policy.selected();
        RoutingPolicy next = policy.select();
        String name = policy.selected();
        if (!name.equals(before)) {
            dispatching.changed(); // the followers show the policy in force: tell them now, not at the keepalive
        }
        if (role.decides() || following.view() == null) {
            policy.active(name); // before the placements below complete anyone's future
        }
        if (marks.workers() == 0 || dispatching.settling() || !role.decides()) {
            next = hold; // nothing to place on, or not this router's decision
        }
        if (next != core.policy()) {
            boolean held = core.policy() == hold;
            int n = core.poolSize();
            core.switchPolicy(next);
            if (held && n > 0 && next != hold && role.decides()) {
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
        if (role == following) {
            following.sendLeave();
        }
        attachment = null;
        LOG.info("router: left the {} snapshot store; routing on the local snapshot", storeName);
        storeName = ReplicasStatus.LOCAL;
        localMember = SOURCE;
        dispatcherId = SOURCE;
        members = List.of(new SnapshotStore.Member(SOURCE, SOURCE));
        if (role == following) {
            becomeDispatcher(alone);
        } else {
            dispatching.stop("the cluster was left");
            role = alone;
        }
        staleness.clear();
    }

    private void applyMembers(List<SnapshotStore.Member> now) {
        members = now.isEmpty() ? List.of(new SnapshotStore.Member(localMember, "?")) : now;
        dispatching.membersChanged(members);
        String oldest = members.get(0).id();
        if (oldest.equals(localMember)) {
            if (role == following) {
                becomeDispatcher(dispatching);
            } else if (role == alone) {
                role = dispatching;
                LOG.info("router: this replica ({}) is the dispatcher of {} member(s)", localMember, members.size());
            }
        } else if (role != following || !oldest.equals(dispatcherId)) {
            becomeFollower(oldest);
        }
        dispatcherId = oldest;
    }

    /** This replica decides from now on: its core is rebuilt from its own requests, then the others' SYNCs. */
    private void becomeDispatcher(ReplicaRole next) {
        role = next;
        dispatcherId = localMember;
        Core.Adopted own = core.adopt(local);
        following.stop();
        dispatching.start(next == dispatching ? members : List.of(), localMember);
        dispatching.takeEarlySyncs().forEach(this::onFrame); // ignored by a replica alone
        core.applyAvailability();
        LOG.info("router: this replica ({}) is the {} now: {} own request(s) on workers, {} waiting{}", localMember,
                next == dispatching ? "dispatcher of " + members.size() + " member(s)" : "only router",
                own.onWorkers(), local.size() - own.onWorkers() - own.aside(),
                dispatching.settling() ? "; placements wait until the others have reported" : "");
        applySelection();
        steps.want();
    }

    /** Another replica decides from now on: this one hands its own requests over with a SYNC. */
    private void becomeFollower(String dispatcher) {
        if (role != following) {
            local.forEachValue(InFlight::leaveCore);
            dispatching.forget();
            core.drop();
            poolDepth = 0;
        }
        role = following;
        dispatcherId = dispatcher;
        policy.active(policy.selected());
        LOG.info("router: following the dispatcher {}; {} own request(s) handed over", dispatcher, local.size());
        following.follow(dispatcher);
    }

    // ------------------------------------------------------------------ what the roles use

    /** What the roles may ask of the loop (a class of its own, so that the loop's API stays as it is). */
    private final class Host implements RoleHost {

        @Override
        public Core core() {
            return core;
        }

        @Override
        public WorkerMarks marks() {
            return marks;
        }

        @Override
        public LongMap<InFlight> ownRequests() {
            return local;
        }

        @Override
        public StepTimer steps() {
            return steps;
        }

        @Override
        public StepResult step(boolean report) {
            return doStep(report);
        }

        @Override
        public void settled() {
            applySelection();
            steps.want();
        }

        @Override
        public List<SnapshotStore.Member> members() {
            return members;
        }

        @Override
        public String localMember() {
            return localMember;
        }

        @Override
        public void send(String member, byte[] bytes) {
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

        @Override
        public void sendToAll(byte[] bytes) {
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

        @Override
        public void writeView(Frames.Writer w) {
            SharedView.write(w, takeSnapshot(), policy.selected(), steps.observedStepNanos(),
                    marks.layout() == null ? 0 : marks.layout().fingerprint(), role.shares());
        }

        @Override
        public void viewed(SharedView v) {
            poolDepth = v.totals().poolDepth();
            policy.active(v.activePolicy());
        }

        @Override
        public String activePolicy() {
            return policy.active();
        }

        @Override
        public int poolDepth() {
            return poolDepth;
        }

        @Override
        public void learned(InFlight f, int outputTokens) {
            teachPredictors(f, outputTokens);
        }

        @Override
        public StalenessSamples staleness() {
            return staleness;
        }
    }

    // ------------------------------------------------------------------ frames

    /** A frame from another member, to the role in force (a malformed one is logged and told to it). */
    private void onFrame(String from, byte[] bytes) {
        try {
            role.receive(from, new Frames.Reader(bytes), bytes);
        } catch (Frames.MalformedFrameException e) {
            LOG.warn("router: a malformed frame from {}: {}", from, e.getMessage());
            role.malformed(from);
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
