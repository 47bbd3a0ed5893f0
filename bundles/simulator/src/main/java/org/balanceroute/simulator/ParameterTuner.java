package org.balanceroute.simulator;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.function.BooleanSupplier;
import java.util.function.LongSupplier;
import org.balanceroute.policy.balance.BalancePolicy;
import org.balanceroute.policy.balance.BalanceSettings;
import org.balanceroute.trace.TraceRequest;

/**
 * Chooses the BR settings for recent traffic by replaying it through the simulator: the same
 * {@code Router}, {@code TwoStageDispatcher}, scores and predictors the proxy runs (built by a
 * {@link Candidates} factory, {@link PolicyCatalog} by default), once per candidate of a grid of
 * (beta, gamma, H) for the BR-H policy in use, plus br0. Which one wins is the {@link RobustChoice}:
 * by default the candidate that beats the settings in force on every part of the window, else
 * the settings in force; with {@link RobustChoice#WHOLE_WINDOW} the lowest steady-state average
 * imbalance ({@link #objective}; ties: higher steady throughput). The winner's predicted gain is
 * the share of the current settings' imbalance it removes on the whole window.
 *
 * <p>Judged over {@code replays} perturbed replays of the window: replay 0 is the window as
 * recorded, replay k > 0 its requests dealt onto its own arrival times in an order shuffled with
 * the config's seed ({@link TraceSample#shuffled}, copy k). The simulator is chaotic (a few
 * requests moved change a setting's imbalance by several percent), so one replay ranks candidates
 * partly by luck; a candidate's imbalance is its mean over the replays, and its imbalance per part
 * the mean over the replays of each part (the arrivals, hence the steady window and its parts,
 * are the same in every replay). The robust rule then also asks a candidate to beat the settings
 * in force on the quorum of the replays, and the rule's agreement gate may keep the settings in
 * force when the two halves of the replays rank the candidates unalike ({@link #agreement}). One
 * replay is the search before replays, exactly.
 *
 * <p>Bounded: candidates run in order (the current settings first, then br0, then the grid),
 * and the search stops after the candidate during which the time budget ran out or
 * {@code cancelled} said so; the report says whether it went through the whole grid. One run
 * costs about what simulating the window costs (milliseconds to a second for minutes of
 * traffic), one candidate {@code replays} runs. Not thread-safe; a caller runs it on a thread of
 * its own, never on a dispatch thread.
 */
public final class ParameterTuner {

    /** A configuration to try: a policy name of {@link PolicyCatalog} and its settings. */
    public record Candidate(String policy, BalanceSettings settings) {

        /** E.g. {@code brh-survival H=80 beta=14.67 gamma=0.64}, {@code br0}. */
        public String label() {
            return !policy.startsWith(BalancePolicy.BRH_PREFIX) ? policy : String.format(Locale.ROOT, "%s H=%d beta=%s gamma=%s",
                    policy, settings.horizon(), trim(settings.beta()), trim(settings.gamma()));
        }
    }

    /** The search space: every (beta, gamma, H) for the BR-H policy, and br0 if asked. */
    public record Grid(List<Double> betas, List<Double> gammas, List<Integer> horizons, boolean withBr0) {

        public Grid {
            betas = List.copyOf(betas);
            gammas = List.copyOf(gammas);
            horizons = List.copyOf(horizons);
        }

        /** The paper's two pairs and neighbours, at three horizons: 3 x 4 x 3 + br0 = 37 runs. */
        public static Grid defaults() {
            return new Grid(List.of(8.0, 14.67, 43.0), List.of(0.5, 0.64, 0.86, 0.95), List.of(20, 80, 200), true);
        }

        /** The candidates in the order they are tried, after the current one. */
        List<Candidate> candidates(String brhPolicy, BalanceSettings base) {
            List<Candidate> out = new ArrayList<>();
            if (withBr0) {
                out.add(new Candidate(BalancePolicy.BR0, base));
            }
            for (int h : horizons) {
                for (double b : betas) {
                    for (double g : gammas) {
                        out.add(new Candidate(brhPolicy, base.withHorizon(h, base.alpha(), b, g)));
                    }
                }
            }
            return out;
        }
    }

    /**
     * A candidate and what it did on the traffic.
     *
     * @param result its run on the traffic as recorded (replay 0)
     * @param parts its steady-state average imbalance per part of the window, the mean over the
     *     replays (NaN: a part without steps)
     * @param replays its {@link #objective} on each replay, replay 0 first
     */
    public record Score(Candidate candidate, SimulationResult result, List<Double> parts, List<Double> replays) {

        public Score {
            parts = List.copyOf(parts);
            replays = List.copyOf(replays);
        }

        /** What the search ranks by: the mean {@link #objective} over the replays. */
        public double imbalance() {
            return imbalance(0, replays.size());
        }

        /** The mean {@link #objective} over replays {@code from} (inclusive) to {@code to} (exclusive). */
        public double imbalance(int from, int to) {
            return replays.subList(from, to).stream().mapToDouble(Double::doubleValue).average().orElseThrow();
        }
    }

