package org.balanceroute.predictor.survival.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.Map;
import org.balanceroute.api.RequestView;
import org.balanceroute.api.TerminationPredictor;
import org.balanceroute.api.config.ConfigurationException;
import org.balanceroute.predictor.survival.SurvivalSettings;
import org.junit.jupiter.api.Test;

class SurvivalPredictorComponentTest {

    private static final RequestView REQUEST = new RequestView() {
        public long id() { return 1; }
        public int promptTokens() { return 10; }
        public int decodedTokens() { return 5; }
        public long promptKey() { return NO_PROMPT_KEY; }
        public int bodyBytes() { return 0; }
        public long arrivalNanos() { return 0; }
    };

    @Test
    void learnsAndPredictsThroughTheAdapter() {
        SurvivalPredictorComponent p = new SurvivalPredictorComponent(Map.of("minSamples", 2L));
        assertEquals("survival", p.name());
        assertEquals(TerminationPredictor.SURVIVES, p.predictEnd(REQUEST, 10, 0.5));
        p.onCompleted(REQUEST, 8);
        p.onCompleted(REQUEST, 8);
        assertEquals(3, p.predictEnd(REQUEST, 10, 0.5), "every length seen is 8: ends 3 steps after j=5");
    }

    @Test
    void anInvalidConfigurationKeepsTheSettingsAndWhatWasLearned() {
        SurvivalPredictorComponent p = new SurvivalPredictorComponent(Map.of("minSamples", 2L));
        p.onCompleted(REQUEST, 8);
        p.onCompleted(REQUEST, 8);
        p.modified(Map.of("minSamples", 0L));
        assertEquals(new SurvivalSettings(2), p.settings());
        assertEquals(3, p.predictEnd(REQUEST, 10, 0.5));
        p.modified(Map.of("minSamples", 2L));
        assertEquals(3, p.predictEnd(REQUEST, 10, 0.5), "the same settings again change nothing");

        p.modified(Map.of("minSamples", 1L));
        assertEquals(new SurvivalSettings(1), p.settings());
        assertEquals(TerminationPredictor.SURVIVES, p.predictEnd(REQUEST, 10, 0.5), "a real change restarts learning");
    }

    @Test
    void anInvalidFirstConfigurationFailsTheActivation() {
        ConfigurationException e = assertThrows(ConfigurationException.class,
                () -> new SurvivalPredictorComponent(Map.of("minSamples", 32L, "window", 31)));
        assertEquals("org.balanceroute.predictor.survival: window must be 0 (every length) or in [minSamples = 32, "
                + "1048576], got 31", e.getMessage());
    }
}
