package org.balanceroute.benchmarks;

import java.util.concurrent.TimeUnit;
import org.balanceroute.api.PoolView;
import org.balanceroute.api.RoutingPolicy;
import org.balanceroute.core.Router;
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
 * The cost of ONE dispatch step, {@link Router#dispatch()}, of BR-0 and BR-H (survival
 * predictor) as the dispatch loop pays it once per decode step. The spec's budget is well under
 * 1 ms (section 1, property 4).
 *
 * <p>Settings: B = 64 slots per worker, R_max = 8, H = 80 and the other
 * {@link BalanceSettings#defaults()} (S_greedy = G, alpha 1, beta 14.67, gamma 0.64, confidence
 * 0.5). BR-H's survival predictor is warm-started with 10,000 seeded Mooncake-like output lengths
 * (mean ~350, median ~350, p95 ~700).
 *
 * <ul>
 *   <li>{@link #steadyState}: heavy-load steady state. Every worker runs 60..64 requests, each
 *       already decoded 0..700 tokens; Mooncake-like prompts (median ~7,000, mean ~12,000, p95
 *       ~40,000 tokens); a pool of {@code poolSize} waiting requests. Total free slots land
 *       around G..3G, so a few greedy Stage 1 placements run and then Stage 2 (subset search
 *       over the R_max oldest, up to 2^8 subsets per worker) visits every worker with a free
 *       slot.</li>
 *   <li>{@link #abundantEmptyCluster}: ABUNDANT CAPACITY. Every worker empty, G*64 free slots, a
 *       pool of {@code poolSize}: Stage 1 places one request at a time (best of the whole pool for
 *       the freest worker) until the pool empties or S_tot <= S_greedy; at most min(poolSize,
 *       G*64 - G) placements. A start-up / after-a-lull case, not the steady state.</li>
 * </ul>
 *
 * Dispatch mutates the state, so it is rebuilt before every invocation
 * ({@link Level#Invocation}, outside the measured time) from arrays drawn once per trial with a
 * fixed seed per G: every invocation measures the same state, and br0 and brh-survival see the
 * same state at the same G. Mode is {@link Mode#SampleTime}, so JMH reports mean and percentiles.
 */
@BenchmarkMode(Mode.SampleTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Fork(value = 1, jvmArgsAppend = {"-Xms2g", "-Xmx2g"})
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 3)
public class DispatchBenchmark {

    /** B: per-worker concurrency cap. */
    static final int CAPACITY = PoolView.DEFAULT_CAPACITY;
    static final int MIN_RUNNING = 60;
    static final int MAX_RUNNING = 64;
    static final int MAX_DECODED = 700;
    static final long SEED = 0xBA1A_2CE0L;

    static BalanceSettings settings() {
        return BalanceSettings.defaults(); // R_max = 8, H = 80, S_greedy = G
    }

    /** A drawn cluster state and the policy under test, rebuilt before each invocation. */
    @State(Scope.Thread)
    public abstract static class DispatchState {

        @Param({Policies.BR0, Policies.BRH_SURVIVAL})
        public String policy;

        @Param({"8", "16", "32"})
        public int workers;

        @Param({"512"})
        public int poolSize;

        Scenario scenario;
        RoutingPolicy underTest;
        Router router;

        abstract Scenario draw();

        @Setup(Level.Trial)
        public void drawState() {
            BalanceSettings settings = settings();
            scenario = draw();
            underTest = Policies.create(policy, settings);
            System.out.println(scenario.describe(underTest, settings.sGreedyFor(workers)));
        }

        @Setup(Level.Invocation)
        public void rebuild() {
            router = scenario.build(underTest);
        }
    }

    /** Heavy-load steady state. */
    public static class SteadyState extends DispatchState {

        @Override
        Scenario draw() {
            return Scenario.steady(workers, CAPACITY, poolSize, MIN_RUNNING, MAX_RUNNING, MAX_DECODED,
                    SEED + workers);
        }
    }

    /** Abundant capacity: all workers empty. */
    public static class AbundantState extends DispatchState {

        @Override
        Scenario draw() {
            return Scenario.empty(workers, CAPACITY, poolSize, SEED + workers);
        }
    }

    /** One dispatch step in the heavy-load steady state; returns how many requests left the pool. */
    @Benchmark
    public int steadyState(SteadyState state) {
        return state.router.dispatch();
    }

    /** One dispatch step with abundant capacity (Stage 1 greedy only); returns requests placed. */
    @Benchmark
    public int abundantEmptyCluster(AbundantState state) {
        return state.router.dispatch();
    }
}