    /**
     * @param current the settings in force, on the same traffic
     * @param best the winner (possibly the current settings)
     * @param predictedGain 1 - best / current {@link #objective}, in [0, 1)
     * @param ranked every candidate run, lowest {@link #objective} first
     * @param complete whether every candidate ran within the budget
     * @param wins the parts of the window on which the winner's imbalance is below the current one's
     *     (0 when the current settings stay)
     * @param replays the replays every candidate ran on
     * @param agreement the {@link #agreement} of the candidates run (NaN with one replay)
     */
    public record Report(Score current, Score best, double predictedGain, List<Score> ranked, int candidates,
            boolean complete, long elapsedMillis, int requests, RobustChoice choice, int wins, int replays,
            double agreement) {

        /** Whether the agreement gate kept the settings in force (one replay has no halves: never). */
        public boolean gated() {
            return ParameterTuner.gated(replays, choice, agreement);
        }
    }

    /** Builds the policy of a candidate for one run; {@link PolicyCatalog#create} by default. */
    @FunctionalInterface
    public interface Candidates {
        PolicyCatalog.Setup create(Candidate candidate, List<TraceRequest> traffic);
    }

    /** Predictors warm-started on the traffic itself, as the live ones have seen it. */
    public static final Candidates CATALOG = (c, traffic) -> PolicyCatalog.create(c.policy(), 1, c.settings(),
            id -> traffic.get((int) id).outputTokens(), traffic);

    private final SimulationConfig config;
    private final SteadyState steady;
    private final Candidates factory;
    private final LongSupplier clockMillis;
    private final RobustChoice choice;
    private final int replays;

    /** The most replays a search may run per candidate. */
    public static final int MAX_REPLAYS = 50;

    /**
     * The replays per candidate the runtime and {@code balanceroute tune} use unless configured:
     * eight, so that each half of them, four, is enough for the {@link RobustChoice#DEFAULT}
     * agreement gate to tell real differences from noise (with three, the halves are one and two
     * replays).
     */
    public static final int DEFAULT_REPLAYS = 8;

    /**
     * The predicted gain a winner must reach to be applied, unless configured (the runtime's
     * {@code margin}, {@code balanceroute tune --margin}): none, the agreement gate is the guard
     * against noise.
     */
    public static final double DEFAULT_MARGIN = 0;

    /** The lowest imbalance over the whole window wins ({@link RobustChoice#WHOLE_WINDOW}). */
    public ParameterTuner(SimulationConfig config, SteadyState steady, Candidates factory, LongSupplier clockMillis) {
        this(config, steady, factory, clockMillis, RobustChoice.WHOLE_WINDOW);
    }

    /**
     * @param config the cluster (G, B) and step model the traffic is replayed on
     * @param clockMillis the budget's clock, e.g. {@code System::currentTimeMillis}
     * @param choice how the winner is chosen
     */
    public ParameterTuner(SimulationConfig config, SteadyState steady, Candidates factory, LongSupplier clockMillis,
            RobustChoice choice) {
        this(config, steady, factory, clockMillis, choice, 1);
    }

    /**
     * @param replays the perturbed replays every candidate is judged over, in [1, {@link #MAX_REPLAYS}]
     */
    public ParameterTuner(SimulationConfig config, SteadyState steady, Candidates factory, LongSupplier clockMillis,
            RobustChoice choice, int replays) {
        if (replays < 1 || replays > MAX_REPLAYS) {
            throw new IllegalArgumentException("replays must be in [1, " + MAX_REPLAYS + "], got " + replays);
        }
        this.config = config;
        this.steady = steady;
        this.factory = factory;
        this.clockMillis = clockMillis;
        this.choice = choice;
        this.replays = replays;
    }

