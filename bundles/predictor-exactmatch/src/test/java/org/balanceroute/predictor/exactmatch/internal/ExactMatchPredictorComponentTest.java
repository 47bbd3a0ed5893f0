package org.balanceroute.predictor.exactmatch.internal;

import org.balanceroute.testkit.ComponentConfigs;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.Map;
import org.balanceroute.predictor.exactmatch.ExactMatchSettings;
import org.balanceroute.predictor.survival.SurvivalSettings;
import org.junit.jupiter.api.Test;

class ExactMatchPredictorComponentTest {

    private static ExactMatchPredictorComponent.Config config(Map<String, ?> values) {
        return ComponentConfigs.of(ExactMatchPredictorComponent.Config.class, values);
    }

    @Test
    void defaultsAndName() {
        ExactMatchPredictorComponent p = new ExactMatchPredictorComponent(config(Map.of()));
        assertEquals("exact-match", p.name());
        assertEquals(ExactMatchSettings.defaults(), p.exactSettings());
        assertEquals(SurvivalSettings.defaults(), p.survivalSettings());
    }

    @Test
    void anInvalidConfigurationKeepsTheSettingsInForce() {
        ExactMatchPredictorComponent p = new ExactMatchPredictorComponent(config(Map.of("minCount", 2)));
        p.modified(config(Map.of("minCount", 100, "maxLengthsPerPrompt", 64)));
        p.modified(config(Map.of("maxPrompts", 0)));
        p.modified(config(Map.of("minSamples", 0L)));
        assertEquals(2, p.exactSettings().minCount());
        p.modified(config(Map.of("minCount", 5, "maxLengthsPerPrompt", 8, "minSamples", 4L)));
        assertEquals(new ExactMatchSettings(5, ExactMatchSettings.DEFAULT_MAX_PROMPTS, 8), p.exactSettings());
        assertEquals(new SurvivalSettings(4), p.survivalSettings());
    }
}
