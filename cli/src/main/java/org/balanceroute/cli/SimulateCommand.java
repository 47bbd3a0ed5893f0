package org.balanceroute.cli;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.balanceroute.core.DecodeLayout;
import org.balanceroute.policy.balance.BalancePolicy;
import org.balanceroute.policy.balance.BalanceProperties;
import org.balanceroute.policy.balance.BalanceSettings;
import org.balanceroute.predictor.survival.SurvivalSettings;
import org.balanceroute.simulator.MeasuredPredictor;
import org.balanceroute.simulator.OfferedLoad;
import org.balanceroute.simulator.PredictionAccuracy;
import org.balanceroute.simulator.ProxyReplicas;
import org.balanceroute.simulator.ReplicasMode;
import org.balanceroute.simulator.SimulationConfig;
import org.balanceroute.simulator.SimulationResult;
import org.balanceroute.simulator.SteadyState;
import org.balanceroute.simulator.TraceSample;
import org.balanceroute.simulator.TraceSimulation;
import org.balanceroute.trace.Trace;
import org.balanceroute.trace.TraceFormatException;
import org.balanceroute.trace.TraceLoader;
import org.balanceroute.trace.TraceOptions;
import org.balanceroute.trace.TraceRequest;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/** {@code balanceroute simulate}: every chosen policy over one trace, side by side. */
@Command(name = "simulate", sortOptions = false, customSynopsis = "balanceroute simulate --trace FILE [options]",
        description = {"", "Replays a request trace through a simulated DP decode tier (G workers meeting at a"
                + " barrier every step; step time = a * max_g L_g + b + c * max batch) once per policy, and"
                + " reports the paper's metrics side by side, with ratios to jsq.", ""})
final class SimulateCommand extends CliCommand {

    /** The workload's options of simulate and sweep, but for the trace files. */
    static class Workload {
        @Option(names = "--trace", paramLabel = "FILE", description = "Azure CSV (TIMESTAMP,ContextTokens,"
                + "GeneratedTokens), Mooncake JSON lines, or CSV arrival_s,input_tokens,output_tokens[,prompt_key]")
        String trace;

        @Option(names = "--limit", paramLabel = "N", converter = Values.Int.class,
                description = "first N requests (after --min-output); default: all")
        int limit;

        @Option(names = "--min-output", paramLabel = "N", converter = Values.Int.class,
                description = "keep requests with more than N output tokens; default: keep all")
        int minOutput = -1;

        @Option(names = "--rate-scale", paramLabel = "X", converter = Values.Real.class,
                description = "divide every arrival time by X (X > 1: heavier); default: 1")
        Double rateScale;

        @Option(names = "--load", paramLabel = "X", converter = Values.Real.class, description = "offered load as"
                + " a fraction of the cluster's decode capacity (estimated from the trace and the step model);"
                + " sets the rate scale; not with --rate-scale")
        Double load;

        @Option(names = "--warmup", paramLabel = "S", converter = Values.Real.class, description = "simulated"
                + " seconds after the first arrival that the steady-state figures leave out (they also leave out"
                + " the drain after the last arrival); default: 10%% of the span")
        Double warmup;

        @Option(names = "--prompt-prefix-blocks", paramLabel = "N", converter = Values.Int.class,
                description = "Mooncake prompt identity for brh-exact: the first N 512-token hash blocks;"
                        + " 0 = the whole prompt; default: ${DEFAULT-VALUE}")
        int promptPrefixBlocks = DEFAULT_PROMPT_PREFIX_BLOCKS;
    }

    /** The pool of one simulation: G workers (or decode instances of G_i each) and the rest. */
    static class SimulatedPool extends PoolOptions {
        @Option(names = "--workers", paramLabel = "G", converter = Values.Int.class,
                description = "DP decode workers; default: ${DEFAULT-VALUE}")
        int workers = SimulationConfig.DEFAULT_WORKERS;

        @Option(names = "--groups", paramLabel = "LIST", description = "decode instances, each its own barrier on its"
                + " own clock: a comma list of their G, e.g. 8,8 (instead of --workers); default: one of --workers")
        String groups;

        @Option(names = "--policy-view", paramLabel = "VIEW", description = "groups: every policy judges a worker"
                + " against its own instance; flat: policies see every rank as one barrier (the engine still steps"
                + " per instance); default: ${DEFAULT-VALUE}")
        String policyView = "groups";

