package org.balanceroute.simulator;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.balanceroute.api.DispatchStep;
import org.balanceroute.api.PoolView;
import org.balanceroute.api.RequestView;
import org.balanceroute.api.RoutingPolicy;
import org.balanceroute.policy.balance.BalancePolicy;
import org.balanceroute.policy.balance.BalanceSettings;
import org.balanceroute.policy.balance.BarrierScore;
import org.balanceroute.policy.balance.Br0Score;
import org.balanceroute.policy.balance.TwoStageDispatcher;
import org.balanceroute.trace.TraceRequest;
import org.junit.jupiter.api.Test;

class ParameterTunerTest {

    private static final SimulationConfig SMALL = new SimulationConfig(4, 8, 2e-7, 0.02, 0, 0, 0, 1);
    private static final ParameterTuner.Grid GRID = new ParameterTuner.Grid(List.of(8.0, 14.67), List.of(0.64, 0.86),
            List.of(20, 80), true);
    private static final BalanceSettings POOR = BalanceSettings.defaults().withHorizon(80, 1, 43, 0.86);
    /** The rule before the agreement gate: beat the settings in force on all five parts. */
    private static final RobustChoice EVERY_PART = new RobustChoice(5, 1);

    private static ParameterTuner tuner(ParameterTuner.Candidates factory) {
        return new ParameterTuner(SMALL, SteadyState.DEFAULT, factory, System::currentTimeMillis);
    }

    @Test
    void findsTheBestOfTheGridAndItsGainOverTheCurrentSettings() {
        List<TraceRequest> traffic = DecodeSimulatorTest.workload(21, 500);
        ParameterTuner.Report r = tuner(ParameterTuner.CATALOG).tune(traffic, BalancePolicy.BRH_SURVIVAL, POOR,
                BalancePolicy.BRH_SURVIVAL, GRID, 60_000, () -> false);
        assertTrue(r.complete());
        assertEquals(1 + 1 + 8, r.candidates());
        assertEquals(500, r.requests());
        assertEquals(r.ranked().get(0), r.best());
        for (ParameterTuner.Score s : r.ranked()) {
            assertTrue(ParameterTuner.objective(r.best().result()) <= ParameterTuner.objective(s.result()));
        }
        double expected = 1 - ParameterTuner.objective(r.best().result())
                / ParameterTuner.objective(r.current().result());
        assertEquals(Math.max(0, expected), r.predictedGain(), 1e-12);
        assertEquals(POOR, r.current().candidate().settings());
    }

    /**
     * The robust rule picks a winner that beats the settings in force on every part of the window,
     * or keeps them; the parts are the steady state's steps, so one part is its whole average.
     */
    @Test
    void theRobustChoiceWinsEveryPartOrKeepsTheCurrentSettings() {
        List<TraceRequest> traffic = DecodeSimulatorTest.workload(21, 500);
        RobustChoice everyPart = new RobustChoice(5, 1);
        ParameterTuner.Report r = new ParameterTuner(SMALL, SteadyState.DEFAULT, ParameterTuner.CATALOG,
                System::currentTimeMillis, everyPart).tune(traffic, BalancePolicy.BRH_SURVIVAL, POOR,
                        BalancePolicy.BRH_SURVIVAL, GRID, 60_000, () -> false);
        assertEquals(everyPart, r.choice());
        for (ParameterTuner.Score s : r.ranked()) {
            assertEquals(5, s.parts().size());
        }
        if (r.best() == r.current()) {
            assertEquals(0, r.wins());
            assertEquals(0, r.predictedGain());
            for (ParameterTuner.Score s : r.ranked()) {
                assertTrue(RobustChoice.wins(r.current().parts(), s.parts()) < 5, s.candidate().label());
            }
        } else {
            assertEquals(5, r.wins());
            assertEquals(5, RobustChoice.wins(r.current().parts(), r.best().parts()));
        }
        ParameterTuner.Report whole = tuner(ParameterTuner.CATALOG).tune(traffic, BalancePolicy.BRH_SURVIVAL, POOR,
                BalancePolicy.BRH_SURVIVAL, GRID, 60_000, () -> false);
        for (ParameterTuner.Score s : whole.ranked()) {
            assertEquals(List.of(s.result().steadyAvgImbalance()), s.parts());
        }
    }

