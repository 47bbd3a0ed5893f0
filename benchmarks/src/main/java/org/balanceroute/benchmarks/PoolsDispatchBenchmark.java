package org.balanceroute.benchmarks;

import java.util.concurrent.TimeUnit;
import org.balanceroute.api.RoutingPolicy;
import org.balanceroute.core.DecodeLayout;
import org.balanceroute.core.Router;
import org.balanceroute.policy.balance.BalancePolicy;
import org.balanceroute.policy.balance.BalanceSettings;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * The dispatch step's cost with pools of decode instances (issue 22): {@code pools} pools, each
 * its own {@link Router} over its own {@link DecodeLayout} and its own BR-0
 * ({@link BalancePolicy#br0} with {@link BalanceSettings#defaults()}), against one pool of one
 * instance, in one run.
 *
 * <p>Every pool holds 16 workers of B = 64 in {@link DispatchBenchmark}'s heavy-load steady state
 * (60..64 running per worker, 0..700 tokens decoded, a prompt pool of {@code poolSize}), so a pool
 * step does the same work whatever the layout: {@code layout=1x16} is one instance of 16 (pool 0
 * is drawn from the same seed as {@code DispatchBenchmark.steadyState} at G=16: the same state),
 * {@code layout=2x8} is {@code DecodeLayout.of(new int[] {8, 8}, 64)}, two instances of 8, the
 * same 16 workers holding the same requests. Pool p &gt; 0 draws its own state (seed + 101 p).
 *
 * <ul>
 *   <li>{@link #poolStep}: one pool's dispatch step; invocations go round the pools (pool 0, 1, 2,
 *       3, 0, ...), so the percentiles are per pool step with the pools' states side by side in
 *       memory, as one dispatch thread serving every pool would meet them.</li>
 *   <li>{@link #allPools}: one dispatch step of every pool in turn (what that thread pays per
 *       decode step).</li>
 * </ul>
 *
 * The states are rebuilt before each invocation, outside the measured time: only the pool about
 * to step in {@link #poolStep}, every pool in {@link #allPools}.
 */
@BenchmarkMode(Mode.SampleTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Fork(value = 1, jvmArgsAppend = {"-Xms2g", "-Xmx2g"})
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 3)
public class PoolsDispatchBenchmark {

    static final int WORKERS = 16;
    static final long POOL_SEED_STEP = 101;

    static DecodeLayout layout(String name) {
        return switch (name) {
            case "1x16" -> DecodeLayout.single(WORKERS, DispatchBenchmark.CAPACITY);
            case "2x8" -> DecodeLayout.of(new int[] {8, 8}, DispatchBenchmark.CAPACITY);
            default -> throw new IllegalArgumentException("unknown layout " + name + " (expected 1x16 or 2x8)");
        };
    }

    /** The pools' drawn states, policies and routers. */
    @State(Scope.Thread)
    public abstract static class PoolsState {

        @Param({"1x16", "2x8"})
        public String layout;

        @Param({"1", "4"})
        public int pools;

        @Param({"512"})
        public int poolSize;

        DecodeLayout decode;
        Scenario[] scenarios;
        RoutingPolicy[] policies;
        Router[] routers;

        @Setup(Level.Trial)
        public void drawState() {
            BalanceSettings settings = DispatchBenchmark.settings();
            decode = layout(layout);
            scenarios = new Scenario[pools];
            policies = new RoutingPolicy[pools];
            routers = new Router[pools];
            for (int p = 0; p < pools; p++) {
                scenarios[p] = Scenario.steady(WORKERS, DispatchBenchmark.CAPACITY, poolSize,
                        DispatchBenchmark.MIN_RUNNING, DispatchBenchmark.MAX_RUNNING, DispatchBenchmark.MAX_DECODED,
                        DispatchBenchmark.SEED + WORKERS + POOL_SEED_STEP * p);
                policies[p] = BalancePolicy.br0(settings);
                System.out.println("pool " + p + " " + layout + ": "
                        + scenarios[p].describe(policies[p], settings.sGreedyFor(WORKERS), decode));
                routers[p] = scenarios[p].build(policies[p], decode);
            }
        }
    }

    /** Rebuilds the next pool in turn before each invocation. */
    public static class PoolStepState extends PoolsState {

        int current = -1;

        @Setup(Level.Invocation)
        public void rebuildNext() {
            current = (current + 1) % pools;
            routers[current] = scenarios[current].build(policies[current], decode);
        }
    }

    /** Rebuilds every pool before each invocation. */
    public static class AllPoolsState extends PoolsState {

        @Setup(Level.Invocation)
        public void rebuildAll() {
            for (int p = 0; p < pools; p++) {
                routers[p] = scenarios[p].build(policies[p], decode);
            }
        }
    }

    /** One pool's dispatch step (the pools in turn); returns how many requests left its prompt pool. */
    @Benchmark
    public int poolStep(PoolStepState state) {
        return state.routers[state.current].dispatch();
    }

    /** One dispatch step of every pool, one after the other; returns how many requests were placed. */
    @Benchmark
    public int allPools(AllPoolsState state) {
        int placed = 0;
        for (Router r : state.routers) {
            placed += r.dispatch();
        }
        return placed;
    }
}
