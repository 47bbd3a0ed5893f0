package org.balanceroute.simulator;

import java.util.List;
import java.util.function.IntConsumer;
import java.util.function.IntFunction;
import org.balanceroute.api.RoutingPolicy;
import org.balanceroute.core.PoolState;
import org.balanceroute.core.Router;
import org.balanceroute.core.StepCost;
import org.balanceroute.core.TrackedRequest;
import org.balanceroute.trace.TraceRequest;

/**
 * N proxy replicas in front of one DP decode tier, what one replica knows reaching another D
 * late ({@link ProxyReplicas}). Arrival i goes to replica i mod N (a load balancer in front of
 * the proxies); replica 0 is the oldest, so the dispatcher.
 *
 * <p>The engine ({@link EngineTier}) is the ground truth: it runs what it is sent, at most B per
 * worker and FCFS beyond, and every metric is measured on it. Each router is a core
 * {@link Router} over a {@link PoolState} of its own, fed with the events that have reached
 * it. What is delayed by D, for whom:
 * <ul>
 *   <li><b>dispatcher</b>: one router, replica 0's, over every replica's requests. Replica 0's
 *       own requests: nothing (it places them, sends them to the engine and relays their
 *       streams). A follower's request reaches the pool D after it is ready; the placement
 *       reaches the engine D after the dispatcher made it (the follower sends it on); its
 *       tokens and its completion reach the router D after the engine emitted them. So the
 *       router holds a follower's slot from placement to D after the end, never less than the
 *       engine does: a pool policy never overfills a worker. What D costs: per follower request
 *       its slot idle twice (from the placement until the engine starts it, from its end until
 *       the router hears of it: D each, rounded up to whole steps), and its load seen D stale.</li>
 *   <li><b>gossip</b>: a router per replica, over its own pool. Its own requests: nothing (it
 *       places them and sends them to the engine itself). Another replica's request appears on
 *       its worker D after it was placed there ({@link Router#restore}), gets its tokens D late
 *       and leaves D after it ended. Replicas that see the same free slots fill them at once.</li>
 *   <li><b>independent</b>: a router per replica over its own requests; the others' never reach it.</li>
 * </ul>
 *
 * <p>Time runs at decode-step resolution, as in {@link DecodeSimulator}: whatever has reached a
 * router by the start of a step is applied before that step's dispatch, in a fixed order
 * (mirrors of the others' placements, then tokens and completions, then arrivals into the pool,
 * or routed at once by arrival policies), then it dispatches; then the engine takes the
 * placements that have reached it, and the step runs. An event D late is thus applied at the
 * first step that starts D or more after it happened: with D below one step time (20 ms plus
 * a * M, hundreds of ms under load), one step late. Routers run one after another in replica
 * order; with D = 0 a later one sees an earlier one's placements in the same step. In dispatcher
 * mode with D = 0 nothing is delayed and the run is the single proxy's, step for step (the tests
 * pin it).
 *
 * <p>Not modelled: the dispatcher's own time per step (one dispatch step costs tens of
 * microseconds, see docs/results.md, "Speed", well under a decode step), any cost of the forwarding
 * beyond D (D is the whole one-way delay), lost or reordered events, replicas joining or leaving.
 * Each replica's policy has its own seed ({@link ProxyReplicas#seedOf}) and its own predictors,
 * which learn from every completion their router hears of.
 */
final class ReplicaSimulation {

    /** When an event reaches a router: at once, D late, or never. */
    private static final int NOW = 0;
    private static final int LATE = 1;
    private static final int NEVER = 2;

    private final SimulationConfig config;
    private final ProxyReplicas replicas;
    private final ReplicasMode mode;
    private final int count;
    private final double delay;
    private final SteadyState steady;

    ReplicaSimulation(SimulationConfig config, ProxyReplicas replicas, SteadyState steady) {
        this.config = config;
        this.steady = steady;
        this.replicas = replicas;
        this.mode = replicas.mode();
        this.count = replicas.count();
        this.delay = replicas.syncDelaySeconds();
    }