    @Test
    void stopsAtTheBudgetAfterTheCurrentSettings() {
        List<TraceRequest> traffic = DecodeSimulatorTest.workload(22, 200);
        long[] now = {0};
        ParameterTuner t = new ParameterTuner(SMALL, SteadyState.DEFAULT, ParameterTuner.CATALOG, () -> now[0] += 10);
        ParameterTuner.Report r = t.tune(traffic, BalancePolicy.BR0, BalanceSettings.defaults(),
                BalancePolicy.BRH_SURVIVAL, GRID, 15, () -> false);
        assertFalse(r.complete());
        assertTrue(r.ranked().size() < r.candidates(), r.ranked().size() + " runs");
        ParameterTuner.Report cancelled = tuner(ParameterTuner.CATALOG).tune(traffic, BalancePolicy.BR0,
                BalanceSettings.defaults(), BalancePolicy.BRH_SURVIVAL, GRID, 60_000, () -> true);
        assertEquals(1, cancelled.ranked().size());
        assertThrows(IllegalArgumentException.class, () -> tuner(ParameterTuner.CATALOG).tune(traffic.subList(0, 1),
                BalancePolicy.BR0, BalanceSettings.defaults(), BalancePolicy.BRH_SURVIVAL, GRID, 1, () -> false));
    }

    /**
     * The tuner replays through the policies the factory builds, the core's own by default: a
     * dispatcher with another F-score (here BR-0's margin ignored: every worker scores as empty)
     * changes what the tuner measures and reports.
     */
    @Test
    void replaysThroughTheSameCoreSoAChangedScoreChangesTheResult() {
        List<TraceRequest> traffic = DecodeSimulatorTest.workload(23, 400);
        ParameterTuner.Grid br0Only = new ParameterTuner.Grid(List.of(), List.of(), List.of(), true);
        ParameterTuner.Candidates changedScore = (c, t) -> {
            if (!c.policy().equals(BalancePolicy.BR0)) {
                return ParameterTuner.CATALOG.create(c, t);
            }
            Br0Score f = new Br0Score();
            TwoStageDispatcher d = new TwoStageDispatcher(c.settings(), new BarrierScore() {
                public void prepare(PoolView view) { f.prepare(view); }
                public double score(int worker, long delta) { return -delta; } // not the F-score: smallest first
                public double slope(int worker, long delta) { return -1; }
                public long orderMargin(int worker) { return f.orderMargin(worker); }
                public void assigned(int worker, RequestView request) { f.assigned(worker, request); }
            });
            RoutingPolicy p = new RoutingPolicy() {
                public String name() { return BalancePolicy.BR0; }
                public boolean usesPromptPool() { return true; }
                public int route(PoolView view, RequestView request) { return 0; }
                public void dispatch(DispatchStep step) { d.dispatch(step); }
            };
            return new PolicyCatalog.Setup(p, List.of());
        };
        ParameterTuner.Report real = tuner(ParameterTuner.CATALOG).tune(traffic, BalancePolicy.BR0,
                BalanceSettings.defaults(), BalancePolicy.BRH_SURVIVAL, br0Only, 60_000, () -> false);
        ParameterTuner.Report changed = tuner(changedScore).tune(traffic, BalancePolicy.BR0,
                BalanceSettings.defaults(), BalancePolicy.BRH_SURVIVAL, br0Only, 60_000, () -> false);
        assertNotEquals(real.current().result().steadyAvgImbalance(), changed.current().result().steadyAvgImbalance());
        // and the default factory is the simulator's policy catalog: the same run as simulate's
        PolicyCatalog.Setup br0 = PolicyCatalog.create("br0", 1, BalanceSettings.defaults(), id -> 0, traffic);
        SimulationResult direct = new DecodeSimulator(SMALL).run(traffic, br0.policy(), br0.learners(),
                StepObserver.NONE, n -> { });
        assertEquals(direct, real.current().result());
    }
    /** One replay is the search before replays: every score is its single run on the window as recorded. */
    @Test
    void oneReplayIsTheWindowAsRecordedAndReplayZeroOfMore() {
        List<TraceRequest> traffic = DecodeSimulatorTest.workload(24, 400);
        ParameterTuner.Report once = new ParameterTuner(SMALL, SteadyState.DEFAULT, ParameterTuner.CATALOG,
                System::currentTimeMillis, EVERY_PART, 1).tune(traffic, BalancePolicy.BRH_SURVIVAL, POOR,
                        BalancePolicy.BRH_SURVIVAL, GRID, 60_000, () -> false);
        ParameterTuner.Report before = new ParameterTuner(SMALL, SteadyState.DEFAULT, ParameterTuner.CATALOG,
                System::currentTimeMillis, EVERY_PART).tune(traffic, BalancePolicy.BRH_SURVIVAL, POOR,
                        BalancePolicy.BRH_SURVIVAL, GRID, 60_000, () -> false);
        assertEquals(1, once.replays());
        assertEquals(before.best().candidate(), once.best().candidate());
        assertEquals(before.predictedGain(), once.predictedGain());
        ParameterTuner.Report thrice = new ParameterTuner(SMALL, SteadyState.DEFAULT, ParameterTuner.CATALOG,
                System::currentTimeMillis, EVERY_PART, 3).tune(traffic, BalancePolicy.BRH_SURVIVAL, POOR,
                        BalancePolicy.BRH_SURVIVAL, GRID, 60_000, () -> false);
        for (ParameterTuner.Score s : once.ranked()) {
            assertEquals(List.of(ParameterTuner.objective(s.result())), s.replays());
            assertEquals(ParameterTuner.objective(s.result()), s.imbalance());
            ParameterTuner.Score three = thrice.ranked().stream().filter(t -> t.candidate().equals(s.candidate()))
                    .findFirst().orElseThrow();
            assertEquals(s.result(), three.result(), "replay 0 is the window as recorded");
            assertEquals(3, three.replays().size());
            assertEquals(s.replays().get(0), three.replays().get(0));
        }
        assertThrows(IllegalArgumentException.class, () -> new ParameterTuner(SMALL, SteadyState.DEFAULT,
                ParameterTuner.CATALOG, System::currentTimeMillis, EVERY_PART, 0));
    }

