package org.balanceroute.cli;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.balanceroute.policy.balance.BalancePolicy;
import org.balanceroute.policy.balance.BalanceSettings;
import org.balanceroute.simulator.OfferedLoad;
import org.balanceroute.simulator.ParameterTuner;
import org.balanceroute.simulator.RobustChoice;
import org.balanceroute.simulator.SimulationConfig;
import org.balanceroute.simulator.SteadyState;
import org.balanceroute.simulator.TraceSample;
import org.balanceroute.trace.Trace;
import org.balanceroute.trace.TraceFormatException;
import org.balanceroute.trace.TraceLoader;
import org.balanceroute.trace.TraceOptions;
import org.balanceroute.trace.TraceRequest;
import org.balanceroute.trace.WorkloadGenerator;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code balanceroute tune-table}: the table of docs/self-tuning.md, recomputed. For each of its
 * twenty workloads it makes the calls {@code tune} makes, with {@code tune}'s defaults (brh-survival,
 * the default grid of 37, 8 replays of the window, the agreement gate 0.5, margin 0, 8 replays of
 * the rest), from the start (43, 0.86) at H = 20, 80 and 200: three rows per workload, the same
 * figures {@code tune --horizon H} prints. The search on the window runs once per start (its choice
 * is the tuner's, whatever its rule); the rest is scored once per workload and shared by the three
 * starts, since every start is a candidate of the grid and every run is seeded (a start's score on
 * the rest is its grid candidate's).
 */
@Command(name = "tune-table", sortOptions = false, customSynopsis = "balanceroute tune-table [--cases LIST] [--traces DIR]",
        description = {"", "Recomputes the self-tuning table of docs/self-tuning.md: per workload, tune's search on the"
                + " window from (43, 0.86) at H = 20, 80 and 200, and every grid candidate on the rest; prints the"
                + " table's markdown rows. Hours on 2 cores for all twenty workloads; --cases picks some.", ""})
final class TuneTableCommand extends CliCommand {

    /** The horizons the start (43, 0.86) is taken at: one row each. */
    static final List<Integer> START_HORIZONS = List.of(20, 80, 200);
    static final double START_BETA = 43;
    static final double START_GAMMA = 0.86;

    static final String AZURE = "azure2023-conv.csv";
    static final String MOONCAKE = "mooncake-conversation.jsonl";

    /**
     * One workload of the table.
     *
     * @param trace a file of the traces directory, or null for the built-in workload
     * @param generate with no trace: the built-in workload's requests
     * @param generatorSeed the built-in workload's seed (the replays are shuffled with seed 1 whatever it is)
     * @param afterGate run after the agreement gate was fixed (the table's ‡)
     */
    record Workload(String trace, int generate, long generatorSeed, int workers, double load, double windowMinutes,
            boolean afterGate) {

        String label() {
            String what = trace == null ? String.format(Locale.ROOT, "built-in %,d%s", generate,
                    generatorSeed == 1 ? "" : " (seed " + generatorSeed + ")")
                    : trace.equals(AZURE) ? "Azure 2023" : "Mooncake";
            return String.format(Locale.ROOT, "%s, G=%d, load %.1f", what, workers, load);
        }

        String window() {
            return String.format(Locale.ROOT, "(%s min)", trim(windowMinutes));
        }

        /** The {@code tune} command line that gives one of its rows (but for a generator seed other than 1). */
        String command(int horizon) {
            String what = trace == null ? "--generate " + generate : "--trace ../shared/traces/" + trace;
            return String.format(Locale.ROOT, "./balanceroute tune %s --load %.1f --workers %d --window-minutes %s --horizon %d",
                    what, load, workers, trim(windowMinutes), horizon);
        }
    }

    /** The table's workloads, in its order; --cases counts from 1. */
    static final List<Workload> WORKLOADS = List.of(
            new Workload(AZURE, 0, 1, 4, 0.9, 2, true),
            new Workload(AZURE, 0, 1, 4, 1.0, 2, true),
            new Workload(AZURE, 0, 1, 4, 1.1, 2, true),
            new Workload(AZURE, 0, 1, 8, 1.0, 1, false),
            new Workload(AZURE, 0, 1, 8, 1.0, 2, true),
            new Workload(AZURE, 0, 1, 8, 1.1, 1, false),
            new Workload(AZURE, 0, 1, 16, 1.0, 1, false),
            new Workload(AZURE, 0, 1, 16, 1.1, 1, false),
            new Workload(AZURE, 0, 1, 16, 1.2, 1, true),
            new Workload(MOONCAKE, 0, 1, 4, 1.0, 5, true),
            new Workload(MOONCAKE, 0, 1, 8, 1.0, 5, false),
            new Workload(MOONCAKE, 0, 1, 8, 1.1, 5, false),
            new Workload(MOONCAKE, 0, 1, 16, 1.0, 5, false),
            new Workload(MOONCAKE, 0, 1, 16, 1.1, 5, false),
            new Workload(null, 12000, 1, 8, 1.0, 5, true),
            new Workload(null, 12000, 1, 8, 1.1, 5, true),
            new Workload(null, 12000, 1, 16, 1.0, 5, false),
            new Workload(null, 12000, 1, 16, 1.1, 5, true),
            new Workload(null, 12000, 2, 16, 1.2, 5, true),
            new Workload(null, 12000, 3, 8, 1.0, 5, true));

    @Option(names = "--cases", paramLabel = "LIST", order = 1,
            description = "the workloads to run, by their number in the table (1..20, e.g. 4,6); default: all")
    String cases;

    @Option(names = "--traces", paramLabel = "DIR", order = 1,
            description = "where azure2023-conv.csv and mooncake-conversation.jsonl are; default: ${DEFAULT-VALUE}")
    String traces = "../shared/traces";

    @Override
    boolean onceOnly() {
        return true;
    }

    @Override
    int run() throws UsageException {
        List<Workload> todo = new ArrayList<>();
        if (cases == null) {
            todo.addAll(WORKLOADS);
        } else {
            for (int n : Values.intList("--cases", cases)) {
                if (n < 1 || n > WORKLOADS.size()) {
                    throw new UsageException("--cases: workloads are numbered 1 to " + WORKLOADS.size() + ", got " + n);
                }
                todo.add(WORKLOADS.get(n - 1));
            }
        }
        out.println(HEADER);
        out.println(ALIGN);
        for (Workload w : todo) {
            long t0 = System.nanoTime();
            List<String> rows;
            try {
                rows = measure(w);
            } catch (TraceFormatException e) {
                err.println("balanceroute tune-table: " + e.getMessage());
                return 1;
            }
            rows.forEach(out::println);
            out.flush();
            err.printf(Locale.ROOT, "%s %s: %.0f s; rows as %s%n", w.label(), w.window(), (System.nanoTime() - t0) / 1e9,
                    w.command(START_HORIZONS.get(0)));
        }
        return 0;
    }

    static final String HEADER = "| workload (window) | agreement of the window's replays | start H | the start's rank of 37"
            + " | best fixed gain, on the mean | the same, cross-validated ± the start's SE | the tuner | recovered |";
    static final String ALIGN = "|---|---:|---:|---:|---:|---:|---|---:|";

    /** The workload's three rows: tune's window search from each start, and one scoring of the rest. */
    List<String> measure(Workload w) throws UsageException, TraceFormatException {
        SimulationConfig config = new PoolOptions().config(w.workers()); // seed 1, the default pool
        Trace trace = w.trace() == null
                ? new WorkloadGenerator(w.generatorSeed(), WorkloadGenerator.MOONCAKE_RATE).generate(w.generate())
                : TraceLoader.load(Path.of(traces, w.trace()),
                        new TraceOptions(0, -1, 1, SimulateCommand.DEFAULT_PROMPT_PREFIX_BLOCKS));
        List<TraceRequest> all = TraceSample.scaled(trace.requests(),
                OfferedLoad.of(trace.requests(), config).rateScaleFor(w.load()));
        // the window as the runtime's record would hold it; the rest from time 0, as tune cuts them
        double cut = all.get(0).arrivalSeconds() + w.windowMinutes() * 60;
        List<TraceRequest> window = new ArrayList<>();
        List<TraceRequest> rest = new ArrayList<>();
        for (TraceRequest t : all) {
            if (t.arrivalSeconds() < cut) {
                window.add(t);
            } else {
                rest.add(new TraceRequest(t.arrivalSeconds() - cut, t.inputTokens(), t.outputTokens(), t.promptKey()));
            }
        }
        ParameterTuner.Grid grid = ParameterTuner.Grid.defaults();
        String policy = BalancePolicy.BRH_SURVIVAL;
        List<ParameterTuner.Report> searches = new ArrayList<>();
        for (int h : START_HORIZONS) {
            searches.add(new ParameterTuner(config, SteadyState.DEFAULT, ParameterTuner.CATALOG, System::currentTimeMillis,
                    RobustChoice.DEFAULT, ParameterTuner.DEFAULT_REPLAYS)
                    .tune(window, policy, start(h), policy, grid, Long.MAX_VALUE, () -> false));
        }
        ParameterTuner.Report scored = new ParameterTuner(config, SteadyState.DEFAULT, ParameterTuner.CATALOG,
                System::currentTimeMillis, RobustChoice.WHOLE_WINDOW, TuneCommand.DEFAULT_EVAL_REPLAYS)
                .tune(rest, policy, start(START_HORIZONS.get(0)), policy, grid, Long.MAX_VALUE, () -> false);
        List<String> rows = new ArrayList<>();
        for (int i = 0; i < START_HORIZONS.size(); i++) {
            rows.add(row(i == 0 ? w.label() + " " + w.window() + (w.afterGate() ? " ‡" : "") : " " + w.window(),
                    START_HORIZONS.get(i), searches.get(i), scored));
        }
        return rows;
    }

    static BalanceSettings start(int horizon) {
        return BalanceSettings.defaults().withHorizon(horizon, 1, START_BETA, START_GAMMA);
    }

    /**
     * One row: the start at {@code horizon}, its search on the window, and every candidate scored on
     * the rest (the mean over its replays; any start's, the start's own score found among them).
     */
    static String row(String workload, int horizon, ParameterTuner.Report search, ParameterTuner.Report scored) {
        ParameterTuner.Candidate startCandidate = search.current().candidate();
        ParameterTuner.Score start = scoreOf(scored, startCandidate);
        // what tune would apply: the winner if it is not the start and clears the margin
        boolean replaces = search.best() != search.current() && search.predictedGain() >= ParameterTuner.DEFAULT_MARGIN;
        ParameterTuner.Candidate choice = replaces ? search.best().candidate() : startCandidate;
        double s = start.imbalance(), best = scored.best().imbalance(), tuned = scoreOf(scored, choice).imbalance();
        long rank = 1 + scored.ranked().stream().filter(x -> x.imbalance() < s).count();
        // the rest's report as tune from this start would have it: the start as its current settings
        ParameterTuner.Report fromStart = new ParameterTuner.Report(start, scored.best(), Math.max(0, 1 - best / s),
                scored.ranked(), scored.candidates(), scored.complete(), scored.elapsedMillis(), scored.requests(),
                scored.choice(), 0, scored.replays(), scored.agreement());
        double cv = TuneCommand.crossValidatedGain(fromStart), se = TuneCommand.standardError(start.replays());
        String crossValidated = String.format(Locale.ROOT, "%.1f%% ± %.1f%%", 100 * cv, 100 * se);
        String tuner = !replaces ? "kept the start"
                : String.format(Locale.ROOT, "%s: %+.1f%%", shortLabel(choice), 100 * (tuned - s) / s);
        String recovered = s <= best ? "nothing to recover"
                : String.format(Locale.ROOT, "%.0f%%", 100 * (s - tuned) / (s - best));
        return String.format(Locale.ROOT, "| %s | %.2f | %d | %d | %.1f%% | %s | %s | %s |", workload, search.agreement(),
                horizon, rank, 100 * (s - best) / s, cv > 2 * se ? "**" + crossValidated + "**" : crossValidated, tuner,
                recovered);
    }

    private static ParameterTuner.Score scoreOf(ParameterTuner.Report r, ParameterTuner.Candidate c) {
        return r.ranked().stream().filter(x -> x.candidate().equals(c)).findFirst()
                .orElseThrow(() -> new IllegalStateException(c.label() + " was not scored: the grid must hold every start"));
    }

    /** As the table writes a candidate: {@code H=20, (14.67, 0.95)}, or {@code br0}. */
    static String shortLabel(ParameterTuner.Candidate c) {
        BalanceSettings b = c.settings();
        return c.policy().equals(BalancePolicy.BR0) ? "br0"
                : String.format(Locale.ROOT, "H=%d, (%s, %s)", b.horizon(), trim(b.beta()), trim(b.gamma()));
    }

    /** 43, 14.67, 0.5: a whole number without its ".0". */
    static String trim(double v) {
        return v == Math.rint(v) ? String.valueOf((long) v) : String.valueOf(v);
    }
}
