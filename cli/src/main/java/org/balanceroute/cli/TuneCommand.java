package org.balanceroute.cli;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
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
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * {@code balanceroute tune}: what the self-tuner does in the runtime, offline. It tunes on the
 * first {@code --window-minutes} of simulated traffic (as the runtime's rolling record would hold
 * them), then runs the settings it started from, the tuner's choice and every grid candidate on
 * the rest of the trace, and reports the share of the best fixed setting's gain the tuner
 * recovered: (start - tuned) / (start - best fixed), by steady-state average imbalance. The
 * choice is what the runtime would apply with the same {@code replays}, {@code parts}, {@code quorum}
 * and {@code margin}: the start unless a candidate passes both.
 *
 * <p>The share is given twice: on the rest as recorded (one run: its best fixed setting is partly
 * the simulator's noise, a few requests moved change a setting's imbalance by several percent),
 * and with {@code --eval-replays} K > 1 on the mean over K perturbed replays of the rest (its
 * requests shuffled over its own arrival times, replay 0 the rest as recorded), where the best
 * fixed setting is the one best on average.
 */
@Command(name = "tune", sortOptions = false, customSynopsis = "balanceroute tune (--trace FILE | --generate N) [options]",
        description = {"", "Tunes BR-H (beta, gamma, H, and br0) on the first minutes of a trace replayed at an"
                + " offered load, the way the runtime's self-tuner does on live traffic, then measures the choice"
                + " on the rest of the trace against the settings it started from and the best fixed setting of"
                + " the grid.", ""})
final class TuneCommand extends CliCommand {

    /** Replays of the rest the evaluation averages over by default. */
    static final int DEFAULT_EVAL_REPLAYS = 8;

    @Option(names = "--trace", paramLabel = "FILE", order = 1, description = "as simulate")
    String trace;

    @Option(names = "--generate", paramLabel = "N", converter = Values.Int.class, order = 1,
            description = "instead of --trace: N requests of the built-in seeded Mooncake-like workload (seeded by"
                    + " --seed; stationary, unlike the traces)")
    int generate;

    @Option(names = "--load", paramLabel = "X", converter = Values.Real.class, order = 1,
            description = "offered load (as simulate); default: ${DEFAULT-VALUE}")
    double load = 1.0;

    @Option(names = "--window-minutes", paramLabel = "M", converter = Values.Real.class, order = 1,
            description = "simulated minutes of traffic tuned on; default: ${DEFAULT-VALUE}")
    double windowMinutes = 5;

    @Option(names = "--policy", paramLabel = "P", order = 1,
            description = "the BR-H policy tuned: brh-survival or brh-exact; default: ${DEFAULT-VALUE}")
    String policy = BalancePolicy.BRH_SURVIVAL;

    @Option(names = "--beta", paramLabel = "B", converter = Values.Real.class, order = 2,
            description = "the beta it starts from; default: ${DEFAULT-VALUE}")
    double beta = 43;

    @Option(names = "--gamma", paramLabel = "G", converter = Values.Real.class, order = 2,
            description = "the gamma it starts from; default: ${DEFAULT-VALUE}")
    double gamma = 0.86;

    @Option(names = "--horizon", paramLabel = "H", converter = Values.Int.class, order = 2,
            description = "the horizon it starts from; default: ${DEFAULT-VALUE}")
    int horizon = 80;

    @Option(names = "--betas", paramLabel = "LIST", order = 3, description = "the grid's betas; default: ${DEFAULT-VALUE}")
    String betas = "8,14.67,43";

    @Option(names = "--gammas", paramLabel = "LIST", order = 3,
            description = "the grid's gammas; default: ${DEFAULT-VALUE}")
    String gammas = "0.5,0.64,0.86,0.95";

    @Option(names = "--horizons", paramLabel = "LIST", order = 3,
            description = "the grid's horizons; default: ${DEFAULT-VALUE}")
    String horizons = "20,80,200";

    @Option(names = "--parts", paramLabel = "K", converter = Values.Int.class, order = 3,
            description = "the tuning window is cut into K parts of equal time; 1: the lowest imbalance over the"
                    + " whole window wins; default: ${DEFAULT-VALUE}")
    int parts = RobustChoice.DEFAULT.parts();

