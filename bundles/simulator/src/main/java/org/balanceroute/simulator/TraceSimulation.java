package org.balanceroute.simulator;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.function.IntConsumer;
import java.util.function.IntFunction;
import java.util.stream.Stream;
import org.balanceroute.chart.LoadChart;
import org.balanceroute.policy.balance.BalanceSettings;
import org.balanceroute.predictor.survival.SurvivalSettings;
import org.balanceroute.trace.TraceRequest;

/**
 * Policies named as operators name them, each run over one workload through the simulated decode
 * tier: what {@code balanceroute simulate}, {@code sweep} and {@code tune} share. A name is a
 * policy of {@link PolicyCatalog}, built fresh for each run (and for each proxy replica, seeded by
 * {@link ProxyReplicas#seedOf}), or {@link HeadroomReference#NAME}, the offline reference, which
 * runs with one proxy whatever the replicas.
 *
 * <p>Immutable: one instance may run several policies at once ({@link #runAll}).
 */
public final class TraceSimulation {

    /** Every policy, then the offline headroom reference (not a policy: the best of several runs). */
    public static final List<String> POLICIES = Stream.concat(PolicyCatalog.NAMES.stream(),
            Stream.of(HeadroomReference.NAME)).toList();

    /** How often {@link #runAll} reports progress while runs are under way. */
    static final long PROGRESS_INTERVAL_MS = 2000;

    /** What {@link #runAll} reports now and then. */
    @FunctionalInterface
    public interface Progress {
        /**
         * @param completed per policy, in the order given, the requests it has completed so far
         */
        void report(long elapsedMillis, int[] completed);
    }

    private final SimulationConfig config;
    private final ProxyReplicas replicas;
    private final SteadyState steady;
    private final BalanceSettings balance;
    private final SurvivalSettings predictor;
    private final List<TraceRequest> warmStart;

    /**
     * @param predictor the survival settings of the survival and exact-match predictors
     * @param warmStart finished requests those predictors learn from before each run; empty for a
     *     cold start
     */
    public TraceSimulation(SimulationConfig config, ProxyReplicas replicas, SteadyState steady,
            BalanceSettings balance, SurvivalSettings predictor, List<TraceRequest> warmStart) {
        this.config = config;
        this.replicas = replicas;
        this.steady = steady;
        this.balance = balance;
        this.predictor = predictor;
        this.warmStart = List.copyOf(warmStart);
    }

    /** Whether {@link #run} knows the name: one of {@link #POLICIES} or {@link PolicyCatalog#SIMULATOR_ONLY}. */
    public static boolean knows(String name) {
        return POLICIES.contains(name) || PolicyCatalog.SIMULATOR_ONLY.contains(name);
    }

    /** One policy over {@code requests}. */
    public SimulationResult run(List<TraceRequest> requests, String policy, IntConsumer progress) {
        return run(requests, policy, StepObserver.NONE, progress);
    }

    /**
     * One policy over {@code requests}; with a series directory also its per-step per-worker loads
     * as {@code POLICY.csv} and their chart as {@code POLICY.png} there (the headroom reference
     * records none: it is the best of several runs).
     *
     * @param seriesDir an existing directory, or null for no series
     * @param progress told the number of completed requests now and then
     * @throws IllegalArgumentException for an unknown name
     */
    public SimulationResult run(List<TraceRequest> requests, String policy, Path seriesDir, IntConsumer progress)
            throws IOException {
        if (seriesDir == null || policy.equals(HeadroomReference.NAME)) {
            return run(requests, policy, progress);
        }
        try (SeriesRecorder series = new SeriesRecorder(seriesDir.resolve(policy + ".csv"), config.workers())) {
            SimulationResult result = run(requests, policy, series, progress);
            LoadChart.write(seriesDir.resolve(policy + ".png"), String.format(Locale.ROOT,
                    "%s: per-worker KV load (G=%d, avg imbalance %.0f tokens)", policy, config.workers(),
                    result.avgImbalance()), series);
            return result;
        }
    }

    private SimulationResult run(List<TraceRequest> requests, String policy, StepObserver observer,
            IntConsumer progress) {
        if (policy.equals(HeadroomReference.NAME)) {
            // offline, one proxy: what is reachable on this workload, whatever the replicas
            return HeadroomReference.run(requests, config, steady, balance, config.seed()).result();
        }
        IntFunction<PolicyCatalog.Setup> setups = replica -> PolicyCatalog.create(policy,
                ProxyReplicas.seedOf(config.seed(), replica), balance, predictor,
                id -> requests.get((int) id).outputTokens(), warmStart);
        return new DecodeSimulator(config, replicas, steady).run(requests, setups, observer, progress);
    }

    /**
     * Every policy over {@code requests}, on as many threads as there are processors (at most one
     * per policy); the results in the order of {@code policies}.
     *
     * @param seriesDir as {@link #run(List, String, Path, IntConsumer)}
     * @param progress told every {@value #PROGRESS_INTERVAL_MS} ms until the last run ends
     */
    public List<SimulationResult> runAll(List<TraceRequest> requests, List<String> policies, Path seriesDir,
            Progress progress) throws IOException {
        AtomicIntegerArray done = new AtomicIntegerArray(policies.size());
        int threads = Math.max(1, Math.min(policies.size(), Runtime.getRuntime().availableProcessors()));
        ExecutorService pool = Executors.newFixedThreadPool(threads, r -> {
            Thread t = new Thread(r, "simulate");
            t.setDaemon(true);
            return t;
        });
        try {
            List<Future<SimulationResult>> futures = new ArrayList<>();
            for (int p = 0; p < policies.size(); p++) {
                int index = p;
                String name = policies.get(p);
                futures.add(pool.submit(() -> run(requests, name, seriesDir, n -> done.set(index, n))));
            }
            List<SimulationResult> results = new ArrayList<>();
            long started = System.currentTimeMillis();
            long lastReport = started;
            for (Future<SimulationResult> f : futures) {
                while (true) {
                    try {
                        results.add(f.get(PROGRESS_INTERVAL_MS, TimeUnit.MILLISECONDS));
                        break;
                    } catch (TimeoutException e) {
                        long now = System.currentTimeMillis();
                        if (now - lastReport >= PROGRESS_INTERVAL_MS) {
                            progress.report(now - started, snapshot(done));
                            lastReport = now;
                        }
                    }
                }
            }
            return results;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted");
        } catch (ExecutionException e) {
            Throwable cause = e.getCause();
            if (cause instanceof IOException io) {
                throw io;
            }
            if (cause instanceof RuntimeException re) {
                throw re;
            }
            throw new IllegalStateException(cause);
        } finally {
            pool.shutdownNow();
        }
    }

    private static int[] snapshot(AtomicIntegerArray done) {
        int[] now = new int[done.length()];
        for (int p = 0; p < now.length; p++) {
            now[p] = done.get(p);
        }
        return now;
    }
}
