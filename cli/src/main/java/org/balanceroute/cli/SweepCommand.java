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
import org.balanceroute.predictor.survival.SurvivalSettings;
import org.balanceroute.simulator.HeadroomReference;
import org.balanceroute.simulator.OfferedLoad;
import org.balanceroute.simulator.ProxyReplicas;
import org.balanceroute.simulator.SimulationConfig;
import org.balanceroute.simulator.SimulationResult;
import org.balanceroute.simulator.SteadyState;
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
    static final String REFERENCE = "jsq";

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
    String policies = String.join(",", SimulateCommand.ALL_POLICIES);

    @Option(names = "--warmup", paramLabel = "S", converter = Values.Real.class, order = 1,
            description = "as simulate; default: 10%% of the span")
    Double warmup;

    @Option(names = "--prompt-prefix-blocks", paramLabel = "N", converter = Values.Int.class, order = 1,
            description = "as simulate; default: ${DEFAULT-VALUE}")
    int promptPrefixBlocks = SimulateCommand.DEFAULT_PROMPT_PREFIX_BLOCKS;

    @Option(names = "--out", paramLabel = "PREFIX", order = 1, description = "also write PREFIX.json (every"
            + " result), PREFIX.md (the tables) and PREFIX.png (the chart)")
    String outPrefix;

    @Mixin
    ClusterOptions cluster = new ClusterOptions();

    @Mixin
    BalanceOptions balanceOptions = new BalanceOptions();

    @Override
    boolean onceOnly() {
        return true;
    }

    /** One cell of the grid: a trace at one G and one load, every policy run on it. */
    record Cell(String trace, int workers, double load, double rateScale, double capacityTokPerS,
            List<SimulationResult> results, String referenceMember) {

        SimulationResult result(String policy) {
            return results.stream().filter(r -> r.policy().equals(policy)).findFirst().orElseThrow();
        }
    }

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
        List<String> policies = SimulateCommand.policies(this.policies);
        if (!policies.contains(REFERENCE)) {
            throw new UsageException("--policies must include " + REFERENCE + ", the reference of every ratio");
        }
        double warmup = this.warmup == null ? SteadyState.DEFAULT.warmupSeconds() : this.warmup;
        if (this.warmup != null && !(warmup >= 0)) {
            throw new UsageException("--warmup must be >= 0 seconds, got " + warmup);
        }
        SteadyState steady = new SteadyState(warmup);
        BalanceSettings balance = balanceOptions.settings();
        SurvivalSettings predictor = balanceOptions.predictor();
        int limit = this.limit;
        int prefixBlocks = promptPrefixBlocks;
        List<SimulationConfig> configs = new ArrayList<>();
        for (int g : workers) {
            configs.add(cluster.config(g));
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
            cells = runGrid(loaded, configs, loads, policies, steady, balance, predictor);
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
                Files.writeString(Path.of(outPrefix + ".json"), json(cells, steady, balance, predictor, limit, prefixBlocks));
                chart(Path.of(outPrefix + ".png"), cells, policies);
            } catch (IOException e) {
                err.println("balanceroute sweep: --out: " + e);
                return 1;
            }
        }
        return 0;
    }

    private List<Cell> runGrid(Map<String, Trace> traces, List<SimulationConfig> configs, List<Double> loads,
            List<String> policies, SteadyState steady, BalanceSettings balance, SurvivalSettings predictor) {
        record Pending(String trace, SimulationConfig config, double load, double rateScale, double capacity,
                List<Future<SimulationResult>> results, String[] referenceMember) {
        }
        int threads = Math.max(1, Runtime.getRuntime().availableProcessors());
        ExecutorService pool = Executors.newFixedThreadPool(threads, r -> {
            Thread t = new Thread(r, "sweep");
            t.setDaemon(true);
            return t;
        });
        try {
            List<Pending> pending = new ArrayList<>();
            for (Map.Entry<String, Trace> e : traces.entrySet()) {
                List<TraceRequest> own = e.getValue().requests();
                for (SimulationConfig config : configs) {
                    OfferedLoad offered = OfferedLoad.of(own, config);
                    for (double load : loads) {
                        double scale = offered.rateScaleFor(load);
                        List<TraceRequest> requests = SimulateCommand.scaled(own, scale);
                        List<Future<SimulationResult>> futures = new ArrayList<>();
                        String[] member = new String[1];
                        for (String name : policies) {
                            futures.add(pool.submit(() -> {
                                if (name.equals(HeadroomReference.NAME)) {
                                    HeadroomReference.Outcome o = HeadroomReference.run(requests, config, steady,
                                            balance, config.seed());
                                    member[0] = o.member();
                                    return o.result();
                                }
                                return SimulateCommand.simulateOne(requests, List.of(), config, ProxyReplicas.SINGLE,
                                        steady, balance, predictor, name, null, n -> { });
                            }));
                        }
                        pending.add(new Pending(e.getKey(), config, load, scale, offered.capacityTokPerS(), futures,
                                member));
                    }
                }
            }
            List<Cell> cells = new ArrayList<>();
            for (Pending p : pending) {
                List<SimulationResult> results = new ArrayList<>();
                for (Future<SimulationResult> f : p.results()) {
                    results.add(f.get());
                }
                cells.add(new Cell(p.trace(), p.config().workers(), p.load(), p.rateScale(), p.capacity(), results,
                        p.referenceMember()[0]));
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

    /** Per trace and G: a row per policy, a column per load; imbalance, throughput, TPOT p95 against jsq. */
    static String markdown(List<Cell> cells, List<String> policies) {
        StringBuilder md = new StringBuilder();
        Map<String, List<Cell>> groups = new LinkedHashMap<>();
        for (Cell c : cells) {
            groups.computeIfAbsent(Path.of(c.trace()).getFileName() + ", G=" + c.workers(), k -> new ArrayList<>())
                    .add(c);
        }
        for (Map.Entry<String, List<Cell>> group : groups.entrySet()) {
            List<Cell> row = group.getValue();
            md.append("\n**").append(group.getKey()).append("**: steady-state imbalance jsq/this, throughput and TPOT "
                    + "p95 this/jsq - 1, by offered load\n\n| policy |");
            for (Cell c : row) {
                md.append(String.format(Locale.ROOT, " %.2f |", c.load()));
            }
            md.append("\n|---|");
            md.append("---:|".repeat(row.size()));
            md.append('\n');
            for (String p : policies) {
                md.append("| ").append(p).append(" |");
                for (Cell c : row) {
                    SimulationResult ref = c.result(REFERENCE), r = c.result(p);
                    md.append(String.format(Locale.ROOT, " %.2fx %+.1f%% %+.1f%% |",
                            ratio(ref.steadyAvgImbalance(), r.steadyAvgImbalance()),
                            100 * (ratio(r.steadyThroughputTokPerS(), ref.steadyThroughputTokPerS()) - 1),
                            100 * (ratio(r.steadyTpotP95Ms(), ref.steadyTpotP95Ms()) - 1)));
                }
                md.append('\n');
            }
        }
        return md.toString();
    }

    private static double ratio(double a, double b) {
        return b == 0 ? (a == 0 ? 1 : Double.POSITIVE_INFINITY) : a / b;
    }

    /** Rows: per trace, imbalance then throughput; columns: G; a line per policy over the loads. */
    static void chart(Path png, List<Cell> cells, List<String> policies) throws IOException {
        List<String> traces = cells.stream().map(Cell::trace).distinct().toList();
        List<Integer> workers = cells.stream().map(Cell::workers).distinct().toList();
        List<PanelChart.Panel> panels = new ArrayList<>();
        for (String trace : traces) {
            String name = Path.of(trace).getFileName().toString();
            panels.addAll(row(cells, trace, workers, policies, name + ", G=%d: imbalance, jsq/this",
                    (ref, r) -> ratio(ref.steadyAvgImbalance(), r.steadyAvgImbalance())));
            panels.addAll(row(cells, trace, workers, policies, name + ", G=%d: throughput, this/jsq",
                    (ref, r) -> ratio(r.steadyThroughputTokPerS(), ref.steadyThroughputTokPerS())));
        }
        PanelChart.write(png, "Steady state against jsq by offered load (balanceroute sweep)",
                "offered load (fraction of decode capacity)", "ratio to jsq", workers.size(), panels);
    }

    private interface Metric {
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
                        mine.stream().mapToDouble(c -> metric.of(c.result(REFERENCE), c.result(p))).toArray()));
            }
            panels.add(new PanelChart.Panel(String.format(Locale.ROOT, title, g), lines));
        }
        return panels;
    }

    private static String json(List<Cell> cells, SteadyState steady, BalanceSettings balance,
            SurvivalSettings predictor, int limit, int prefixBlocks) throws IOException {
        List<Map<String, Object>> runs = new ArrayList<>();
        for (Cell c : cells) {
            Map<String, Object> run = new LinkedHashMap<>();
            run.put("trace", c.trace());
            run.put("workers", c.workers());
            run.put("load", c.load());
            run.put("rateScale", c.rateScale());
            run.put("capacityTokPerS", c.capacityTokPerS());
            run.put("referenceMember", c.referenceMember());
            run.put("results", c.results().stream().map(SimulateCommand::row).toList());
            runs.add(run);
        }
        Map<String, Object> doc = new LinkedHashMap<>();
        doc.put("limit", limit);
        doc.put("promptPrefixBlocks", prefixBlocks);
        doc.put("warmupS", steady.warmupSeconds() < 0 ? null : steady.warmupSeconds());
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
