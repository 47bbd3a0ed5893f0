package org.balanceroute.predictor.exactmatch;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class ExactMatchSettingsTest {

    @Test
    void defaults() {
        assertEquals(new ExactMatchSettings(3, 1_000_000, 64), ExactMatchSettings.defaults());
    }

    @Test
    void rejectsOutOfRangeValuesNamingTheField() {
        assertField("minCount", () -> new ExactMatchSettings(0, 10, 10));
        assertField("minCount", () -> new ExactMatchSettings(11, 10, 10));
        assertField("maxPrompts", () -> new ExactMatchSettings(1, 0, 10));
        assertField("maxPrompts",
                () -> new ExactMatchSettings(1, ExactMatchSettings.MAX_PROMPTS + 1, 10));
        assertField("maxLengthsPerPrompt", () -> new ExactMatchSettings(1, 10, 0));
        assertField("maxLengthsPerPrompt", () -> new ExactMatchSettings(
                1, 10, ExactMatchSettings.MAX_LENGTHS_PER_PROMPT + 1));
    }

    private static void assertField(String field, Runnable construct) {
        IllegalArgumentException e =
                assertThrows(IllegalArgumentException.class, construct::run);
        assertTrue(e.getMessage().startsWith(field + " "), e.getMessage());
    }
}