    /** Replay k is the sweep's shuffled copy k of the window, seeded by the config's seed, each with fresh predictors. */
    @Test
    void theReplaysAreTheSeededShufflesOfTheWindow() {
        List<TraceRequest> traffic = DecodeSimulatorTest.workload(25, 400);
        ParameterTuner.Grid none = new ParameterTuner.Grid(List.of(), List.of(), List.of(), false);
        ParameterTuner.Report r = new ParameterTuner(SMALL, SteadyState.DEFAULT, ParameterTuner.CATALOG,
                System::currentTimeMillis, RobustChoice.WHOLE_WINDOW, 3).tune(traffic, BalancePolicy.BRH_SURVIVAL, POOR,
                        BalancePolicy.BRH_SURVIVAL, none, 60_000, () -> false);
        for (int k = 0; k < 3; k++) {
            List<TraceRequest> shuffled = TraceSample.shuffled(traffic, SMALL.seed(), k);
            PolicyCatalog.Setup setup = ParameterTuner.CATALOG.create(r.current().candidate(), shuffled);
            SimulationResult direct = new DecodeSimulator(SMALL).run(shuffled, setup.policy(), setup.learners(),
                    StepObserver.NONE, n -> { });
            assertEquals(ParameterTuner.objective(direct), r.current().replays().get(k), "replay " + k);
        }
        assertNotEquals(r.current().replays().get(0), r.current().replays().get(1));
        double mean = r.current().replays().stream().mapToDouble(Double::doubleValue).average().orElseThrow();
        assertEquals(mean, r.current().imbalance(), 1e-9);
    }

