package org.balanceroute.simulator;

import java.util.Arrays;
import java.util.List;
import java.util.function.IntConsumer;
import java.util.function.IntFunction;
import org.balanceroute.api.CompletionListener;
import org.balanceroute.api.RoutingPolicy;
import org.balanceroute.core.DecodeLayout;
import org.balanceroute.core.PoolState;
import org.balanceroute.core.Router;
import org.balanceroute.core.StepCost;
import org.balanceroute.core.TrackedRequest;
import org.balanceroute.trace.TraceRequest;

/**
 * Discrete-event simulation of a DP decode tier at decode-step resolution: one decode instance
 * (one barrier) by default, or several, each on its own clock ({@link SimulationConfig#layout}).
 *
 * <p>Each request arrives at its trace time, spends {@link SimulationConfig#prefillSeconds} in
 * the prefill tier (which has no queue of its own here), and is handed to the {@link Router}:
 * pool policies leave it in the prompt pool, arrival policies route it at once. Then, step after
 * step: the router dispatches; every worker's running requests form the batch; the step lasts
 * {@code a * max_g L_g + b + c * max_g |A_g|} because all G workers meet at a barrier; each
 * running request emits one token and its KV load grows by one; finished requests release their
 * slot. When nothing runs, time jumps to the next arrival. Deterministic: the policy's seeded
 * randomness is the only randomness.
 *
 * <p>With one proxy ({@link ProxyReplicas#SINGLE}) the router's {@link PoolState} is the
 * engine: what the router believes is what runs. With several proxy replicas the engine and the
 * routers' views part, and {@link ReplicaSimulation} runs the model (its class comment says what
 * is delayed for whom).
 */
public final class DecodeSimulator {

    /** Body size model for the vllm-ascend rule: ~4 bytes of text per prompt token plus the JSON envelope. */
    static final int BODY_BYTES_PER_TOKEN = 4;
    static final int BODY_BYTES_ENVELOPE = 200;

    private final SimulationConfig config;
    private final ProxyReplicas replicas;
    private final SteadyState steady;

    /** One proxy in front of the decode tier. */
    public DecodeSimulator(SimulationConfig config) {
        this(config, ProxyReplicas.SINGLE);
    }

    public DecodeSimulator(SimulationConfig config, ProxyReplicas replicas) {
        this(config, replicas, SteadyState.DEFAULT);
    }

    /** @param steady which steps the steady-state figures of the result cover */
    public DecodeSimulator(SimulationConfig config, ProxyReplicas replicas, SteadyState steady) {
        this.config = config;
        this.replicas = replicas;
        this.steady = steady;
    }

    /**
     * Runs the whole trace through one router: one proxy, or the dispatcher of several.
     *
     * @param learners told of every completion the router sees (the policy's predictors)
     * @param observer sees every step of the engine, e.g. to record per-worker loads
     * @param progress told the number of completed requests now and then
     * @throws IllegalStateException in gossip or independent mode with several replicas, where each
     *     replica needs a policy of its own: use {@link #run(List, IntFunction, StepObserver, IntConsumer)}
     */
    public SimulationResult run(List<TraceRequest> trace, RoutingPolicy policy,
            List<? extends CompletionListener> learners, StepObserver observer, IntConsumer progress) {
        if (replicas.routers() > 1) {
            throw new IllegalStateException(replicas.mode().optionValue() + " mode with " + replicas.count()
                    + " replicas runs a router per replica: give a policy per replica");
        }
        PolicyCatalog.Setup setup = new PolicyCatalog.Setup(policy, List.copyOf(learners));
        return run(trace, replica -> setup, observer, progress);
    }

    /**
     * Runs the whole trace, each router with a policy of its own.
     *
     * @param setups the policy and its learners of router r, for r in [0, {@link ProxyReplicas#routers()});
     *     each call must build new objects (a policy holds its router's state)
     */
    public SimulationResult run(List<TraceRequest> trace, IntFunction<PolicyCatalog.Setup> setups,
            StepObserver observer, IntConsumer progress) {
        if (replicas.count() > 1) {
            if (config.grouped()) {
                throw new IllegalArgumentException("--groups: several decode instances are modelled with one proxy"
                        + " only, not with --replicas " + replicas.count());
            }
            return new ReplicaSimulation(config, replicas, steady).run(trace, setups, observer, progress);
        }
        PolicyCatalog.Setup setup = setups.apply(0);
        return runSingle(trace, setup.policy(), setup.learners(), observer, progress);
    }

