package org.balanceroute.simulator;

import java.util.Arrays;
import java.util.List;
import java.util.function.IntConsumer;
import org.balanceroute.api.CompletionListener;
import org.balanceroute.api.RoutingPolicy;
import org.balanceroute.core.ClusterState;
import org.balanceroute.core.Router;
import org.balanceroute.core.TrackedRequest;
import org.balanceroute.trace.TraceRequest;

/**
 * Discrete-event simulation of a DP decode tier at decode-step resolution.
 *
 * <p>Each request arrives at its trace time, spends {@link SimulationConfig#prefillSeconds} in
 * the prefill tier (which has no queue of its own here), and is handed to the {@link Router}:
 * pool policies leave it in the prompt pool, arrival policies route it at once. Then, step after
 * step: the router dispatches; every worker's running requests form the batch; the step lasts
 * {@code a * max_g L_g + b + c * max_g |A_g|} because all G workers meet at a barrier; each
 * running request emits one token and its KV load grows by one; finished requests release their
 * slot. When nothing runs, time jumps to the next arrival. Deterministic: the policy's seeded
 * randomness is the only randomness.
 */
public final class DecodeSimulator {

    /** Body size model for the vllm-ascend rule: ~4 bytes of text per prompt token plus the JSON envelope. */
    static final int BODY_BYTES_PER_TOKEN = 4;
    static final int BODY_BYTES_ENVELOPE = 200;

    private final SimulationConfig config;

    public DecodeSimulator(SimulationConfig config) {
        this.config = config;
    }

    /**
     * Runs the whole trace through one policy.
     *
     * @param learners told of every completion (the policy's predictors)
     * @param observer sees every step, e.g. to record per-worker loads
     * @param progress told the number of completed requests now and then
     */
    public SimulationResult run(List<TraceRequest> trace, RoutingPolicy policy,
            List<? extends CompletionListener> learners, StepObserver observer, IntConsumer progress) {
        int n = trace.size();
        int workers = config.workers();
        ClusterState cluster = new ClusterState(workers, config.capacity());
        Router router = new Router(cluster, policy, learners);

        double[] ready = new double[n];
        int[] output = new int[n];
        long totalTokens = 0;
        for (int i = 0; i < n; i++) {
            TraceRequest t = trace.get(i);
            ready[i] = t.arrivalSeconds() + config.prefillSeconds(t.inputTokens());
            output[i] = t.outputTokens();
            totalTokens += output[i];
        }
        int[] order = readyOrder(ready);
        double[] firstToken = new double[n];
        double[] finish = new double[n];

        double time = 0;
        long steps = 0;
        double imbalanceSum = 0;
        double totalImbalanceSum = 0;
        double backloggedImbalanceSum = 0;
        long backloggedSteps = 0;
        int next = 0;
        int completed = 0;
        while (completed < n) {
            while (next < n && ready[order[next]] <= time) {
                int id = order[next++];
                TraceRequest t = trace.get(id);
                router.submit(new TrackedRequest(id, t.inputTokens(), t.promptKey(),
                        BODY_BYTES_ENVELOPE + BODY_BYTES_PER_TOKEN * t.inputTokens(), 0));
            }
            router.dispatch();

            long max = 0, min = Long.MAX_VALUE, sum = 0;
            int maxBatch = 0;
            boolean backlogged = !router.pool().isEmpty();
            for (int g = 0; g < workers; g++) {
                long l = cluster.load(g);
                max = Math.max(max, l);
                min = Math.min(min, l);
                sum += l;
                maxBatch = Math.max(maxBatch, cluster.running(g));
                backlogged |= cluster.queued(g) > 0;
            }
            if (maxBatch == 0) {
                if (next == n) {
                    throw new IllegalStateException("policy " + policy.name() + " left " + (n - completed)
                            + " requests waiting with every worker idle");
                }
                time = Math.max(time, ready[order[next]]);
                continue;
            }
            imbalanceSum += max - min;
            totalImbalanceSum += (double) workers * max - sum;
            if (backlogged) {
                backloggedImbalanceSum += max - min;
                backloggedSteps++;
            }
            observer.onStep(steps, time, cluster);
            time += config.stepSeconds(max, maxBatch);
            steps++;

            // Backwards, because completing swaps the last running request into the freed slot.
            for (int g = 0; g < workers; g++) {
                for (int i = cluster.running(g) - 1; i >= 0; i--) {
                    TrackedRequest r = cluster.active(g, i);
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
            cluster.advanceStep();
            if ((steps & 1023) == 0) {
                progress.accept(completed);
            }
        }
        progress.accept(completed);
        return summarize(policy.name(), trace, firstToken, finish, steps, imbalanceSum, totalImbalanceSum,
                backloggedSteps == 0 ? 0 : backloggedImbalanceSum / backloggedSteps, totalTokens);
    }

    /** Request indices by ready time; stable, so equal times keep trace order. Runs once per simulation. */
    private static int[] readyOrder(double[] ready) {
        return java.util.stream.IntStream.range(0, ready.length).boxed()
                .sorted((a, b) -> Double.compare(ready[a], ready[b]))
                .mapToInt(Integer::intValue).toArray();
    }

    private static SimulationResult summarize(String policy, List<TraceRequest> trace, double[] firstToken,
            double[] finish, long steps, double imbalanceSum, double totalImbalanceSum,
            double backloggedImbalance, long totalTokens) {
        int n = trace.size();
        double[] ttft = new double[n];
        double[] tpot = new double[n];
        int tpots = 0;
        double firstArrival = Double.MAX_VALUE, lastFinish = 0;
        for (int i = 0; i < n; i++) {
            TraceRequest t = trace.get(i);
            firstArrival = Math.min(firstArrival, t.arrivalSeconds());
            lastFinish = Math.max(lastFinish, finish[i]);
            ttft[i] = firstToken[i] - t.arrivalSeconds();
            if (t.outputTokens() > 1) {
                tpot[tpots++] = (finish[i] - firstToken[i]) / (t.outputTokens() - 1) * 1000;
            }
        }
        double makespan = n == 0 ? 0 : lastFinish - firstArrival;
        return new SimulationResult(policy,
                steps == 0 ? 0 : imbalanceSum / steps,
                steps == 0 ? 0 : totalImbalanceSum / steps,
                Percentiles.of(Arrays.copyOf(tpot, tpots), 0.95),
                makespan > 0 ? totalTokens / makespan : 0,
                Percentiles.of(ttft, 0.50),
                Percentiles.of(ttft, 0.95),
                steps, makespan, backloggedImbalance, totalTokens, n);
    }
}