    @Option(names = "--quorum", paramLabel = "Q", converter = Values.Real.class, order = 3,
            description = "the share of the parts, in (0.5, 1], on which a candidate must beat the start to be"
                    + " chosen; default: ${DEFAULT-VALUE}")
    double quorum = RobustChoice.DEFAULT.quorum();

    @Option(names = "--agreement", paramLabel = "A", converter = Values.Real.class, order = 3,
            description = "the gate: unless the two halves of the replays rank the candidates with a rank correlation"
                    + " of at least A, in [-1, 1], the start stays (-1: no gate); default: ${DEFAULT-VALUE}")
    double agreement = RobustChoice.DEFAULT.agreement();

    @Option(names = "--replays", paramLabel = "K", converter = Values.Int.class, order = 3,
            description = "every candidate is judged on its mean over K perturbed replays of the window (its requests"
                    + " shuffled over its arrival times; 1: the window as recorded only); default: ${DEFAULT-VALUE}")
    int replays = ParameterTuner.DEFAULT_REPLAYS;

    @Option(names = "--eval-replays", paramLabel = "K", converter = Values.Int.class, order = 3,
            description = "the rest is also scored as the mean over K perturbed replays of it, the best fixed setting"
                    + " being the best on average; 1: the rest as recorded only; default: ${DEFAULT-VALUE}")
    int evalReplays = DEFAULT_EVAL_REPLAYS;

    @Option(names = "--margin", paramLabel = "M", converter = Values.Real.class, order = 3,
            description = "the predicted gain, in [0, 1], the choice must reach to replace the start (the runtime's"
                    + " margin); default: ${DEFAULT-VALUE}")
    double margin = ParameterTuner.DEFAULT_MARGIN;

    @Option(names = "--workers", paramLabel = "G", converter = Values.Int.class, order = 4,
            description = "as simulate; default: ${DEFAULT-VALUE}")
    int workers = SimulationConfig.DEFAULT_WORKERS;

    @Option(names = "--limit", paramLabel = "N", converter = Values.Int.class, order = 4,
            description = "as simulate; default: all")
    int limit;

    @Option(names = "--prompt-prefix-blocks", paramLabel = "N", converter = Values.Int.class, order = 4,
            description = "as simulate; default: ${DEFAULT-VALUE}")
    int promptPrefixBlocks = SimulateCommand.DEFAULT_PROMPT_PREFIX_BLOCKS;

    @Mixin
    PoolOptions poolOptions = new PoolOptions();

    @Override
    boolean onceOnly() {
        return true;
    }