    /**
     * A candidate that is best on the window as recorded by luck (here: br0 there, everything on
     * one worker on every other replay) wins one replay and loses on the mean to a candidate that
     * is good on every replay (jsq on all): one replay picks the lucky one, three the steady one.
     */
    @Test
    void aCandidateLuckyOnOneReplayLosesOnTheMean() {
        List<TraceRequest> traffic = DecodeSimulatorTest.workload(26, 500);
        ParameterTuner.Grid two = new ParameterTuner.Grid(List.of(8.0), List.of(0.64), List.of(20), true);
        RoutingPolicy oneWorker = new RoutingPolicy() {
            public String name() { return "one-worker"; }
            public boolean usesPromptPool() { return false; }
            public int route(PoolView view, RequestView request) { return 0; }
        };
        ParameterTuner.Candidates lucky = (c, t) -> {
            if (c.policy().equals(BalancePolicy.BR0)) {
                return t == traffic ? PolicyCatalog.create(BalancePolicy.BR0, 1, c.settings(), id -> 0, t)
                        : new PolicyCatalog.Setup(oneWorker, List.of());
            }
            return c.settings().equals(POOR) ? new PolicyCatalog.Setup(oneWorker, List.of())
                    : PolicyCatalog.create("jsq", 1, c.settings(), id -> 0, t);
        };
        ParameterTuner.Report once = new ParameterTuner(SMALL, SteadyState.DEFAULT, lucky, System::currentTimeMillis,
                RobustChoice.WHOLE_WINDOW, 1).tune(traffic, BalancePolicy.BRH_SURVIVAL, POOR, BalancePolicy.BRH_SURVIVAL,
                        two, 60_000, () -> false);
        ParameterTuner.Report mean = new ParameterTuner(SMALL, SteadyState.DEFAULT, lucky, System::currentTimeMillis,
                RobustChoice.WHOLE_WINDOW, 3).tune(traffic, BalancePolicy.BRH_SURVIVAL, POOR, BalancePolicy.BRH_SURVIVAL,
                        two, 60_000, () -> false);
        assertEquals(BalancePolicy.BR0, once.best().candidate().policy());
        assertEquals(BalancePolicy.BRH_SURVIVAL, mean.best().candidate().policy());
        ParameterTuner.Score br0 = mean.ranked().stream().filter(s -> s.candidate().policy().equals(BalancePolicy.BR0))
                .findFirst().orElseThrow();
        assertTrue(br0.replays().get(0) < mean.best().replays().get(0), "br0 still wins the recorded replay");
        assertTrue(br0.imbalance() > mean.best().imbalance());
    }
    /**
     * The robust rule with replays: a candidate better than the settings in force on the recorded
     * window only (br0 there, the same random policy as the settings in force on the other replays) beats
     * them on every part of the mean over the replays, but not on every replay: refused.
     */
    @Test
    void theRobustRuleAsksEveryReplayNotOnlyTheirMean() {
        List<TraceRequest> traffic = DecodeSimulatorTest.workload(27, 500);
        ParameterTuner.Grid br0Only = new ParameterTuner.Grid(List.of(), List.of(), List.of(), true);
        ParameterTuner.Candidates lucky = (c, t) -> PolicyCatalog.create(
                c.policy().equals(BalancePolicy.BR0) && t == traffic ? BalancePolicy.BR0 : "random", 1, c.settings(),
                id -> 0, t);
        ParameterTuner.Report once = new ParameterTuner(SMALL, SteadyState.DEFAULT, lucky, System::currentTimeMillis,
                EVERY_PART, 1).tune(traffic, BalancePolicy.BRH_SURVIVAL, POOR, BalancePolicy.BRH_SURVIVAL,
                        br0Only, 60_000, () -> false);
        assertEquals(BalancePolicy.BR0, once.best().candidate().policy(), "br0 wins every part of the recorded window");
        ParameterTuner.Report thrice = new ParameterTuner(SMALL, SteadyState.DEFAULT, lucky, System::currentTimeMillis,
                EVERY_PART, 3).tune(traffic, BalancePolicy.BRH_SURVIVAL, POOR, BalancePolicy.BRH_SURVIVAL,
                        br0Only, 60_000, () -> false);
        ParameterTuner.Score br0 = thrice.ranked().stream().filter(s -> s != thrice.current()).findFirst().orElseThrow();
        assertEquals(0, EVERY_PART.winner(thrice.current().parts(), List.of(br0.parts())),
                "on the mean over the replays it wins every part");
        assertEquals(1, RobustChoice.wins(thrice.current().replays(), br0.replays()));
        assertEquals(thrice.current(), thrice.best());
        assertEquals(0, thrice.wins());
    }

    /** The gate's measure: the halves of the replays ranking the candidates alike (1), reversed (-1), or no halves. */
    @Test
    void theAgreementIsTheRankCorrelationOfTheHalvesOfTheReplays() {
        List<ParameterTuner.Score> alike = List.of(score(10, 11, 10, 12), score(20, 19, 21, 20), score(30, 30, 29, 31));
        assertEquals(1.0, ParameterTuner.agreement(alike), 1e-12);
        List<ParameterTuner.Score> reversed = List.of(score(10, 10, 30, 30), score(20, 20, 20, 20), score(30, 30, 10, 10));
        assertEquals(-1.0, ParameterTuner.agreement(reversed), 1e-12);
        assertTrue(Double.isNaN(ParameterTuner.agreement(List.of(score(10), score(20)))), "one replay: no halves");
        assertTrue(Double.isNaN(ParameterTuner.agreement(List.of(score(10, 10), score(10, 10)))), "all alike");
        // ties share their mean rank
        assertEquals(1.0, RobustChoice.rankCorrelation(new double[] {1, 1, 2}, new double[] {5, 5, 9}), 1e-12);
        assertTrue(RobustChoice.DEFAULT.agreed(0.5));
        assertFalse(RobustChoice.DEFAULT.agreed(0.49));
        assertFalse(RobustChoice.DEFAULT.agreed(Double.NaN));
        assertTrue(new RobustChoice(1, 1).agreed(Double.NaN), "no gate");
        assertThrows(IllegalArgumentException.class, () -> new RobustChoice(1, 1, 1.01));
        assertThrows(IllegalArgumentException.class, () -> new RobustChoice(1, 1, Double.NaN));
    }

