package org.balanceroute.router.internal;

import java.util.ArrayList;
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
import org.balanceroute.api.ClusterSnapshot;
import org.balanceroute.api.CompletionListener;
import org.balanceroute.api.RequestView;
import org.balanceroute.api.RoutingPolicy;
import org.balanceroute.api.TerminationPredictor;
import org.balanceroute.core.ClusterState;
import org.balanceroute.core.PromptPool;
import org.balanceroute.core.Router;
import org.balanceroute.core.TrackedRequest;
import org.balanceroute.router.DispatchObserver;
import org.balanceroute.router.Placement;
import org.balanceroute.router.RouterService;
import org.balanceroute.router.StepResult;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The single dispatch thread and the state it owns: a core {@link Router} over a
 * {@link ClusterState}, the requests in flight by id, the active policy. Other threads never
 * touch that state: they enqueue commands on a lock-free queue and, where they need an answer,
 * wait on a {@link CompletableFuture} the dispatch thread completes.
 *
 * <p>Policy selection: {@link #offer} publishes the configured names and the registered
 * policies; the dispatch thread then picks configured, else fallback, else {@link HoldPolicy},
 * switching with {@link Router#setPolicy} (sticky placements, the pool handed to the new
 * policy) and logging once per transition.
 */
final class DispatchLoop {

    /** Source name of the snapshots of this (the only) router of the process. */
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

    /** A request in flight and the future of its placement. */
    private static final class InFlight {
        final TrackedRequest request;
        final CompletableFuture<Placement> placed = new CompletableFuture<>();
        /** Clock of its last token report, 0 before the first: the step cadence is measured between two. */
        long lastTokensAt;

        InFlight(TrackedRequest request) {
            this.request = request;
        }
    }

    private enum Mode { CONFIGURED, FALLBACK, NONE }

    /** What the selection logs about; a new log line only when this changes. */
    private record Selection(Mode mode, String configured, String fallback, String active) {
    }

    private static final Command STOP = () -> { };

    /** Weight of a new sample in the step period's moving average: about the last 32 chunks count. */
    private static final int PERIOD_SMOOTHING = 32;
    /** Longer gaps between two chunks of a request are not decode steps (a stalled client, a pause). */
    private static final long MAX_STEP_NANOS = TimeUnit.SECONDS.toNanos(10);
    /** Commands run at most before a due step runs anyway, so a flood of token reports cannot starve it. */
    private static final int MAX_COMMANDS_BEFORE_STEP = 256;

    private final LinkedTransferQueue<Command> commands = new LinkedTransferQueue<>();
    private final LongSupplier clock;
    private final Thread thread;
    private final AtomicBoolean reselectQueued = new AtomicBoolean();
    private final AtomicBoolean stepRequestQueued = new AtomicBoolean();
    private final Command stepRequest = () -> {
        stepRequestQueued.set(false);
        stepWanted = true;
    };
    private final CompletionListener predictorFanout = this::teachPredictors;
    private final HoldPolicy hold = new HoldPolicy();

    private volatile boolean stopped;
    private volatile boolean terminated;
    private volatile RouterSettings settings;
    private volatile Map<String, RoutingPolicy> available = Map.of();
    private volatile TerminationPredictor[] predictors = new TerminationPredictor[0];
    private volatile String activeName = RouterService.NO_POLICY;
    /** The decode step period observed from the token streams; 0 while unknown. Written by the dispatch thread only. */
    private volatile long observedStepNanos;
    /** Told about every dispatch step (metrics); null when none is registered. */
    private volatile DispatchObserver observer;
    /** The pool's size after the last command, published by the dispatch thread for lock-free readers. */
    private volatile int poolDepth;

    // --- owned by the dispatch thread ---
    private ClusterState cluster;
    private Router router;
    private RouterSettings applied;
    private final LongMap<InFlight> inFlight = new LongMap<>();
    private TrackedRequest[] poolCopy = new TrackedRequest[64];
    private Selection lastSelection;
    private boolean resizeWaiting;
    private long nextAutoStep;
    private boolean stepWanted;
    private long lastStepAt;

    DispatchLoop(RouterSettings settings, LongSupplier clock) {
        this.settings = Objects.requireNonNull(settings, "settings");
        this.clock = Objects.requireNonNull(clock, "clock");
        this.applied = settings;
        this.nextAutoStep = clock.getAsLong();
        this.lastStepAt = nextAutoStep;
        this.cluster = new ClusterState(settings.workers(), settings.capacity());
        this.router = new Router(cluster, hold, List.of(predictorFanout));
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
    }

    // ------------------------------------------------------------------ inputs from other threads

    /** New configuration (already validated); applied by the dispatch thread. */
    void configure(RouterSettings next) {
        settings = Objects.requireNonNull(next, "settings");
        enqueue(this::applySettings);
        reselect();
    }

    /** The registered policies changed. */
    void offer(Map<String, RoutingPolicy> policies) {
        available = Map.copyOf(policies);
        reselect();
    }

    /** The registered predictors changed; the next completion is taught to these. */
    void predictors(List<TerminationPredictor> next) {
        predictors = next.toArray(new TerminationPredictor[0]);
    }

    String activePolicy() {
        return activeName;
    }

    int poolDepth() {
        return poolDepth;
    }

    RouterSettings settings() {
        return settings;
    }

    Map<String, RoutingPolicy> available() {
        return available;
    }

    CompletableFuture<Placement> submit(long requestId, int promptTokens, long promptKey, int bodyBytes) {
        InFlight r = new InFlight(new TrackedRequest(requestId, promptTokens, promptKey, bodyBytes, clock.getAsLong()));
        enqueue(new Command() {
            @Override
            public void run() {
                doSubmit(r);
            }

            @Override
            public void abandon(RuntimeException cause) {
                r.placed.completeExceptionally(cause);
            }
        });
        return r.placed;
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

    CompletableFuture<StepResult> dispatchStep() {
        return call(() -> doStep(true));
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
        return observedStepNanos;
    }

    /** Blocks for a snapshot; answers directly when called on the dispatch thread itself. */
    ClusterSnapshot snapshot() {
        if (Thread.currentThread() == thread) {
            return takeSnapshot();
        }
        try {
            return call(this::takeSnapshot).get(ANSWER_TIMEOUT_SECONDS, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while waiting for the dispatch thread", e);
        } catch (ExecutionException e) {
            throw new IllegalStateException("snapshot failed: " + e.getCause(), e.getCause());
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
     * The loop: commands in order; a step when one is due. A due step first lets the commands
     * already queued run (up to {@link #MAX_COMMANDS_BEFORE_STEP}), so the completions that
     * arrived together at the end of a decode step free their slots in the same dispatch step.
     */
    private void run() {
        try {
            int sinceDue = 0;
            while (true) {
                long wait = untilNextStep();
                Command c;
                if (wait == 0) {
                    c = sinceDue < MAX_COMMANDS_BEFORE_STEP ? commands.poll() : null;
                    if (c == null) {
                        sinceDue = 0;
                        runSafely(this::scheduledStep);
                        poolDepth = router.pool().size();
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
                    poolDepth = router.pool().size();
                }
            }
        } catch (InterruptedException e) {
            LOG.debug("dispatch thread interrupted", e);
        } finally {
            terminated = true;
            IllegalStateException stoppedCause = new IllegalStateException("the router is stopped");
            drainAbandoned();
            inFlight.forEachValue(r -> r.placed.completeExceptionally(stoppedCause));
            inFlight.clear();
        }
    }

    /**
     * Nanoseconds until the next step is due: 0 now, -1 none. Automatic steps come every
     * {@code stepIntervalMillis}; asked-for steps at once when no cadence is known yet or a
     * decode step period has passed since the last step, else when it has.
     */
    private long untilNextStep() {
        long now = clock.getAsLong();
        long wait = -1;
        if (applied.stepIntervalMillis() > 0) {
            wait = Math.max(0, nextAutoStep - now); // differences only: the clock may be negative
        }
        if (stepWanted) {
            long asked = Math.max(0, lastStepAt + observedStepNanos - now);
            wait = wait < 0 ? asked : Math.min(wait, asked);
        }
        return wait;
    }

    private void scheduledStep() {
        long now = clock.getAsLong();
        stepWanted = false;
        if (applied.stepIntervalMillis() > 0 && now - nextAutoStep >= 0) {
            nextAutoStep = now + TimeUnit.MILLISECONDS.toNanos(applied.stepIntervalMillis());
        }
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
            // A faulty policy or predictor must not kill the loop.
            LOG.error("dispatch thread: command failed", e);
        }
    }

    private void doSubmit(InFlight r) {
        long id = r.request.id();
        if (!inFlight.putIfAbsent(id, r)) {
            r.placed.completeExceptionally(new IllegalArgumentException("request " + id + " is already in flight"));
            return;
        }
        try {
            router.submit(r.request);
        } catch (RuntimeException e) {
            inFlight.remove(id);
            r.placed.completeExceptionally(e);
            return;
        }
        if (r.request.phase() != TrackedRequest.Phase.POOLED) {
            r.placed.complete(new Placement(id, r.request.worker()));
        }
    }

    private void doTokens(long id, int count, long at) {
        InFlight r = inFlight.get(id);
        if (r == null) {
            LOG.debug("tokens for request {}, which is not in flight", id);
            return;
        }
        TrackedRequest.Phase phase = r.request.phase();
        if (phase != TrackedRequest.Phase.RUNNING && phase != TrackedRequest.Phase.QUEUED) {
            LOG.warn("tokens for request {}, which is {} and not on a worker; ignored", id, phase);
            return;
        }
        router.onTokens(r.request, count);
        observeCadence(r, count, at);
    }

    /**
     * Learns the decode step period from one request's stream: every running request gains one
     * token per step (the barrier), so the time between two of its reports over the tokens they
     * carried is a step's length. The first report of a request is skipped (it includes the time
     * before its first step).
     */
    private void observeCadence(InFlight r, int count, long at) {
        long last = r.lastTokensAt;
        r.lastTokensAt = at;
        if (last == 0 || at <= last) {
            return;
        }
        long sample = (at - last) / count;
        if (sample > MAX_STEP_NANOS) {
            return;
        }
        long period = observedStepNanos;
        observedStepNanos = period == 0 ? sample : period + (sample - period) / PERIOD_SMOOTHING;
    }

    private boolean doComplete(long id) {
        InFlight r = inFlight.get(id);
        if (r == null) {
            return false;
        }
        TrackedRequest.Phase phase = r.request.phase();
        if (phase != TrackedRequest.Phase.RUNNING && phase != TrackedRequest.Phase.QUEUED) {
            throw new IllegalStateException("request " + id + " is " + phase
                    + ", not on a worker: abort it instead of completing it");
        }
        inFlight.remove(id);
        router.complete(r.request);
        afterRelease();
        return true;
    }

    private boolean doAbort(long id) {
        InFlight r = inFlight.remove(id);
        if (r == null) {
            return false;
        }
        router.abort(r.request);
        r.placed.cancel(false);
        afterRelease();
        return true;
    }

    private StepResult doStep(boolean report) {
        long started = System.nanoTime();
        lastStepAt = clock.getAsLong();
        long step = cluster.step();
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
        return new StepResult(step, activeName, report ? placements : List.of(), depth);
    }

    /** Sets (or clears, with null) the step observer. Any thread. */
    void observer(DispatchObserver o) {
        observer = o;
    }

    /** Tells the observer about a step: O(G), no allocation; its failures are logged and ignored. */
    private void observeStep(DispatchObserver o, long durationNanos, int depth) {
        long max = Long.MIN_VALUE;
        long min = Long.MAX_VALUE;
        for (int g = 0, w = cluster.workers(); g < w; g++) {
            long l = cluster.load(g);
            max = Math.max(max, l);
            min = Math.min(min, l);
        }
        try {
            o.stepCompleted(durationNanos, max >= min ? max - min : 0, depth);
        } catch (RuntimeException e) {
            LOG.warn("router: the dispatch observer failed: {}", e.toString());
        }
    }

    private ClusterSnapshot takeSnapshot() {
        return cluster.snapshot(SOURCE, clock.getAsLong(), router.pool().size());
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

    /** Completes the placement futures of the copied requests that left the pool. */
    private void notifyPlaced(int n, List<Placement> placements) {
        for (int i = 0; i < n; i++) {
            TrackedRequest r = poolCopy[i];
            poolCopy[i] = null;
            if (r.phase() != TrackedRequest.Phase.POOLED && r.worker() >= 0) {
                Placement p = new Placement(r.id(), r.worker());
                if (placements != null) {
                    placements.add(p);
                }
                InFlight f = inFlight.get(r.id());
                if (f != null) {
                    f.placed.complete(p);
                }
            }
        }
        if (placements != null && placements.size() > 1) {
            // the order of the policy's assignments is not kept: report by worker, then id
            placements.sort((a, b) -> a.worker() != b.worker() ? Integer.compare(a.worker(), b.worker())
                    : Long.compare(a.requestId(), b.requestId()));
        }
    }

    /** Health-check ejection and re-admission: enqueued, applied in order like every other command. */
    void setWorkerAvailable(int worker, boolean available) {
        enqueue(() -> {
            if (worker < 0 || worker >= cluster.workers()) {
                LOG.debug("router: availability of worker {}, outside [0, {}); ignored", worker, cluster.workers());
            } else if (router.setWorkerAvailable(worker, available)) {
                LOG.info("router: worker {} {}", worker, available ? "is back in routing" : "is out of routing");
            }
        });
    }

    private void teachPredictors(RequestView request, int outputTokens) {
        for (TerminationPredictor p : predictors) {
            try {
                p.onCompleted(request, outputTokens);
            } catch (RuntimeException e) {
                LOG.error("predictor {} failed to learn a completion", p.name(), e);
            }
        }
    }

    private void applySettings() {
        RouterSettings next = settings;
        RouterSettings previous = applied;
        if (next.stepIntervalMillis() != previous.stepIntervalMillis()) {
            nextAutoStep = clock.getAsLong() + TimeUnit.MILLISECONDS.toNanos(next.stepIntervalMillis());
            LOG.info("router: stepping {}", next.stepIntervalMillis() == 0 ? "manual"
                    : "automatic, every " + next.stepIntervalMillis() + " ms");
        }
        boolean reshape = previous.shapeDiffers(next);
        applied = next;
        if (reshape) {
            if (inFlight.isEmpty()) {
                rebuildCluster();
            } else {
                resizeWaiting = true;
                LOG.warn("router: workers={} capacity={} take effect once the {} requests in flight are done",
                        next.workers(), next.capacity(), inFlight.size());
            }
        }
    }

    private void afterRelease() {
        if (resizeWaiting && inFlight.isEmpty()) {
            rebuildCluster();
        }
    }

    private void rebuildCluster() {
        resizeWaiting = false;
        if (cluster.workers() == applied.workers() && cluster.capacity() == applied.capacity()) {
            return;
        }
        ClusterState before = cluster;
        cluster = new ClusterState(applied.workers(), applied.capacity());
        router = new Router(cluster, router.policy(), List.of(predictorFanout));
        for (int g = 0, n = Math.min(before.workers(), cluster.workers()); g < n; g++) {
            router.setWorkerAvailable(g, before.available(g)); // a down engine stays out of routing
        }
        LOG.info("router: cluster is now {} workers x {} slots", applied.workers(), applied.capacity());
    }

    private void applySelection() {
        RouterSettings s = settings;
        Map<String, RoutingPolicy> policies = available;
        RoutingPolicy next = policies.get(s.policy());
        Mode mode = Mode.CONFIGURED;
        String name = s.policy();
        if (next == null) {
            next = policies.get(s.fallbackPolicy());
            mode = Mode.FALLBACK;
            name = s.fallbackPolicy();
        }
        if (next == null) {
            next = hold;
            mode = Mode.NONE;
            name = RouterService.NO_POLICY;
        }
        activeName = name; // before the placements below complete anyone's future
        if (next != router.policy()) {
            int n = copyPool();
            try {
                router.setPolicy(next);
            } finally {
                notifyPlaced(n, null);
            }
        }
        logTransition(new Selection(mode, s.policy(), s.fallbackPolicy(), name));
    }

    private void logTransition(Selection now) {
        Selection before = lastSelection;
        lastSelection = now;
        if (now.equals(before)) {
            return;
        }
        switch (now.mode()) {
            case CONFIGURED -> {
                if (before != null && before.mode() != Mode.CONFIGURED && before.configured().equals(now.configured())) {
                    LOG.info("router: policy '{}' is available again and active (was '{}')", now.active(), before.active());
                } else {
                    LOG.info("router: policy '{}' active", now.active());
                }
            }
            case FALLBACK -> LOG.warn("router: configured policy '{}' is not available; falling back to '{}'",
                    now.configured(), now.active());
            case NONE -> LOG.error("router: neither the configured policy '{}' nor the fallback '{}' is available; "
                    + "requests wait in the prompt pool until one is", now.configured(), now.fallback());
        }
    }
}
