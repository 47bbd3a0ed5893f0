package org.balanceroute.predictor.exactmatch.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.Map;
import org.balanceroute.api.config.ConfigurationException;
import org.balanceroute.predictor.exactmatch.ExactMatchSettings;
import org.balanceroute.predictor.survival.SurvivalSettings;
import org.junit.jupiter.api.Test;

class ExactMatchPredictorComponentTest {

    @Test
    void defaultsAndName() {
        ExactMatchPredictorComponent p = new ExactMatchPredictorComponent(Map.of());
        assertEquals("exact-match", p.name());
        assertEquals(ExactMatchSettings.defaults(), p.exactSettings());
        assertEquals(SurvivalSettings.defaults(), p.survivalSettings());
    }

    @Test
    void anInvalidConfigurationKeepsTheSettingsInForce() {
        ExactMatchPredictorComponent p = new ExactMatchPredictorComponent(Map.of("minCount", 2));
        p.modified(Map.of("minCount", 100, "maxLengthsPerPrompt", 64));
        p.modified(Map.of("maxPrompts", 0));
        p.modified(Map.of("minSamples", 0L));
        assertEquals(2, p.exactSettings().minCount());
        p.modified(Map.of("minCount", 5, "maxLengthsPerPrompt", 8, "minSamples", 4L));
        assertEquals(new ExactMatchSettings(5, ExactMatchSettings.DEFAULT_MAX_PROMPTS, 8), p.exactSettings());
        assertEquals(new SurvivalSettings(4), p.survivalSettings());
    }

    @Test
    void anInvalidFirstConfigurationFailsTheActivationNamingTheRule() {
        ConfigurationException e = assertThrows(ConfigurationException.class,
                () -> new ExactMatchPredictorComponent(Map.of("minCount", 9, "maxLengthsPerPrompt", 8)));
        assertEquals("org.balanceroute.predictor.exactmatch: minCount must be an integer in [1, maxLengthsPerPrompt"
                + " = 8], got 9", e.getMessage());
    }
}