    /**
     * Candidates that differ only by luck (each a random policy seeded by candidate and replay):
     * the lowest mean over four replays is some candidate's, but the halves of the replays rank
     * them unalike, so the gate keeps the settings in force; without the gate the lucky one wins.
     * Candidates that differ for real (the settings in force send everything to one worker, the
     * others balance) pass the gate and the lowest mean wins.
     */
    @Test
    void theAgreementGateKeepsTheSettingsInForceWhenTheReplaysDisagree() {
        List<TraceRequest> traffic = DecodeSimulatorTest.workload(28, 400);
        List<List<TraceRequest>> replays = List.of(traffic, TraceSample.shuffled(traffic, SMALL.seed(), 1),
                TraceSample.shuffled(traffic, SMALL.seed(), 2), TraceSample.shuffled(traffic, SMALL.seed(), 3));
        ParameterTuner.Candidates luck = (c, t) -> PolicyCatalog.create("random",
                31L * c.label().hashCode() + replays.indexOf(t), c.settings(), id -> 0, t);
        ParameterTuner.Report gated = new ParameterTuner(SMALL, SteadyState.DEFAULT, luck, System::currentTimeMillis,
                RobustChoice.DEFAULT, 4).tune(traffic, BalancePolicy.BRH_SURVIVAL, POOR, BalancePolicy.BRH_SURVIVAL,
                        GRID, 60_000, () -> false);
        assertTrue(gated.agreement() < RobustChoice.DEFAULT.agreement(), "agreement " + gated.agreement());
        assertEquals(gated.current(), gated.best());
        assertEquals(0, gated.predictedGain());
        ParameterTuner.Report open = new ParameterTuner(SMALL, SteadyState.DEFAULT, luck, System::currentTimeMillis,
                RobustChoice.WHOLE_WINDOW, 4).tune(traffic, BalancePolicy.BRH_SURVIVAL, POOR, BalancePolicy.BRH_SURVIVAL,
                        GRID, 60_000, () -> false);
        assertNotEquals(open.current(), open.best(), "without the gate the luckiest mean wins");
        assertEquals(gated.agreement(), open.agreement());

        RoutingPolicy oneWorker = new RoutingPolicy() {
            public String name() { return "one-worker"; }
            public boolean usesPromptPool() { return false; }
            public int route(PoolView view, RequestView request) { return 0; }
        };
        // three levels, far apart on every replay: one worker (in force), random (H=20), br0 (the rest)
        ParameterTuner.Candidates real = (c, t) -> c.policy().equals(BalancePolicy.BRH_SURVIVAL) && c.settings().equals(POOR)
                ? new PolicyCatalog.Setup(oneWorker, List.of())
                : PolicyCatalog.create(c.policy().equals(BalancePolicy.BR0) || c.settings().horizon() != 20 ? BalancePolicy.BR0
                        : "random", 1, c.settings(), id -> 0, t);
        ParameterTuner.Report moved = new ParameterTuner(SMALL, SteadyState.DEFAULT, real, System::currentTimeMillis,
                RobustChoice.DEFAULT, 4).tune(traffic, BalancePolicy.BRH_SURVIVAL, POOR, BalancePolicy.BRH_SURVIVAL,
                        GRID, 60_000, () -> false);
        assertTrue(moved.agreement() >= RobustChoice.DEFAULT.agreement(), "agreement " + moved.agreement());
        assertEquals(moved.ranked().get(0), moved.best());
        assertNotEquals(moved.current(), moved.best());
    }

    private static ParameterTuner.Score score(double... replays) {
        return new ParameterTuner.Score(new ParameterTuner.Candidate(BalancePolicy.BR0, BalanceSettings.defaults()), null,
                List.of(), java.util.Arrays.stream(replays).boxed().toList());
    }
}