        /**
         * The simulated pool: --workers in one instance, or the instances of --groups with one
         * --capacity for all or one each.
         *
         * @param workersGiven whether --workers was given on the command line
         */
        SimulationConfig simulation(boolean workersGiven) throws UsageException {
            boolean flat = switch (policyView) {
                case "groups" -> false;
                case "flat" -> true;
                default -> throw new UsageException("--policy-view must be groups or flat, got '" + policyView + "'");
            };
            if (groups == null) {
                SimulationConfig one = config(workers);
                return flat ? SimulationConfig.of(one.layout(), stepA, stepB, stepC, prefillPerToken, prefillFixed,
                        seed, true) : one;
            }
            if (workersGiven) {
                throw new UsageException("--groups and --workers both set the decode ranks: give one of them");
            }
            int[] sizes = Values.intList("--groups", groups);
            long total = 0;
            for (int g : sizes) {
                if (g < 1 || g > 4096) {
                    throw new UsageException("--groups: every instance needs 1..4096 ranks, got " + g + " in '"
                            + groups + "'");
                }
                total += g;
            }
            if (total > 4096) {
                throw new UsageException("--groups: at most 4096 ranks in all, got " + total);
            }
            int[] b = capacities();
            if (b.length != 1 && b.length != sizes.length) {
                throw new UsageException("--capacity: give one value, or one per decode instance of --groups ("
                        + sizes.length + "), got " + b.length);
            }
            for (int c : b) {
                if (c < 1 || c > 1_000_000) {
                    throw new UsageException("--capacity must be 1..1000000 per instance, got " + c);
                }
            }
            DecodeLayout layout = b.length == 1 ? DecodeLayout.of(sizes, b[0]) : DecodeLayout.of(sizes, b);
            return SimulationConfig.of(layout, stepA, stepB, stepC, prefillPerToken, prefillFixed, seed, flat);
        }
    }

    @Mixin
    Workload workload = new Workload();

    @Mixin
    SimulatedPool simulatedPool = new SimulatedPool();

    @Option(names = "--replicas", paramLabel = "N", converter = Values.Int.class, order = 3, description = "proxy"
            + " replicas in front of the tier (1..64); arrival i goes to replica i mod N; default: ${DEFAULT-VALUE}")
    int replicas = 1;

    @Option(names = "--sync-delay-ms", paramLabel = "D", converter = Values.Real.class, order = 3,
            description = "simulated ms an event takes between replicas; default: ${DEFAULT-VALUE}")
    double syncDelayMs = 0;

    @Option(names = "--cluster-mode", paramLabel = "MODE", order = 3, description = "dispatcher: replica 0 routes"
            + " every request; gossip: each routes its own, sees the others D late; independent: each sees only"
            + " its own; default: ${DEFAULT-VALUE}")
    String clusterMode = ReplicasMode.DISPATCHER.optionValue();

    @Option(names = "--policies", paramLabel = "LIST", order = 4, description = "comma-separated; default: all of"
            + " random,round-robin,p2c,jsq,least-tokens,vllm-ascend,br0,br0-bypass,brh-survival,brh-exact,"
            + "brh-oracle,reference (offline headroom: the best of a portfolio of oracle BR-H runs and br0, see"
            + " README); also, when named, jsq-br0 (simulator only: JSQ across decode instances, BR-0 within one)")
    String policies;

    @Option(names = "--sample", paramLabel = "K", converter = Values.Int.class, order = 4, description = "run sample K"
            + " of the workload as sweep --samples draws it: 0 the trace as recorded, K > 0 its requests shuffled over"
            + " its arrival times (seeded by --seed); default: ${DEFAULT-VALUE}")
    int sample = 0;

    @Option(names = "--copies", paramLabel = "N", converter = Values.Int.class, order = 4, description = "superpose N"
            + " shuffled copies of the trace (as sweep does for a larger G): N times the users over the same span;"
            + " default: ${DEFAULT-VALUE}")
    int copies = 1;

    @Mixin
    BalanceOptions balance = new BalanceOptions();

    @Option(names = "--warm-start", paramLabel = "FILE", order = 6, description = "a trace whose output lengths"
            + " (and prompt identities) the survival and exact-match predictors learn first; default: cold start")
    String warmStart;

    @Option(names = "--json", order = 7, description = "one JSON object on stdout instead of a table")
    boolean json;