    @Override
    int run() throws UsageException {
        String file = trace;
        if (file == null && generate <= 0) {
            throw new UsageException("--trace FILE (or --generate N, N > 0) is required");
        }
        if (file != null && generate != 0) {
            throw new UsageException("--trace and --generate both give the workload: give one of them");
        }
        SimulationConfig config = poolOptions.config(workers);
        if (!(load > 0) || !(windowMinutes > 0)) {
            throw new UsageException("--load and --window-minutes must be > 0");
        }
        if (!(margin >= 0 && margin <= 1)) {
            throw new UsageException("--margin must be in [0, 1], got " + margin);
        }
        requireReplays("--replays", replays);
        requireReplays("--eval-replays", evalReplays);
        RobustChoice rule;
        try {
            rule = new RobustChoice(parts, quorum, agreement);
        } catch (IllegalArgumentException e) {
            throw new UsageException("--" + e.getMessage());
        }
        if (!policy.equals(BalancePolicy.BRH_SURVIVAL) && !policy.equals(BalancePolicy.BRH_EXACT)) {
            throw new UsageException("--policy must be brh-survival or brh-exact, got " + policy);
        }
        BalanceSettings start = BalanceSettings.defaults().withHorizon(horizon, 1, beta, gamma);
        ParameterTuner.Grid grid = new ParameterTuner.Grid(numbers(betas), numbers(gammas),
                numbers(horizons).stream().map(Double::intValue).toList(), true);
        Trace trace;
        try {
            trace = file == null ? new WorkloadGenerator(poolOptions.seed, WorkloadGenerator.MOONCAKE_RATE).generate(generate)
                    : TraceLoader.load(Path.of(file), new TraceOptions(limit, -1, 1, promptPrefixBlocks));
        } catch (TraceFormatException e) {
            err.println("balanceroute tune: " + e.getMessage());
            return 1;
        }
        List<TraceRequest> all = TraceSample.scaled(trace.requests(),
                OfferedLoad.of(trace.requests(), config).rateScaleFor(load));
        double cut = all.get(0).arrivalSeconds() + windowMinutes * 60;
        List<TraceRequest> head = all.stream().filter(t -> t.arrivalSeconds() < cut).toList();
        List<TraceRequest> rest = new ArrayList<>();
        for (TraceRequest t : all) {
            if (t.arrivalSeconds() >= cut) {
                rest.add(new TraceRequest(t.arrivalSeconds() - cut, t.inputTokens(), t.outputTokens(), t.promptKey()));
            }
        }
        if (head.size() < 2 || rest.size() < 2) {
            err.printf(Locale.ROOT, "balanceroute tune: the trace spans %.1f simulated minutes at load %.2f; "
                    + "the window must leave requests on both sides%n",
                    (all.get(all.size() - 1).arrivalSeconds() - all.get(0).arrivalSeconds()) / 60, load);
            return 1;
        }
        ParameterTuner.Report tuned = new ParameterTuner(config, SteadyState.DEFAULT, ParameterTuner.CATALOG,
                System::currentTimeMillis, rule, replays).tune(head, policy, start, policy, grid, Long.MAX_VALUE, () -> false);
        // every candidate on the rest: the best fixed setting, and the start and the choice among them
        ParameterTuner.Report after = new ParameterTuner(config, SteadyState.DEFAULT, ParameterTuner.CATALOG,
                System::currentTimeMillis, RobustChoice.WHOLE_WINDOW, evalReplays).tune(rest, policy, start, policy,
                        grid, Long.MAX_VALUE, () -> false);
        ParameterTuner.Score onceBest = after.ranked().stream().min(Comparator.comparingDouble(
                (ParameterTuner.Score s) -> s.replays().get(0))).orElseThrow();
        double startImb = after.current().replays().get(0);
        double bestImb = onceBest.replays().get(0);
        // what the runtime would apply: the winner, if it is not the start and its gain clears the margin
        boolean replaces = tuned.best() != tuned.current() && tuned.predictedGain() >= margin;
        ParameterTuner.Candidate choice = replaces ? tuned.best().candidate() : tuned.current().candidate();
        ParameterTuner.Score tunedOnRest = after.ranked().stream().filter(s -> s.candidate().equals(choice))
                .findFirst().orElseThrow();
        double choiceImb = tunedOnRest.replays().get(0);
        out.printf(Locale.ROOT, "tuned on the first %.1f min (%d requests, %d runs, %.1f s): %s%n", windowMinutes,
                head.size(), tuned.ranked().size() * replays, tuned.elapsedMillis() / 1000.0, decision(tuned, margin));
        out.printf(Locale.ROOT, "on the rest (%d requests), steady-state average imbalance:%n", rest.size());
        out.printf(Locale.ROOT, "  start      %-40s %12.0f%n", after.current().candidate().label(), startImb);
        out.printf(Locale.ROOT, "  tuned      %-40s %12.0f%n", choice.label(), choiceImb);
        out.printf(Locale.ROOT, "  best fixed %-40s %12.0f%n", onceBest.candidate().label(), bestImb);
        out.println(verdict(startImb, choiceImb, bestImb));
        if (evalReplays > 1) {
            out.printf(Locale.ROOT, "on the mean over %d perturbed replays of the rest:%n", evalReplays);
            out.printf(Locale.ROOT, "  start      %-40s %12.0f%n", after.current().candidate().label(),
                    after.current().imbalance());
            out.printf(Locale.ROOT, "  tuned      %-40s %12.0f%n", choice.label(), tunedOnRest.imbalance());
            out.printf(Locale.ROOT, "  best fixed %-40s %12.0f%n", after.best().candidate().label(),
                    after.best().imbalance());
            out.println(verdict(after.current().imbalance(), tunedOnRest.imbalance(), after.best().imbalance())
                    + " (on the mean)");
            out.printf(Locale.ROOT, "  the best fixed setting chosen on half of these replays and scored on the other half"
                    + " gains %.1f%% over the start (the rest of the best fixed gain is the luck of picking the best of %d);"
                    + " the start's standard error: %.1f%%%n", 100 * crossValidatedGain(after), after.ranked().size(),
                    100 * standardError(after.current().replays()));
        }
        return 0;
    }

