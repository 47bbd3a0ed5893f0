package org.balanceroute.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.Collections;
import java.util.List;
import org.balanceroute.policy.balance.BalancePolicy;
import org.balanceroute.simulator.ParameterTuner;
import org.balanceroute.simulator.RobustChoice;
import org.balanceroute.simulator.SimulationResult;
import org.junit.jupiter.api.Test;

/** A row of the self-tuning table from made-up scores, figure by figure; and the table's workloads as it names them. */
class TuneTableCommandTest {

    private static ParameterTuner.Candidate brh(int horizon) {
        return new ParameterTuner.Candidate(BalancePolicy.BRH_SURVIVAL, TuneTableCommand.start(horizon));
    }

    /** A candidate whose 8 replays score {@code low} on the first half and {@code high} on the second. */
    private static ParameterTuner.Score score(ParameterTuner.Candidate c, double low, double high) {
        SimulationResult r = new SimulationResult(c.policy(), low, 0, 0, 0, 0, 0, 1, 1, 0, 0, 1, 0, 0, 0, 0, 0, 1, 1,
                low, 0, 0);
        List<Double> replays = new java.util.ArrayList<>(Collections.nCopies(4, low));
        replays.addAll(Collections.nCopies(4, high));
        return new ParameterTuner.Score(c, r, List.of(), replays);
    }

    private static ParameterTuner.Report report(ParameterTuner.Score current, ParameterTuner.Score best,
            List<ParameterTuner.Score> ranked, double agreement) {
        return new ParameterTuner.Report(current, best, 1 - best.imbalance() / current.imbalance(), ranked, ranked.size(),
                true, 1, 100, RobustChoice.DEFAULT, 0, 8, agreement);
    }

    // on the rest: H=80 best (92), then 96, then the start H=20 (100), then 110
    private static final ParameterTuner.Score REST_START = score(brh(20), 100, 100);
    private static final ParameterTuner.Score REST_BEST = score(brh(80), 92, 92);
    private static final ParameterTuner.Score REST_BR0 = score(new ParameterTuner.Candidate(BalancePolicy.BR0,
            TuneTableCommand.start(80)), 96, 96);
    private static final ParameterTuner.Score REST_WORST = score(brh(200), 104, 116);
    private static final ParameterTuner.Report REST = report(REST_START, REST_BEST,
            List.of(REST_BEST, REST_BR0, REST_START, REST_WORST), 1);

    @Test
    void aMoveToTheBestFixedSettingRecoversAllOfItsGain() {
        ParameterTuner.Score start = score(brh(20), 50, 50);
        ParameterTuner.Score best = score(brh(80), 40, 40);
        String row = TuneTableCommand.row("W (1 min)", 20, report(start, best, List.of(best, start), 0.9), REST);
        // rank 3 of 4; gain 8% on the mean and cross-validated (H=80 best on both halves), SE 0: real, bold
        assertEquals("| W (1 min) | 0.90 | 20 | 3 | 8.0% | **8.0% ± 0.0%** | H=80, (43, 0.86): -8.0% | 100% |", row);
    }

    @Test
    void theGateKeepsTheStartAndAStartThatIsBestHasNothingToRecover() {
        ParameterTuner.Score start = score(brh(20), 50, 50);
        ParameterTuner.Score best = score(brh(80), 40, 40);
        // halves that disagree (0.2 < the gate 0.5): the start stays, nothing of the 8% recovered
        assertEquals("|  (1 min) | 0.20 | 20 | 3 | 8.0% | **8.0% ± 0.0%** | kept the start | 0% |",
                TuneTableCommand.row(" (1 min)", 20, report(start, start, List.of(best, start), 0.2), REST));
        ParameterTuner.Score fromBest = score(brh(80), 40, 40);
        ParameterTuner.Score br0 = score(new ParameterTuner.Candidate(BalancePolicy.BR0, TuneTableCommand.start(80)), 30, 30);
        assertEquals("|  (1 min) | 0.70 | 80 | 1 | 0.0% | 0.0% ± 0.0% | br0: +4.3% | nothing to recover |",
                TuneTableCommand.row(" (1 min)", 80, report(fromBest, br0, List.of(br0, fromBest), 0.7), REST));
    }

    @Test
    void aGainWithinTwoStandardErrorsIsNotBold() {
        // the start H=200 scores 104 then 116 on the halves: SE 2.1%, H=80 best on both halves: 16.1%, real
        ParameterTuner.Score start = score(brh(200), 50, 50);
        assertEquals("|  (1 min) | 0.10 | 200 | 4 | 16.4% | **16.1% ± 2.1%** | kept the start | 0% |",
                TuneTableCommand.row(" (1 min)", 200, report(start, start, List.of(start), 0.1), REST));
        // a start of 80 then 140 (SE 10.3%): itself best on the first half, H=80 on the second: -7.5%, noise
        ParameterTuner.Score noisy = score(brh(200), 80, 140);
        ParameterTuner.Report rest = report(noisy, REST_BEST, List.of(REST_BEST, REST_BR0, REST_START, noisy), 1);
        assertEquals("|  (1 min) | 0.10 | 200 | 4 | 16.4% | -7.5% ± 10.3% | kept the start | 0% |",
                TuneTableCommand.row(" (1 min)", 200, report(start, start, List.of(start), 0.1), rest));
    }

    @Test
    void theWorkloadsAreTheTablesTwentyInItsOrder() {
        assertEquals(20, TuneTableCommand.WORKLOADS.size());
        TuneTableCommand.Workload azure = TuneTableCommand.WORKLOADS.get(5);
        assertEquals("Azure 2023, G=8, load 1.1 (1 min)", azure.label() + " " + azure.window());
        assertEquals("./balanceroute tune --trace ../shared/traces/azure2023-conv.csv --load 1.1 --workers 8"
                + " --window-minutes 1 --horizon 80", azure.command(80));
        TuneTableCommand.Workload seeded = TuneTableCommand.WORKLOADS.get(18);
        assertEquals("built-in 12,000 (seed 2), G=16, load 1.2 (5 min)", seeded.label() + " " + seeded.window());
    }
}