    /**
     * @param traffic the recent requests, arrival order, arrivals in seconds
     * @param currentPolicy the policy in force: br0 or a BR-H policy (whose predictor the grid uses)
     * @param brhPolicy the BR-H policy the grid varies (e.g. {@code brh-survival})
     * @param budgetMillis the time the search may take; the candidate running when it ends completes
     * @throws IllegalArgumentException with fewer than two requests
     */
    public Report tune(List<TraceRequest> traffic, String currentPolicy, BalanceSettings current, String brhPolicy,
            Grid grid, long budgetMillis, BooleanSupplier cancelled) {
        if (traffic.size() < 2) {
            throw new IllegalArgumentException("tuning needs at least two recent requests, got " + traffic.size());
        }
        long start = clockMillis.getAsLong();
        Candidate now = new Candidate(currentPolicy, current);
        List<List<TraceRequest>> perturbed = new ArrayList<>(replays);
        for (int k = 0; k < replays; k++) {
            perturbed.add(TraceSample.shuffled(traffic, config.seed(), k));
        }
        Score currentScore = run(now, perturbed);
        List<Score> scores = new ArrayList<>(List.of(currentScore));
        List<Candidate> todo = grid.candidates(brhPolicy, current);
        boolean complete = true;
        for (Candidate c : todo) {
            if (clockMillis.getAsLong() - start >= budgetMillis || cancelled.getAsBoolean()) {
                complete = false;
                break;
            }
            if (!c.equals(now)) {
                scores.add(run(c, perturbed));
            }
        }
        scores.sort(Comparator.comparingDouble((Score s) -> s.imbalance())
                .thenComparing(s -> -s.result().steadyThroughputTokPerS()));
        double agreement = agreement(scores);
        Score best = gated(replays, choice, agreement) ? currentScore : choose(scores, currentScore);
        double cur = currentScore.imbalance();
        double gain = cur <= 0 ? 0 : Math.max(0, 1 - best.imbalance() / cur);
        int wins = best == currentScore ? 0 : RobustChoice.wins(currentScore.parts(), best.parts());
        return new Report(currentScore, best, gain, List.copyOf(scores), todo.size() + 1, complete,
                clockMillis.getAsLong() - start, traffic.size(), choice, wins, replays, agreement);
    }

    /** Whether the rule's agreement gate keeps the settings in force; one replay has no halves to compare: never. */
    static boolean gated(int replays, RobustChoice choice, double agreement) {
        return replays > 1 && !choice.agreed(agreement);
    }

    /**
     * How alike the two halves of the replays rank the candidates: Spearman's correlation, over the
     * scores, of their mean {@link #objective} on the first half of the replays (the first
     * replays / 2) and on the rest. Near 1: the replays agree, the differences between candidates
     * are real; near 0: they are noise. NaN with one replay (no halves) or fewer than two scores.
     */
    public static double agreement(List<Score> scores) {
        if (scores.isEmpty() || scores.get(0).replays().size() < 2) {
            return Double.NaN;
        }
        int n = scores.get(0).replays().size(), half = n / 2;
        double[] first = new double[scores.size()], second = new double[scores.size()];
        for (int i = 0; i < scores.size(); i++) {
            first[i] = scores.get(i).imbalance(0, half);
            second[i] = scores.get(i).imbalance(half, n);
        }
        return RobustChoice.rankCorrelation(first, second);
    }

    /**
     * The winner among the ranked scores: the first with one part, else the robust rule's (the
     * current one if none); with several replays the robust rule also asks the quorum of the
     * replays, so that a candidate whose mean comes from one lucky replay is refused.
     */
    private Score choose(List<Score> ranked, Score current) {
        if (choice.parts() == 1 || current.result().steadySteps() == 0) { // no steady window to cut into parts
            return ranked.get(0);
        }
        int replaysRequired = replays == 1 ? 0 : choice.required(replays);
        List<Score> others = ranked.stream().filter(s -> s != current)
                .filter(s -> RobustChoice.wins(current.replays(), s.replays()) >= replaysRequired).toList();
        int i = choice.winner(current.parts(), others.stream().map(Score::parts).toList());
        return i < 0 ? current : others.get(i);
    }

    /**
     * What the search minimises: the steady-state average imbalance, or the all-steps one when the
     * window has no steady step (traffic that arrived all at once).
     */
    public static double objective(SimulationResult r) {
        return r.steadySteps() > 0 ? r.steadyAvgImbalance() : r.avgImbalance();
    }

    /** The candidate on every replay; each replay's policy and predictors fresh, warm-started on that replay. */
    private Score run(Candidate c, List<List<TraceRequest>> perturbed) {
        SimulationResult first = null;
        List<Double> objectives = new ArrayList<>(perturbed.size());
        List<List<Double>> parts = new ArrayList<>(perturbed.size());
        for (List<TraceRequest> traffic : perturbed) {
            PolicyCatalog.Setup setup = factory.create(c, traffic);
            PartImbalance observer = new PartImbalance(steady.window(traffic), choice.parts());
            SimulationResult r = new DecodeSimulator(config, ProxyReplicas.SINGLE, steady).run(traffic, setup.policy(),
                    setup.learners(), observer, n -> { });
            first = first == null ? r : first;
            objectives.add(objective(r));
            parts.add(observer.averages());
        }
        return new Score(c, first, meanPerPart(parts), objectives);
    }

    /** Per part, the mean over the replays that have steps in it; NaN if none has. */
    private static List<Double> meanPerPart(List<List<Double>> perReplay) {
        if (perReplay.size() == 1) {
            return perReplay.get(0);
        }
        List<Double> out = new ArrayList<>();
        for (int p = 0; p < perReplay.get(0).size(); p++) {
            int part = p;
            out.add(perReplay.stream().mapToDouble(l -> l.get(part)).filter(v -> !Double.isNaN(v)).average()
                    .orElse(Double.NaN));
        }
        return out;
    }

    private static String trim(double v) {
        return v == Math.rint(v) ? String.valueOf((long) v) : String.valueOf(v);
    }
}