    /**
     * The best fixed setting's gain over the start without the winner's curse: the best on the
     * mean of the first half of the replays, its gain on the second half, and the other way round,
     * averaged.
     */
    static double crossValidatedGain(ParameterTuner.Report r) {
        int half = r.replays() / 2;
        return (heldOutGain(r, 0, half, half, r.replays()) + heldOutGain(r, half, r.replays(), 0, half)) / 2;
    }

    private static double heldOutGain(ParameterTuner.Report r, int chooseFrom, int chooseTo, int scoreFrom, int scoreTo) {
        ParameterTuner.Score best = r.ranked().stream().min(Comparator.comparingDouble(
                (ParameterTuner.Score s) -> s.imbalance(chooseFrom, chooseTo))).orElseThrow();
        return 1 - best.imbalance(scoreFrom, scoreTo) / r.current().imbalance(scoreFrom, scoreTo);
    }

    /** The standard error of a mean, relative to it. */
    static double standardError(List<Double> v) {
        double m = v.stream().mapToDouble(Double::doubleValue).average().orElseThrow(), ss = 0;
        for (double x : v) {
            ss += (x - m) * (x - m);
        }
        return v.size() < 2 ? Double.NaN : Math.sqrt(ss / (v.size() - 1) / v.size()) / m;
    }

    /** What the search chose and why, as the runtime's report says it. */
    static String decision(ParameterTuner.Report r, double margin) {
        String wins = String.format(Locale.ROOT, "%d of %d parts", r.wins(), r.choice().parts())
                + (r.replays() == 1 ? "" : String.format(Locale.ROOT, " and %d of %d replays",
                        RobustChoice.wins(r.current().replays(), r.best().replays()), r.replays()));
        if (r.gated()) {
            return String.format(Locale.ROOT, "kept the start: the halves of the %d replays do not agree on the"
                    + " candidates' order (rank correlation %.2f, the gate %.2f): their differences are noise",
                    r.replays(), r.agreement(), r.choice().agreement());
        }
        if (r.best() == r.current()) {
            String replays = r.replays() == 1 ? "" : String.format(Locale.ROOT, " and %d of %d replays",
                    r.choice().required(r.replays()), r.replays());
            return r.choice().parts() == 1 ? "kept the start: no candidate has a lower imbalance"
                    : String.format(Locale.ROOT, "kept the start: no candidate beats it on %d of %d parts of the window%s",
                            r.choice().required(), r.choice().parts(), replays);
        }
        String agreed = r.replays() == 1 ? "" : String.format(Locale.ROOT, ", the replays' halves agreeing at %.2f",
                r.agreement());
        String best = String.format(Locale.ROOT, "%s (predicted gain %.1f%%%s%s)", r.best().candidate().label(),
                100 * r.predictedGain(), r.choice().parts() == 1 ? "" : ", better on " + wins, agreed);
        return r.predictedGain() >= margin ? best
                : String.format(Locale.ROOT, "kept the start: the best, %s, is below the margin %.1f%%", best, 100 * margin);
    }

    /**
     * The share of the best fixed setting's gain the choice recovered; when the start already is
     * the best there is no gain to share (a share of nothing would read 100% whatever the choice did).
     */
    static String verdict(double startImb, double choiceImb, double bestImb) {
        if (startImb <= bestImb) {
            return String.format(Locale.ROOT, "the start is already the best fixed setting on the rest: nothing to"
                    + " recover; the tuned choice's imbalance %+.1f%% against it", 100 * (choiceImb - startImb) / startImb);
        }
        return String.format(Locale.ROOT, "recovered %.0f%% of the best fixed setting's gain",
                100 * (startImb - choiceImb) / (startImb - bestImb));
    }

    private static void requireReplays(String option, int k) throws UsageException {
        if (k < 1 || k > ParameterTuner.MAX_REPLAYS) {
            throw new UsageException(String.format(Locale.ROOT, "%s must be in [1, %d], got %d", option,
                    ParameterTuner.MAX_REPLAYS, k));
        }
    }

    private static List<Double> numbers(String csv) throws UsageException {
        List<Double> out = new ArrayList<>();
        for (String s : csv.split(",")) {
            try {
                out.add(Double.parseDouble(s.trim()));
            } catch (NumberFormatException e) {
                throw new UsageException("not a number: '" + s + "'");
            }
        }
        return out;
    }
}
