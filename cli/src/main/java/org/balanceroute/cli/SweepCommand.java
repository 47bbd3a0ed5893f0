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
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.balanceroute.chart.PanelChart;
import org.balanceroute.policy.balance.BalanceSettings;
import org.balanceroute.policy.baseline.JoinShortestQueuePolicy;
import org.balanceroute.predictor.survival.SurvivalSettings;
import org.balanceroute.simulator.HeadroomReference;
import org.balanceroute.simulator.OfferedLoad;
import org.balanceroute.simulator.ProxyReplicas;
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

/**
 * {@code balanceroute sweep}: {@code simulate --load X} over a grid of traces, G and offered
 * loads, every policy in each cell, reported by the steady-state figures as ratios to jsq: a
 * markdown table, and with {@code --out} the raw results (JSON) and a chart (PNG).
 */
@Command(name = "sweep", sortOptions = false, customSynopsis = "balanceroute sweep [options]",
        description = {"", "Runs simulate --load X for every trace, G and load given, every policy in each, and"
                + " reports the steady-state figures (warm-up and drain left out) relative to jsq: average"
                + " imbalance as jsq/this (higher is better), throughput and TPOT p95 as this/jsq.", ""})
final class SweepCommand extends CliCommand {

    static final List<String> DEFAULT_TRACES = List.of("../shared/traces/mooncake-conversation.jsonl",
            "../shared/traces/azure2023-conv.csv");
    static final String REFERENCE = JoinShortestQueuePolicy.NAME;

    @Option(names = "--traces", paramLabel = "LIST", order = 1, description = "comma-separated trace files;"
            + " default: ../shared/traces/mooncake-conversation.jsonl,../shared/traces/azure2023-conv.csv")
    String traces = String.join(",", DEFAULT_TRACES);

    @Option(names = "--workers", paramLabel = "LIST", order = 1, description = "G values; default: ${DEFAULT-VALUE}")
    String workers = "4,8,16";

    @Option(names = "--loads", paramLabel = "LIST", order = 1,
            description = "offered loads, fractions of decode capacity; default: ${DEFAULT-VALUE}")
    String loads = "0.6,0.7,0.8,0.9,1.0,1.1,1.2";

    @Option(names = "--limit", paramLabel = "N", converter = Values.Int.class, order = 1,
            description = "first N requests of each trace; default: all")
    int limit;

    @Option(names = "--policies", paramLabel = "LIST", order = 1,
            description = "as simulate; must include jsq; default: all")
    String policies = String.join(",", TraceSimulation.POLICIES);

    @Option(names = "--warmup", paramLabel = "S", converter = Values.Real.class, order = 1,
            description = "as simulate; default: 10%% of the span")
    Double warmup;

    @Option(names = "--prompt-prefix-blocks", paramLabel = "N", converter = Values.Int.class, order = 1,
            description = "as simulate; default: ${DEFAULT-VALUE}")
    int promptPrefixBlocks = SimulateCommand.DEFAULT_PROMPT_PREFIX_BLOCKS;

    @Option(names = "--samples", paramLabel = "N", converter = Values.Int.class, order = 1,
            description = "independent samples per cell: sample 0 holds the trace as recorded, the others"
                    + " its requests shuffled over its arrival times (seeded by --seed); the tables and the chart"
                    + " show the median ratio to jsq [min, max]; default: ${DEFAULT-VALUE}")
    int samples = 1;

    @Option(names = "--no-superpose", order = 1, description = "offer every G the trace once (faster at larger G)"
            + " instead of G / G_min shuffled copies over the same span")
    boolean noSuperpose;

    @Option(names = "--out", paramLabel = "PREFIX", order = 1, description = "also write PREFIX.json (every"
            + " result), PREFIX.md (the tables) and PREFIX.png (the chart)")
    String outPrefix;

    @Mixin
    PoolOptions poolOptions = new PoolOptions();

    @Mixin
    BalanceOptions balanceOptions = new BalanceOptions();

