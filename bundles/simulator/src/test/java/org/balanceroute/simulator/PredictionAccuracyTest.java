package org.balanceroute.simulator;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.balanceroute.policy.balance.BalanceSettings;
import org.balanceroute.predictor.survival.SurvivalSettings;
import org.balanceroute.trace.TraceRequest;
import org.junit.jupiter.api.Test;

class PredictionAccuracyTest {

    /**
     * H = 4, values clipped to [1, 5]. Pairs (predicted, true): (1, 1), (2, 3), (survives = 5, 5),
     * (3, 10 -> 5). Errors 0, 1, 0, 2: MAE 0.75. True values 1, 3, 5, 5: median 3, constant MAE
     * (2 + 0 + 2 + 2) / 4 = 1.5. Ranks: predicted 1, 2, 4, 3; true 1, 2, 3.5, 3.5; about the mean
     * 2.5: cov 4.5, var 5 and 4.5, rho = 4.5 / sqrt(22.5) = sqrt(0.9).
     */
    @Test
    void aHandComputedCase() {
        PredictionAccuracy a = new PredictionAccuracy(4);
        a.add(1, 1);
        a.add(2, 3);
        a.add(0, 5);
        a.add(3, 10);
        assertEquals(4, a.count());
        assertEquals(0.75, a.meanAbsoluteError(), 1e-12);
        assertEquals(1.5, a.constantMeanAbsoluteError(), 1e-12);
        assertEquals(Math.sqrt(0.9), a.rankCorrelation(), 1e-12);
    }

    @Test
    void aConstantAnswerHasNoRankCorrelation() {
        PredictionAccuracy a = new PredictionAccuracy(8);
        a.add(0, 3);
        a.add(0, 7);
        assertTrue(Double.isNaN(a.rankCorrelation()));
        assertEquals(4.0, a.meanAbsoluteError(), 1e-12, "survives is H+1 = 9: errors 6 and 2");
    }

    @Test
    void theOracleIsExactAndSurvivalIsNot() {
        List<TraceRequest> trace = DecodeSimulatorTest.workload(11, 600);
        SimulationConfig config = new SimulationConfig(4, 8, 2e-7, 0.02, 0, 0, 0, 1);
        BalanceSettings balance = BalanceSettings.defaults();
        PredictionAccuracy oracle = MeasuredPredictor.measure("brh-oracle", trace, List.of(), config, balance,
                SurvivalSettings.defaults());
        assertTrue(oracle.count() > 0);
        assertEquals(0.0, oracle.meanAbsoluteError());
        assertEquals(1.0, oracle.rankCorrelation(), 1e-12);
        PredictionAccuracy survival = MeasuredPredictor.measure("brh-survival", trace, List.of(), config, balance,
                SurvivalSettings.defaults());
        assertTrue(survival.meanAbsoluteError() > 0);
    }
}