    @Option(names = "--predictor-accuracy", order = 7, description = "also measure each BR-H policy's predictor:"
            + " predicted vs true remaining steps at every prediction, clipped at H+1 (mean absolute error, that of"
            + " the best constant, rank correlation); one more run per BR-H policy")
    boolean predictorAccuracy;

    @Option(names = "--series", paramLabel = "DIR", order = 7,
            description = "per-step per-worker loads (CSV) and a PNG chart per policy")
    String series;

    /**
     * Whole Mooncake prompts almost never recur (206 of 12,031); their first 4 blocks (2,048
     * tokens) do for about half the requests, turns of one conversation sharing an identity.
     * Chosen by benchmarks/sweeps/sweep.py.
     */
    static final int DEFAULT_PROMPT_PREFIX_BLOCKS = 4;

    @Override
    boolean onceOnly() {
        return true;
    }

    @Override
    int run() throws UsageException {
        String traceFile = workload.trace;
        if (traceFile == null) {
            throw new UsageException("--trace FILE is required");
        }
        SimulationConfig config = simulatedPool.simulation(given("--workers") != null);
        ProxyReplicas replicas = new ProxyReplicas(this.replicas, syncDelayMs, ReplicasMode.parse(clusterMode));
        if (config.grouped() && replicas.count() > 1) {
            throw new UsageException("--groups: several decode instances are modelled with one proxy only, not with"
                    + " --replicas " + replicas.count());
        }
        if (sample < 0 || copies < 1 || copies > 64) {
            throw new UsageException(sample < 0 ? "--sample must be >= 0, got " + sample
                    : "--copies must be 1..64, got " + copies);
        }
        BalanceSettings balance = this.balance.settings();
        SurvivalSettings predictor = this.balance.predictor();
        double load = workload.load == null ? Double.NaN : workload.load;
        if (!Double.isNaN(load)) {
            if (workload.rateScale != null) {
                throw new UsageException("--load and --rate-scale both set the arrival rate: give one of them");
            }
            if (!(load > 0) || Double.isInfinite(load)) {
                throw new UsageException("--load must be finite and > 0, got " + load);
            }
        }
        SteadyState steady;
        try {
            steady = new SteadyState(workload.warmup == null ? SteadyState.DEFAULT.warmupSeconds() : workload.warmup);
        } catch (IllegalArgumentException e) {
            throw new UsageException(e.getMessage());
        }
        if (workload.warmup != null && steady.warmupSeconds() < 0) {
            throw new UsageException("--warmup must be >= 0 seconds, got " + steady.warmupSeconds());
        }
        TraceOptions traceOptions = new TraceOptions(workload.limit, workload.minOutput,
                Double.isNaN(load) ? (workload.rateScale == null ? 1 : workload.rateScale) : 1,
                workload.promptPrefixBlocks);
        List<String> policies = PolicyList.parse(this.policies == null ? String.join(",", TraceSimulation.POLICIES)
                : this.policies);
        String seriesDir = series;
        String warmStartFile = warmStart;

        Trace trace;
        List<TraceRequest> warmStart = List.of();
        try {
            trace = TraceLoader.load(Path.of(traceFile), traceOptions);
            if (warmStartFile != null) {
                warmStart = TraceLoader.load(Path.of(warmStartFile),
                        new TraceOptions(0, -1, 1, traceOptions.promptPrefixBlocks())).requests();
            }
        } catch (TraceFormatException e) {
            err.println("balanceroute simulate: " + e.getMessage());
            return 1;
        }
        if (trace.size() == 0) {
            err.println("balanceroute simulate: no request of " + traceFile + " is left after --min-output/--limit");
            return 1;
        }
        if (sample > 0 || copies > 1) {
            trace = new Trace(trace.source(), trace.format(),
                    TraceSample.superposed(trace.requests(), config.seed(), sample, copies));
        }
        OfferedLoad offered = null;
        double rateScale = traceOptions.rateScale();
        if (trace.size() >= 2 && trace.durationSeconds() > 0) {
            // estimated on the trace at its own pace: the loader divided the arrivals by rateScale
            offered = OfferedLoad.of(TraceSample.scaled(trace.requests(), 1 / rateScale), config);
        }
        if (!Double.isNaN(load)) {
            if (offered == null) {
                err.println("balanceroute simulate: --load needs at least two requests arriving at different times");
                return 1;
            }
            rateScale = offered.rateScaleFor(load);
            trace = new Trace(trace.source(), trace.format(), TraceSample.scaled(trace.requests(), rateScale));
        }
        if (seriesDir != null) {
            try {
                Files.createDirectories(Path.of(seriesDir));
            } catch (IOException e) {
                err.println("balanceroute simulate: --series: cannot create directory " + seriesDir + ": " + e);
                return 1;
            }
        }
        err.printf(Locale.ROOT, "simulate: %s, %d requests (input mean %.0f, output mean %.0f tokens), "
                + "%s, %d policies%s%n", trace.source(), trace.size(), trace.meanInputTokens(),
                trace.meanOutputTokens(), config.grouped() ? "decode instances (G x B) " + config.layout()
                        + (config.flatView() ? ", policies see one barrier" : "")
                        : String.format(Locale.ROOT, "G=%d, B=%d", config.workers(), config.capacity()),
                policies.size(),
                replicas.count() == 1 ? "" : String.format(Locale.ROOT, ", %d proxy replicas (%s, sync delay %s ms)",
                        replicas.count(), replicas.mode().optionValue(), replicas.syncDelayMs()));
        SteadyState.Window window = steady.window(trace.requests());
        err.printf(Locale.ROOT, "simulate: rate scale %.4g%s; steady state: steps starting in [%.1f s, %.1f s)%n",
                rateScale, offered == null ? "" : String.format(Locale.ROOT, ", offered load %.3f of a decode capacity "
                        + "of %.0f tok/s", offered.loadAt(rateScale), offered.capacityTokPerS()),
                window.startS(), window.endS());

        List<SimulationResult> results;
        List<TraceRequest> requests = trace.requests();
        try {
            results = new TraceSimulation(config, replicas, steady, balance, predictor, warmStart).runAll(requests,
                    policies, seriesDir == null ? null : Path.of(seriesDir),
                    (elapsedMs, done) -> reportProgress(policies, done, requests.size(), elapsedMs));
        } catch (IOException e) {
            err.println("balanceroute simulate: --series: " + e.getMessage());
            return 1;
        }
        Map<String, PredictionAccuracy> accuracy = new LinkedHashMap<>();
        if (predictorAccuracy) {
            for (String name : policies) {
                if (name.startsWith(BalancePolicy.BRH_PREFIX)) {
                    accuracy.put(name, MeasuredPredictor.measure(name, trace.requests(), warmStart, config, balance,
                            predictor));
                }
            }
        }
        if (json) {
            printJson(traceFile, trace, traceOptions, rateScale, offered, steady, window, config, replicas, balance,
                    results, accuracy);
        } else {
            ResultTable.print(out, results, replicas.count() > 1);
            if (config.grouped()) {
                printGroups(config, results);
            }
            if (predictorAccuracy) {
                printAccuracy(balance.horizon(), accuracy);
            }
        }
        return 0;
    }