    SimulationResult run(List<TraceRequest> trace, IntFunction<PolicyCatalog.Setup> setups, StepObserver observer,
            IntConsumer progress) {
        PreparedTrace prepared = new PreparedTrace(trace, config);
        int n = prepared.size;
        int[] prompt = new int[n];
        for (int i = 0; i < n; i++) {
            prompt[i] = trace.get(i).inputTokens();
        }
        EngineTier engine = new EngineTier(config.workers(), config.capacity(), prompt, prepared.output);
        RunMetrics metrics = new RunMetrics(steady.window(trace));
        View[] views = new View[replicas.routers()];
        for (int r = 0; r < views.length; r++) {
            views[r] = new View(r, setups.apply(r), trace, prepared, metrics);
        }
        StepLog log = new StepLog();
        IntList record = new IntList();
        TimedQueue toEngineLate = new TimedQueue();
        IntList toEngineNow = new IntList();
        double[] firstToken = new double[n];
        double[] finish = new double[n];

        double time = 0;
        int ready = 0;
        StepCost stepCost = config.stepCost();
        int completed = 0;
        while (completed < n) {
            while (ready < n && prepared.ready[prepared.order[ready]] <= time) {
                ready++;
            }
            for (View v : views) {
                v.receive(time, log);
                v.router.dispatch();
                send(v, time, views, toEngineNow, toEngineLate);
            }
            // what the followers forwarded D ago is older than what was placed just now
            while (toEngineLate.due(time)) {
                reach(engine, toEngineLate.headRequest(), toEngineLate.headWorker(), metrics);
                toEngineLate.removeHead();
            }
            for (int k = 0; k < toEngineNow.size(); k += 2) {
                reach(engine, toEngineNow.get(k), toEngineNow.get(k + 1), metrics);
            }
            toEngineNow.clear();
            long oldestUnread = Long.MAX_VALUE;
            for (View v : views) {
                oldestUnread = Math.min(oldestUnread, v.oldestUnread());
            }
            log.discardBefore(oldestUnread);

            if (!metrics.measure(engine)) {
                double next = toEngineLate.nextDue();
                for (View v : views) {
                    next = Math.min(next, v.nextDue(log));
                }
                if (next == Double.POSITIVE_INFINITY) {
                    throw DecodeSimulator.stuck(views[0].policy, n - completed);
                }
                time = Math.max(time, next);
                continue;
            }
            double stepSeconds = stepCost.seconds(metrics.maxLoad(), metrics.maxBatch());
            metrics.recordStep(ready > engine.started(), time, stepSeconds);
            observer.onStep(metrics.steps - 1, time, engine);
            time += stepSeconds;

            record.clear();
            completed += engine.decodeStep(record);
            for (int k = 0, size = record.size(); k < size; k++) {
                int e = record.get(k);
                int id = e >= 0 ? e : ~e;
                if (engine.decoded(id) == 1) {
                    firstToken[id] = time;
                }
                if (e < 0) {
                    finish[id] = time;
                }
            }
            log.append(time, record);
            for (View v : views) {
                v.state.advanceStep();
            }
            if ((metrics.steps & 1023) == 0) {
                progress.accept(completed);
            }
        }
        // the engine is done; what is still on its way to a router arrives, and leaves every view empty
        for (View v : views) {
            v.receive(Double.POSITIVE_INFINITY, log);
            v.checkEmpty();
        }
        progress.accept(completed);
        return metrics.summarize(views[0].policy.name(), trace, firstToken, finish, prepared.totalTokens);
    }

    /** Sends router v's placements of this step on: to the engine, and in gossip to every other router. */
    private void send(View v, double time, View[] views, IntList toEngineNow, TimedQueue toEngineLate) {
        IntList placed = v.placed;
        for (int k = 0; k < placed.size(); k += 2) {
            int id = placed.get(k);
            int g = placed.get(k + 1);
            if (mode == ReplicasMode.DISPATCHER && owner(id) != 0 && delay > 0) {
                toEngineLate.add(time + delay, id, g);
            } else {
                toEngineNow.add(id);
                toEngineNow.add(g);
            }
            if (mode == ReplicasMode.GOSSIP) {
                for (View other : views) {
                    if (other != v) {
                        other.mirrors.add(time + delay, id, g);
                    }
                }
            }
        }
        placed.clear();
    }

    private static void reach(EngineTier engine, int id, int g, RunMetrics metrics) {
        if (engine.receive(id, g)) {
            metrics.overCapacityPlacements++;
        }
    }

    private int owner(int id) {
        return id % count;
    }

    /** One router: the dispatcher, or one replica's in gossip and independent mode. */
    private final class View {

        final int index;
        final RoutingPolicy policy;
        final PoolState state;
        final Router router;
        final IntList placed = new IntList();
        /** Other replicas' placements on their way here (gossip). */
        final TimedQueue mirrors = new TimedQueue();
        private final List<TraceRequest> trace;
        private final PreparedTrace prepared;
        private final RunMetrics metrics;
        private final TrackedRequest[] byId;
        private final boolean readsLate;
        /** Next engine step to read, of the events that come at once and of those D late. */
        private long nowStep;
        private long lateStep;
        /** Next position in ready order to look at, for arrivals that come at once and D late. */
        private int nowArrival;
        private int lateArrival;

        View(int index, PolicyCatalog.Setup setup, List<TraceRequest> trace, PreparedTrace prepared,
                RunMetrics metrics) {
            this.index = index;
            this.policy = setup.policy();
            this.state = new PoolState(config.workers(), config.capacity());
            this.router = new Router(state, new PlacementRecorder(policy, (view, id, g) -> {
                placed.add(id);
                placed.add(g);
            }), setup.learners());
            this.trace = trace;
            this.prepared = prepared;
            this.metrics = metrics;
            this.byId = new TrackedRequest[prepared.size];
            this.readsLate = delay > 0 && mode != ReplicasMode.INDEPENDENT;
        }