    @Override
    boolean onceOnly() {
        return true;
    }

    /**
     * One cell of the grid: a trace at one G and one load, every policy run on each sample of it.
     *
     * @param copies shuffled copies of the trace superposed in each sample
     * @param samples per sample, a result per policy
     * @param referenceMembers per sample, the headroom reference's winning member (null without it)
     */
    record Cell(String trace, int workers, double load, double rateScale, double capacityTokPerS, int copies,
            List<List<SimulationResult>> samples, List<String> referenceMembers) {

        SimulationResult result(int sample, String policy) {
            return samples.get(sample).stream().filter(r -> r.policy().equals(policy)).findFirst().orElseThrow();
        }

        /** A metric of {@code policy} against jsq over the samples. */
        Spread spread(String policy, Metric metric) {
            double[] v = new double[samples.size()];
            for (int s = 0; s < v.length; s++) {
                v[s] = metric.of(result(s, REFERENCE), result(s, policy));
            }
            return Spread.of(v);
        }
    }

    /** The median of a metric over a cell's samples, and its range. */
    record Spread(double median, double min, double max) {

        static Spread of(double[] values) {
            double[] v = values.clone();
            java.util.Arrays.sort(v);
            int n = v.length;
            double median = n % 2 == 1 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
            return new Spread(median, v[0], v[n - 1]);
        }
    }

    static final Metric IMBALANCE = (ref, r) -> ratio(ref.steadyAvgImbalance(), r.steadyAvgImbalance());
    static final Metric THROUGHPUT = (ref, r) -> ratio(r.steadyThroughputTokPerS(), ref.steadyThroughputTokPerS());
    static final Metric TPOT_P95 = (ref, r) -> ratio(r.steadyTpotP95Ms(), ref.steadyTpotP95Ms());

    @Override
    int run() throws UsageException {
        List<String> traces = list(this.traces);
        List<Integer> workers = new ArrayList<>();
        for (String g : list(this.workers)) {
            workers.add((int) parse("--workers", g));
        }
        List<Double> loads = new ArrayList<>();
        for (String l : list(this.loads)) {
            double x = parse("--loads", l);
            if (!(x > 0)) {
                throw new UsageException("--loads: every load must be > 0, got " + l);
            }
            loads.add(x);
        }
        List<String> policies = PolicyList.parse(this.policies);
        if (!policies.contains(REFERENCE)) {
            throw new UsageException("--policies must include " + REFERENCE + ", the reference of every ratio");
        }
        double warmup = this.warmup == null ? SteadyState.DEFAULT.warmupSeconds() : this.warmup;
        if (this.warmup != null && !(warmup >= 0)) {
            throw new UsageException("--warmup must be >= 0 seconds, got " + warmup);
        }
        if (samples < 1) {
            throw new UsageException("--samples must be >= 1, got " + samples);
        }
        SteadyState steady = new SteadyState(warmup);
        BalanceSettings balance = balanceOptions.settings();
        SurvivalSettings predictor = balanceOptions.predictor();
        int limit = this.limit;
        int prefixBlocks = promptPrefixBlocks;
        List<SimulationConfig> configs = new ArrayList<>();
        for (int g : workers) {
            configs.add(poolOptions.config(g));
        }

        Map<String, Trace> loaded = new LinkedHashMap<>();
        for (String file : traces) {
            try {
                Trace t = TraceLoader.load(Path.of(file), new TraceOptions(limit, -1, 1, prefixBlocks));
                if (t.size() < 2) {
                    err.println("balanceroute sweep: " + file + " has fewer than two requests");
                    return 1;
                }
                loaded.put(file, t);
            } catch (TraceFormatException e) {
                err.println("balanceroute sweep: " + e.getMessage());
                return 1;
            }
        }
        List<Cell> cells;
        try {
            cells = runGrid(loaded, configs, loads, policies, steady, balance, predictor, samples, !noSuperpose);
        } catch (IllegalArgumentException e) {
            err.println("balanceroute sweep: " + e.getMessage());
            return 1;
        }
        String tables = markdown(cells, policies);
        out.print(tables);
        if (outPrefix != null) {
            try {
                Path prefix = Path.of(outPrefix);
                if (prefix.getParent() != null) {
                    Files.createDirectories(prefix.getParent());
                }
                Files.writeString(Path.of(outPrefix + ".md"), tables);
                Files.writeString(Path.of(outPrefix + ".json"),
                        json(cells, policies, steady, balance, predictor, limit, prefixBlocks, !noSuperpose));
                chart(Path.of(outPrefix + ".png"), cells, policies);
            } catch (IOException e) {
                err.println("balanceroute sweep: --out: " + e);
                return 1;
            }
        }
        return 0;
    }