    /** Per decode instance, each policy's imbalance over the instance's own steps, all and steady. */
    private void printGroups(SimulationConfig config, List<SimulationResult> results) {
        out.printf(Locale.ROOT, "%nimbalance per decode instance (tokens, mean over its own steps; all steps / steady),"
                + " instances %s%n", config.layout());
        for (SimulationResult r : results) {
            StringBuilder line = new StringBuilder(String.format(Locale.ROOT, "%-14s", r.policy()));
            for (int i = 0; i < r.groups(); i++) {
                line.append(String.format(Locale.ROOT, "  %d: %.0f / %.0f", i, r.groupImbalance()[i],
                        r.steadyGroupImbalance()[i]));
            }
            out.println(line);
        }
    }

    private void printAccuracy(int horizon, Map<String, PredictionAccuracy> accuracy) {
        out.printf(Locale.ROOT, "%npredictor accuracy: remaining steps at each prediction, clipped at H+1 = %d%n",
                horizon + 1);
        out.printf(Locale.ROOT, "%-14s %12s %10s %14s %10s%n", "policy", "predictions", "MAE", "constant MAE",
                "rank corr");
        accuracy.forEach((name, a) -> out.printf(Locale.ROOT, "%-14s %12d %10.2f %14.2f %10.3f%n", name, a.count(),
                a.meanAbsoluteError(), a.constantMeanAbsoluteError(), a.rankCorrelation()));
    }

    private static Map<String, Object> accuracyRow(PredictionAccuracy a) {
        Map<String, Object> row = new LinkedHashMap<>();
        row.put("predictions", a.count());
        row.put("meanAbsoluteError", a.meanAbsoluteError());
        row.put("constantMeanAbsoluteError", a.constantMeanAbsoluteError());
        // NaN (a constant answer) is not JSON
        row.put("rankCorrelation", Double.isNaN(a.rankCorrelation()) ? null : a.rankCorrelation());
        return row;
    }