    /**
     * One proxy: the router's cluster state is the engine. The hot path of every sweep.
     *
     * <p>Each decode instance (group of {@link SimulationConfig#layout}) is its own barrier on its
     * own clock: its step starts when its previous one ends (or, idle, at the next event) and lasts
     * {@code StepCost.seconds} of its own heaviest rank and largest batch. Event-driven: the next
     * event is the earliest step end of the instances; an arrival is an event too while some
     * instance idles (with one instance: when nothing runs, time jumps to it, as always). At each
     * event, in this order: the instances whose step ends now emit their tokens (in group order),
     * the arrivals up to now are submitted, the router dispatches once (so every step boundary of
     * any instance is a dispatch opportunity, and a placement on an instance in the middle of its
     * step joins its next batch), and every idle instance with running requests starts a step.
     * With one instance this is the single-barrier loop, step for step.
     */
    private SimulationResult runSingle(List<TraceRequest> trace, RoutingPolicy policy,
            List<? extends CompletionListener> learners, StepObserver observer, IntConsumer progress) {
        PreparedTrace prepared = new PreparedTrace(trace, config);
        int n = prepared.size;
        DecodeLayout layout = config.layout();
        int groups = layout.groups();
        PoolState state = new PoolState(layout);
        Router router = new Router(state, policy, learners);
        router.viewAsOneBarrier(config.flatView());
        double[] ready = prepared.ready;
        int[] output = prepared.output;
        int[] order = prepared.order;
        double[] firstToken = new double[n];
        double[] finish = new double[n];
        RunMetrics metrics = new RunMetrics(steady.window(trace), groups);
        // per instance: when its step ends (infinite while it idles); per worker: its batch of that step
        double[] stepEnd = new double[groups];
        Arrays.fill(stepEnd, Double.POSITIVE_INFINITY);
        int[] batch = new int[layout.workers()];

        double time = 0;
        int next = 0;
        StepCost stepCost = config.stepCost();
        int completed = 0;
        long events = 0;
        while (completed < n) {
            while (next < n && ready[order[next]] <= time) {
                int id = order[next++];
                TraceRequest t = trace.get(id);
                TrackedRequest r = new TrackedRequest(id, t.inputTokens(), t.promptKey(), bodyBytes(t), 0);
                router.submit(r);
                if (r.phase() == TrackedRequest.Phase.QUEUED) {
                    metrics.routerQueuedPlacements++;
                    metrics.overCapacityPlacements++;
                }
            }
            router.dispatch();

            boolean stepping = false, idle = false;
            double end = Double.POSITIVE_INFINITY;
            for (int i = 0; i < groups; i++) {
                if (stepEnd[i] == Double.POSITIVE_INFINITY
                        && metrics.measure(state, i, layout.start(i), layout.size(i))) {
                    double stepSeconds = stepCost.seconds(metrics.maxLoad(), metrics.maxBatch());
                    metrics.recordStep(!router.pool().isEmpty(), time, stepSeconds);
                    observer.onStep(metrics.steps - 1, time, state);
                    stepEnd[i] = time + stepSeconds;
                    for (int g = layout.start(i), last = g + layout.size(i); g < last; g++) {
                        batch[g] = state.running(g);
                    }
                }
                stepping |= stepEnd[i] != Double.POSITIVE_INFINITY;
                idle |= stepEnd[i] == Double.POSITIVE_INFINITY;
                end = Math.min(end, stepEnd[i]);
            }
            if (!stepping) {
                if (next == n) {
                    throw stuck(policy, n - completed);
                }
                time = Math.max(time, ready[order[next]]);
                continue;
            }
            if (idle && next < n && ready[order[next]] < end) {
                time = Math.max(time, ready[order[next]]); // an idle instance may take it at once
                continue;
            }
            time = end;

            for (int i = 0; i < groups; i++) {
                if (stepEnd[i] != end) {
                    continue;
                }
                stepEnd[i] = Double.POSITIVE_INFINITY;
                // Backwards, because completing swaps the last running request into the freed slot;
                // only the step's batch: a request placed during the step runs from the next one.
                for (int g = layout.start(i), last = g + layout.size(i); g < last; g++) {
                    for (int k = batch[g] - 1; k >= 0; k--) {
                        TrackedRequest r = state.active(g, k);
                        router.onTokens(r, 1);
                        int id = (int) r.id();
                        if (r.decodedTokens() == 1) {
                            firstToken[id] = time;
                        }
                        if (r.decodedTokens() >= output[id]) {
                            finish[id] = time;
                            router.complete(r);
                            completed++;
                        }
                    }
                }
            }
            state.advanceStep();
            if ((++events & 1023) == 0) {
                progress.accept(completed);
            }
        }
        progress.accept(completed);
        return metrics.summarize(policy.name(), trace, firstToken, finish, prepared.totalTokens);
    }

    static int bodyBytes(TraceRequest t) {
        return BODY_BYTES_ENVELOPE + BODY_BYTES_PER_TOKEN * t.inputTokens();
    }

    static IllegalStateException stuck(RoutingPolicy policy, int waiting) {
        return new IllegalStateException("policy " + policy.name() + " left " + waiting
                + " requests waiting with every worker idle");
    }
}