    private List<Cell> runGrid(Map<String, Trace> traces, List<SimulationConfig> configs, List<Double> loads,
            List<String> policies, SteadyState steady, BalanceSettings balance, SurvivalSettings predictor,
            int samples, boolean superpose) {
        record Pending(String trace, SimulationConfig config, double load, double rateScale, double capacity,
                int copies, List<List<Future<SimulationResult>>> results, String[] referenceMembers) {
        }
        int threads = Math.max(1, Runtime.getRuntime().availableProcessors());
        ExecutorService pool = Executors.newFixedThreadPool(threads, r -> {
            Thread t = new Thread(r, "sweep");
            t.setDaemon(true);
            return t;
        });
        int smallest = configs.stream().mapToInt(SimulationConfig::workers).min().orElse(1);
        try {
            List<Pending> pending = new ArrayList<>();
            for (Map.Entry<String, Trace> e : traces.entrySet()) {
                List<TraceRequest> own = e.getValue().requests();
                for (SimulationConfig config : configs) {
                    int copies = superpose ? (config.workers() + smallest - 1) / smallest : 1;
                    // the copies and samples are shuffles of one trace: same capacity, span and rate scale
                    OfferedLoad offered = OfferedLoad.of(TraceSample.superposed(own, config.seed(), 0, copies), config);
                    TraceSimulation simulation = new TraceSimulation(config, ProxyReplicas.SINGLE, steady, balance,
                            predictor, List.of());
                    for (double load : loads) {
                        double scale = offered.rateScaleFor(load);
                        List<List<Future<SimulationResult>>> bySample = new ArrayList<>();
                        String[] members = new String[samples];
                        for (int s = 0; s < samples; s++) {
                            int sample = s;
                            List<Future<SimulationResult>> futures = new ArrayList<>();
                            for (String name : policies) {
                                // each task draws its own copy of the workload: cheap next to a run, and
                                // the grid never holds every sample's requests at once
                                futures.add(pool.submit(() -> {
                                    List<TraceRequest> requests = TraceSample.scaled(
                                            TraceSample.superposed(own, config.seed(), sample, copies), scale);
                                    if (name.equals(HeadroomReference.NAME)) {
                                        HeadroomReference.Outcome o = HeadroomReference.run(requests, config, steady,
                                                balance, config.seed());
                                        members[sample] = o.member();
                                        return o.result();
                                    }
                                    return simulation.run(requests, name, n -> { });
                                }));
                            }
                            bySample.add(futures);
                        }
                        pending.add(new Pending(e.getKey(), config, load, scale, offered.capacityTokPerS(), copies,
                                bySample, members));
                    }
                }
            }
            List<Cell> cells = new ArrayList<>();
            for (Pending p : pending) {
                List<List<SimulationResult>> bySample = new ArrayList<>();
                for (List<Future<SimulationResult>> futures : p.results()) {
                    List<SimulationResult> results = new ArrayList<>();
                    for (Future<SimulationResult> f : futures) {
                        results.add(f.get());
                    }
                    bySample.add(results);
                }
                cells.add(new Cell(p.trace(), p.config().workers(), p.load(), p.rateScale(), p.capacity(), p.copies(),
                        bySample, java.util.Arrays.asList(p.referenceMembers())));
                err.printf(Locale.ROOT, "sweep: %d/%d done (%s, G=%d, load %.2f)%n", cells.size(), pending.size(),
                        Path.of(p.trace()).getFileName(), p.config().workers(), p.load());
            }
            return cells;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted");
        } catch (ExecutionException e) {
            if (e.getCause() instanceof RuntimeException re) {
                throw re;
            }
            throw new IllegalStateException(e.getCause());
        } finally {
            pool.shutdownNow();
        }
    }

