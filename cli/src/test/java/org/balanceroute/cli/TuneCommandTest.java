package org.balanceroute.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import org.balanceroute.policy.balance.BalancePolicy;
import org.balanceroute.policy.balance.BalanceSettings;
import org.balanceroute.simulator.ParameterTuner;
import org.balanceroute.simulator.RobustChoice;
import org.balanceroute.simulator.SimulationResult;
import org.junit.jupiter.api.Test;

class TuneCommandTest {

    @Test
    void theShareRecoveredIsOfTheGainBetweenTheStartAndTheBestFixedSetting() {
        assertEquals("recovered 80% of the best fixed setting's gain", TuneCommand.verdict(100, 60, 50));
        assertEquals("recovered -20% of the best fixed setting's gain", TuneCommand.verdict(100, 110, 50));
    }

    @Test
    void aStartThatIsAlreadyBestHasNothingToRecover() {
        assertEquals("the start is already the best fixed setting on the rest: nothing to recover;"
                + " the tuned choice's imbalance +10.0% against it", TuneCommand.verdict(100, 110, 100));
        assertEquals("the start is already the best fixed setting on the rest: nothing to recover;"
                + " the tuned choice's imbalance +0.0% against it", TuneCommand.verdict(100, 100, 100));
    }

    private static ParameterTuner.Score score(String policy, double imbalance) {
        SimulationResult r = new SimulationResult(policy, imbalance, 0, 0, 0, 0, 0, 1, 1, 0, 0, 1, 0, 0, 0, 0, 0, 1, 1,
                imbalance, 0, 0);
        return new ParameterTuner.Score(new ParameterTuner.Candidate(policy, BalanceSettings.defaults()), r, List.of(),
                List.of(imbalance));
    }

    private static ParameterTuner.Report report(ParameterTuner.Score current, ParameterTuner.Score best, int wins) {
        double gain = 1 - best.result().steadyAvgImbalance() / current.result().steadyAvgImbalance();
        return new ParameterTuner.Report(current, best, gain, List.of(best, current), 2, true, 1, 10,
                new RobustChoice(5, 1), wins, 1, Double.NaN);
    }

    @Test
    void theDecisionSaysWhatTheRuntimeWouldApplyAndWhy() {
        ParameterTuner.Score start = score(BalancePolicy.BRH_SURVIVAL, 100);
        assertEquals("kept the start: no candidate beats it on 5 of 5 parts of the window",
                TuneCommand.decision(report(start, start, 0), 0.05));
        ParameterTuner.Score br0 = score(BalancePolicy.BR0, 92);
        assertEquals("br0 (predicted gain 8.0%, better on 5 of 5 parts)", TuneCommand.decision(report(start, br0, 5), 0.05));
        assertEquals("kept the start: the best, br0 (predicted gain 8.0%, better on 5 of 5 parts), is below the margin"
                + " 10.0%", TuneCommand.decision(report(start, br0, 5), 0.10));
    }

    @Test
    void withReplaysTheDecisionSaysOnHowManyTheWinnerWasBetter() {
        ParameterTuner.Candidate brh = new ParameterTuner.Candidate(BalancePolicy.BRH_SURVIVAL, BalanceSettings.defaults());
        ParameterTuner.Score start = new ParameterTuner.Score(brh, score(BalancePolicy.BRH_SURVIVAL, 100).result(),
                List.of(), List.of(100.0, 110.0, 90.0));
        ParameterTuner.Score br0 = new ParameterTuner.Score(new ParameterTuner.Candidate(BalancePolicy.BR0,
                BalanceSettings.defaults()), score(BalancePolicy.BR0, 92).result(), List.of(), List.of(92.0, 100.0, 84.0));
        ParameterTuner.Report moved = new ParameterTuner.Report(start, br0, 1 - 92.0 / 100, List.of(br0, start), 2, true,
                1, 10, new RobustChoice(5, 1), 5, 3, 0.9);
        assertEquals("br0 (predicted gain 8.0%, better on 5 of 5 parts and 3 of 3 replays, the replays' halves agreeing"
                + " at 0.90)", TuneCommand.decision(moved, 0.05));
        ParameterTuner.Report kept = new ParameterTuner.Report(start, start, 0, List.of(start, br0), 2, true, 1, 10,
                new RobustChoice(5, 1), 0, 3, 0.9);
        assertEquals("kept the start: no candidate beats it on 5 of 5 parts of the window and 3 of 3 replays",
                TuneCommand.decision(kept, 0.05));
    }

    @Test
    void belowTheAgreementGateTheDecisionSaysTheDifferencesAreNoise() {
        ParameterTuner.Candidate brh = new ParameterTuner.Candidate(BalancePolicy.BRH_SURVIVAL, BalanceSettings.defaults());
        ParameterTuner.Score start = new ParameterTuner.Score(brh, score(BalancePolicy.BRH_SURVIVAL, 100).result(),
                List.of(), List.of(100.0, 100.0, 100.0, 100.0));
        ParameterTuner.Report gated = new ParameterTuner.Report(start, start, 0, List.of(start), 1, true, 1, 10,
                RobustChoice.DEFAULT, 0, 4, 0.1);
        assertEquals("kept the start: the halves of the 4 replays do not agree on the candidates' order (rank correlation"
                + " 0.10, the gate 0.50): their differences are noise", TuneCommand.decision(gated, 0));
    }

    /**
     * The best on one half of the replays, scored on the other: here the best of the first half
     * (b) is worse than the start on the second, and the best of the second (c) gains 10% on the first.
     */
    @Test
    void theCrossValidatedGainScoresTheBestOfEachHalfOnTheOther() {
        ParameterTuner.Candidate brh = new ParameterTuner.Candidate(BalancePolicy.BRH_SURVIVAL, BalanceSettings.defaults());
        ParameterTuner.Score start = new ParameterTuner.Score(brh, null, List.of(), List.of(100.0, 100.0, 100.0, 100.0));
        ParameterTuner.Score b = new ParameterTuner.Score(brh, null, List.of(), List.of(80.0, 80.0, 110.0, 110.0));
        ParameterTuner.Score c = new ParameterTuner.Score(brh, null, List.of(), List.of(90.0, 90.0, 90.0, 90.0));
        ParameterTuner.Report r = new ParameterTuner.Report(start, b, 0.05, List.of(b, c, start), 3, true, 1, 10,
                RobustChoice.WHOLE_WINDOW, 0, 4, Double.NaN);
        assertEquals((-0.10 + 0.10) / 2, TuneCommand.crossValidatedGain(r), 1e-12);
        assertEquals(0.0, TuneCommand.standardError(start.replays()), 1e-12);
        assertEquals(Math.sqrt(500.0 / 3 / 4) / 95, TuneCommand.standardError(List.of(80.0, 90.0, 100.0, 110.0)), 1e-12);
    }
}
