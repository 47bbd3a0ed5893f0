package org.balanceroute.proxy.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Map;
import org.balanceroute.api.config.ConfigProperties;
import org.balanceroute.api.config.ConfigurationException;
import org.junit.jupiter.api.Test;

class ProxySettingsTest {

    private static ProxySettings read(Map<String, ?> values) {
        return ProxySettings.from(ConfigProperties.of(CompletionFlow.PID, values));
    }

    private static String rejected(String field, Object value) {
        ConfigurationException e = assertThrows(ConfigurationException.class, () -> read(Map.of(field, value)));
        assertEquals(field, e.property());
        assertTrue(e.getMessage().startsWith("org.balanceroute.proxy: " + field + " must be "), e.getMessage());
        return e.getMessage();
    }

    @Test
    void theMetatypeDefaultsAreTheDefaults() {
        ProxySettings s = read(Map.of());
        assertEquals(4096, s.maxPoolDepth());
        assertEquals(1, s.retryAfterSeconds());
        assertEquals(15_000, s.pingIntervalMillis());
        assertEquals(2, s.maxRecomputes());
    }

    @Test
    void thePoolWaitMustEndBeforeTheEngineFreesTheKv() {
        assertEquals(479_999, read(Map.of("placementTimeoutMillis", 479_999L)).placementTimeoutMillis());
        String message = rejected("placementTimeoutMillis", 480_000L);
        assertTrue(message.contains("VLLM_MOONCAKE_ABORT_REQUEST_TIMEOUT"), message);
        rejected("placementTimeoutMillis", 3_600_000L);
        rejected("placementTimeoutMillis", 0L);
    }

    @Test
    void outOfRangeValuesNameTheirField() {
        rejected("maxPoolDepth", -1);
        assertEquals(0, read(Map.of("maxPoolDepth", 0)).maxPoolDepth());
        rejected("retryAfterSeconds", 0);
        rejected("retryAfterSeconds", 3601);
        rejected("pingIntervalMillis", -1L);
        rejected("pingIntervalMillis", 99L);
        assertEquals(0, read(Map.of("pingIntervalMillis", 0L)).pingIntervalMillis());
        assertEquals(100, read(Map.of("pingIntervalMillis", 100L)).pingIntervalMillis());
        rejected("maxRecomputes", 17);
        rejected("maxRecomputes", -1);
        assertEquals("org.balanceroute.proxy: maxBodyBytes must be an integer in [1024, 1073741824], got 'abc'",
                rejected("maxBodyBytes", "abc"));
    }

    @Test
    void anInvalidConfigurationFailsTheActivation() {
        assertThrows(ConfigurationException.class, () -> new CompletionFlow(Map.of("maxPoolDepth", -1), null));
    }

    @Test
    void anInvalidUpdateKeepsThePreviousConfiguration() {
        CompletionFlow flow = new CompletionFlow(new FlowFakes.Router(), new FlowFakes.Connector(),
                read(Map.of("maxPoolDepth", 7)));
        try {
            flow.modified(Map.of("maxPoolDepth", 9, "pingIntervalMillis", 5L));
            assertEquals(7, flow.settings().maxPoolDepth());
            flow.modified(Map.of("maxPoolDepth", 9));
            assertEquals(9, flow.settings().maxPoolDepth());
        } finally {
            flow.close();
        }
    }
}