    /**
     * Per trace and G: a row per policy, a column per load; imbalance, throughput, TPOT p95 against
     * jsq. With several samples each figure is the median over them, its range in brackets.
     */
    static String markdown(List<Cell> cells, List<String> policies) {
        StringBuilder md = new StringBuilder();
        Map<String, List<Cell>> groups = new LinkedHashMap<>();
        for (Cell c : cells) {
            groups.computeIfAbsent(Path.of(c.trace()).getFileName() + ", G=" + c.workers(), k -> new ArrayList<>())
                    .add(c);
        }
        for (Map.Entry<String, List<Cell>> group : groups.entrySet()) {
            List<Cell> row = group.getValue();
            int samples = row.get(0).samples().size();
            md.append("\n**").append(group.getKey()).append("**: steady-state imbalance jsq/this, throughput and TPOT "
                    + "p95 this/jsq - 1, by offered load");
            if (samples > 1) {
                md.append(String.format(Locale.ROOT, "; median of %d samples [min, max]", samples));
            }
            md.append("\n\n| policy |");
            for (Cell c : row) {
                md.append(String.format(Locale.ROOT, " %.2f |", c.load()));
            }
            md.append("\n|---|");
            md.append("---:|".repeat(row.size()));
            md.append('\n');
            for (String p : policies) {
                md.append("| ").append(p).append(" |");
                for (Cell c : row) {
                    Spread imbalance = c.spread(p, IMBALANCE), throughput = c.spread(p, THROUGHPUT),
                            tpot = c.spread(p, TPOT_P95);
                    if (samples == 1) {
                        md.append(String.format(Locale.ROOT, " %.2fx %+.1f%% %+.1f%% |", imbalance.median(),
                                percent(throughput.median()), percent(tpot.median())));
                    } else {
                        md.append(String.format(Locale.ROOT,
                                " %.2fx [%.2f, %.2f] %+.1f%% [%+.1f, %+.1f] %+.1f%% [%+.1f, %+.1f] |",
                                imbalance.median(), imbalance.min(), imbalance.max(),
                                percent(throughput.median()), percent(throughput.min()), percent(throughput.max()),
                                percent(tpot.median()), percent(tpot.min()), percent(tpot.max())));
                    }
                }
                md.append('\n');
            }
        }
        return md.toString();
    }

    private static double percent(double ratio) {
        return 100 * (ratio - 1);
    }

    private static double ratio(double a, double b) {
        return b == 0 ? (a == 0 ? 1 : Double.POSITIVE_INFINITY) : a / b;
    }

    /** Rows: per trace, imbalance then throughput; columns: G; a line per policy over the loads (medians). */
    static void chart(Path png, List<Cell> cells, List<String> policies) throws IOException {
        List<String> traces = cells.stream().map(Cell::trace).distinct().toList();
        List<Integer> workers = cells.stream().map(Cell::workers).distinct().toList();
        List<PanelChart.Panel> panels = new ArrayList<>();
        for (String trace : traces) {
            String name = Path.of(trace).getFileName().toString();
            panels.addAll(row(cells, trace, workers, policies, name + ", G=%d: imbalance, jsq/this", IMBALANCE));
            panels.addAll(row(cells, trace, workers, policies, name + ", G=%d: throughput, this/jsq", THROUGHPUT));
        }
        PanelChart.write(png, "Steady state against jsq by offered load (balanceroute sweep)",
                "offered load (fraction of decode capacity)", "ratio to jsq", workers.size(), panels);
    }