        /** When the events of a request of replica {@code owner} reach this router. */
        private int reachOf(int owner) {
            boolean own = mode == ReplicasMode.DISPATCHER ? owner == 0 : owner == index;
            if (own) {
                return NOW;
            }
            if (mode == ReplicasMode.INDEPENDENT) {
                return NEVER;
            }
            return delay > 0 ? LATE : NOW;
        }

        /** Whether this router takes replica {@code owner}'s arrivals into its pool. */
        private boolean pools(int owner) {
            return mode == ReplicasMode.DISPATCHER || owner == index;
        }

        /** Applies everything that has reached this router by {@code time}, in the documented order. */
        void receive(double time, StepLog log) {
            while (mirrors.due(time)) {
                int id = mirrors.headRequest();
                TrackedRequest r = newRequest(id);
                router.restore(r, mirrors.headWorker(), 0);
                mirrors.removeHead();
            }
            if (readsLate) {
                for (; lateStep < log.tail() && log.time(lateStep) + delay <= time; lateStep++) {
                    apply(log, lateStep, LATE);
                }
            }
            for (; nowStep < log.tail() && log.time(nowStep) <= time; nowStep++) {
                apply(log, nowStep, NOW);
            }
            while (true) {
                skipArrivals();
                double now = arrivalDue(nowArrival, 0);
                double late = arrivalDue(lateArrival, delay);
                boolean takeNow = now < late || (now == late && nowArrival < lateArrival);
                double due = takeNow ? now : late;
                if (due > time || due == Double.POSITIVE_INFINITY) {
                    break;
                }
                submit(prepared.order[takeNow ? nowArrival++ : lateArrival++]);
            }
        }

        private void apply(StepLog log, long step, int reach) {
            for (int k = 0, size = log.size(step); k < size; k++) {
                int e = log.entry(step, k);
                int id = e >= 0 ? e : ~e;
                if (reachOf(owner(id)) != reach) {
                    continue;
                }
                TrackedRequest r = byId[id];
                if (r == null) {
                    throw new IllegalStateException("router " + index + " heard of a token of request " + id
                            + " before the request itself");
                }
                router.onTokens(r, 1);
                if (e < 0) {
                    router.complete(r);
                }
            }
        }

        private void skipArrivals() {
            int n = prepared.size;
            int[] order = prepared.order;
            while (nowArrival < n && !arrives(order[nowArrival], NOW)) {
                nowArrival++;
            }
            while (lateArrival < n && !arrives(order[lateArrival], LATE)) {
                lateArrival++;
            }
        }

        private boolean arrives(int id, int reach) {
            int owner = owner(id);
            return pools(owner) && reachOf(owner) == reach;
        }

        private double arrivalDue(int position, double late) {
            return position < prepared.size ? prepared.ready[prepared.order[position]] + late
                    : Double.POSITIVE_INFINITY;
        }

        private void submit(int id) {
            TrackedRequest r = newRequest(id);
            router.submit(r);
            if (r.phase() != TrackedRequest.Phase.POOLED) {
                placed.add(id);
                placed.add(r.worker());
                if (r.phase() == TrackedRequest.Phase.QUEUED) {
                    metrics.routerQueuedPlacements++;
                }
            }
        }

        private TrackedRequest newRequest(int id) {
            TraceRequest t = trace.get(id);
            TrackedRequest r = new TrackedRequest(id, t.inputTokens(), t.promptKey(), DecodeSimulator.bodyBytes(t), 0);
            byId[id] = r;
            return r;
        }

        void checkEmpty() {
            for (int g = 0; g < state.workers(); g++) {
                if (state.running(g) + state.queued(g) > 0) {
                    throw new IllegalStateException("router " + index + " still holds " + state.running(g)
                            + " running and " + state.queued(g) + " queued on worker " + g + " after the run");
                }
            }
            if (!router.pool().isEmpty() || !mirrors.isEmpty()) {
                throw new IllegalStateException("router " + index + " still has requests waiting after the run");
            }
        }

        /** The first engine step this router has not read yet; the log keeps it. */
        long oldestUnread() {
            return readsLate ? lateStep : nowStep;
        }

        /** The next time something reaches this router; +infinity if nothing is on its way. */
        double nextDue(StepLog log) {
            skipArrivals();
            double next = Math.min(arrivalDue(nowArrival, 0), arrivalDue(lateArrival, delay));
            next = Math.min(next, mirrors.nextDue());
            if (readsLate && lateStep < log.tail()) {
                next = Math.min(next, log.time(lateStep) + delay);
            }
            if (nowStep < log.tail()) {
                next = Math.min(next, log.time(nowStep));
            }
            return next;
        }
    }
}