    /** One line on stderr: each unfinished policy's share of the requests done. */
    private void reportProgress(List<String> policies, int[] done, int total, long elapsedMs) {
        StringBuilder line = new StringBuilder(String.format(Locale.ROOT, "simulate: %4.0fs", elapsedMs / 1000.0));
        for (int p = 0; p < policies.size(); p++) {
            int d = done[p];
            if (d > 0 && d < total) {
                line.append(String.format(Locale.ROOT, "  %s %d%%", policies.get(p), 100L * d / total));
            }
        }
        int finished = 0;
        for (int p = 0; p < policies.size(); p++) {
            finished += done[p] == total ? 1 : 0;
        }
        err.println(line.append("  (").append(finished).append('/').append(policies.size()).append(" done)"));
    }

    private void printJson(String traceFile, Trace trace, TraceOptions traceOptions, double rateScale,
            OfferedLoad offered, SteadyState steady, SteadyState.Window window, SimulationConfig config,
            ProxyReplicas replicas, BalanceSettings balance, List<SimulationResult> results,
            Map<String, PredictionAccuracy> accuracy) {
        Map<String, Object> cfg = new LinkedHashMap<>();
        cfg.put("trace", traceFile);
        cfg.put("requests", trace.size());
        cfg.put("limit", traceOptions.limit());
        cfg.put("minOutput", traceOptions.minOutput());
        cfg.put("rateScale", rateScale);
        cfg.put("load", offered == null ? null : offered.loadAt(rateScale));
        cfg.put("capacityTokPerS", offered == null ? null : offered.capacityTokPerS());
        cfg.put("warmupS", window.startS() - (trace.size() == 0 ? 0 : trace.requests().get(0).arrivalSeconds()));
        cfg.put("steadyStartS", window.startS());
        cfg.put("steadyEndS", window.endS());
        cfg.put("promptPrefixBlocks", traceOptions.promptPrefixBlocks());
        cfg.put("workers", config.workers());
        cfg.put("capacity", config.capacity());
        cfg.put("groups", groupSizes(config));
        cfg.put("groupCapacities", groupCapacities(config));
        cfg.put("policyView", config.flatView() ? "flat" : "groups");
        cfg.put("sample", sample);
        cfg.put("copies", copies);
        cfg.put("stepA", config.stepA());
        cfg.put("stepB", config.stepB());
        cfg.put("stepC", config.stepC());
        cfg.put("prefillPerToken", config.prefillPerToken());
        cfg.put("prefillFixed", config.prefillFixed());
        cfg.put("seed", config.seed());
        cfg.put("replicas", replicas.count());
        cfg.put("syncDelayMs", replicas.syncDelayMs());
        cfg.put("clusterMode", replicas.mode().optionValue());
        cfg.putAll(BalanceProperties.toMap(balance));
        cfg.put(BalanceProperties.S_GREEDY, balance.sGreedyFor(config.workers())); // the G it ran with, not 0
        cfg.put("predictorQuantile", this.balance.predictorQuantile);
        cfg.put("predictorWindow", this.balance.predictorWindow);
        List<Map<String, Object>> rows = new ArrayList<>();
        for (SimulationResult r : results) {
            rows.add(ResultJson.row(r));
        }
        Map<String, Object> doc = new LinkedHashMap<>();
        doc.put("config", cfg);
        doc.put("results", rows);
        if (predictorAccuracy) {
            Map<String, Object> acc = new LinkedHashMap<>();
            accuracy.forEach((name, a) -> acc.put(name, accuracyRow(a)));
            doc.put("predictorAccuracy", acc);
        }
        try {
            out.println(new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT).writeValueAsString(doc));
        } catch (IOException e) {
            throw new IllegalStateException("cannot write JSON", e);
        }
    }

    private static int[] groupSizes(SimulationConfig config) {
        int[] sizes = new int[config.layout().groups()];
        for (int i = 0; i < sizes.length; i++) {
            sizes[i] = config.layout().size(i);
        }
        return sizes;
    }

    private static int[] groupCapacities(SimulationConfig config) {
        int[] b = new int[config.layout().groups()];
        for (int i = 0; i < b.length; i++) {
            b[i] = config.layout().capacityOfGroup(i);
        }
        return b;
    }
}