    /** A steady-state figure of a result against jsq's in the same sample. */
    interface Metric {
        double of(SimulationResult reference, SimulationResult result);
    }

    private static List<PanelChart.Panel> row(List<Cell> cells, String trace, List<Integer> workers,
            List<String> policies, String title, Metric metric) {
        List<PanelChart.Panel> panels = new ArrayList<>();
        for (int g : workers) {
            List<Cell> mine = cells.stream().filter(c -> c.trace().equals(trace) && c.workers() == g).toList();
            double[] x = mine.stream().mapToDouble(Cell::load).toArray();
            List<PanelChart.Line> lines = new ArrayList<>();
            for (String p : policies) {
                lines.add(new PanelChart.Line(p, x,
                        mine.stream().mapToDouble(c -> c.spread(p, metric).median()).toArray()));
            }
            panels.add(new PanelChart.Panel(String.format(Locale.ROOT, title, g), lines));
        }
        return panels;
    }

    private static String json(List<Cell> cells, List<String> policies, SteadyState steady, BalanceSettings balance,
            SurvivalSettings predictor, int limit, int prefixBlocks, boolean superpose) throws IOException {
        List<Map<String, Object>> runs = new ArrayList<>();
        for (Cell c : cells) {
            Map<String, Object> run = new LinkedHashMap<>();
            run.put("trace", c.trace());
            run.put("workers", c.workers());
            run.put("load", c.load());
            run.put("rateScale", c.rateScale());
            run.put("capacityTokPerS", c.capacityTokPerS());
            run.put("copies", c.copies());
            run.put("referenceMember", c.referenceMembers().get(0));
            run.put("results", c.samples().get(0).stream().map(ResultJson::row).toList());
            List<Map<String, Object>> samples = new ArrayList<>();
            for (int s = 0; s < c.samples().size(); s++) {
                Map<String, Object> sample = new LinkedHashMap<>();
                sample.put("sample", s);
                sample.put("referenceMember", c.referenceMembers().get(s));
                sample.put("results", c.samples().get(s).stream().map(ResultJson::row).toList());
                samples.add(sample);
            }
            run.put("samples", samples);
            Map<String, Object> medians = new LinkedHashMap<>();
            for (String p : policies) {
                Map<String, Object> m = new LinkedHashMap<>();
                m.put("steadyImbalanceJsqOverThis", c.spread(p, IMBALANCE));
                m.put("steadyThroughputThisOverJsq", c.spread(p, THROUGHPUT));
                m.put("steadyTpotP95ThisOverJsq", c.spread(p, TPOT_P95));
                medians.put(p, m);
            }
            run.put("medians", medians);
            runs.add(run);
        }
        Map<String, Object> doc = new LinkedHashMap<>();
        doc.put("limit", limit);
        doc.put("promptPrefixBlocks", prefixBlocks);
        doc.put("warmupS", steady.warmupSeconds() < 0 ? null : steady.warmupSeconds());
        doc.put("samples", cells.isEmpty() ? 0 : cells.get(0).samples().size());
        doc.put("superpose", superpose);
        doc.put("balance", balance);
        doc.put("predictorQuantile", predictor.quantile());
        doc.put("predictorWindow", predictor.window());
        doc.put("runs", runs);
        return new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT).writeValueAsString(doc);
    }

    private static List<String> list(String csv) {
        List<String> out = new ArrayList<>();
        for (String s : csv.split(",")) {
            if (!s.isBlank()) {
                out.add(s.trim());
            }
        }
        return out;
    }

    private static double parse(String option, String value) throws UsageException {
        try {
            double d = Double.parseDouble(value);
            if (!Double.isFinite(d)) {
                throw new NumberFormatException();
            }
            if (option.equals("--workers") && (d != Math.rint(d) || d < 1 || d > 4096)) {
                throw new UsageException("--workers: every G must be an integer in 1..4096, got " + value);
            }
            return d;
        } catch (NumberFormatException e) {
            throw new UsageException(option + ": not a number: '" + value + "'");
        }
    }
}
