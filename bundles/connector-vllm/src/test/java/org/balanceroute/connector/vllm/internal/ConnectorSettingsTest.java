package org.balanceroute.connector.vllm.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.balanceroute.api.config.ConfigProperties;
import org.balanceroute.api.config.ConfigurationException;
import org.balanceroute.connector.vllm.VllmConnector;
import org.junit.jupiter.api.Test;

class ConnectorSettingsTest {

    @Test
    void theEnginesAreThePoolsTheSettingsHowToReachThem() {
        ConnectorSettings d = from(Map.of());
        assertTrue(d.pool().workers().isEmpty(), "no engine before the fleet names one");
        ConnectorSettings s = d.withPool(VllmConnectorHttpTest.pool(List.of("http://p:1"), List.of("http://d:1")));
        assertEquals(List.of("http://p:1"), new Endpoints(s, null).prefill);
        assertEquals("http://d:1", new Endpoints(s, null).decode.get(0).id());
        assertEquals(d.apiKey(), s.apiKey());
    }

    /** The router may still place on a worker the connector just dropped (FleetIT.b_ lost streams so). */
    @Test
    void aDroppedDecodeWorkerStaysReachableByItsIdentityUntilTheNextConfiguration() {
        ConnectorSettings d = from(Map.of());
        Endpoints two = new Endpoints(d.withPool(VllmConnectorHttpTest.pool(List.of(), List.of("http://d:1", "http://d:2"))), null);
        Endpoints one = new Endpoints(d.withPool(VllmConnectorHttpTest.pool(List.of(), List.of("http://d:2"))), two);
        assertEquals(Map.of(), two.removed);
        assertEquals(List.of("http://d:1"), one.removed.values().stream().map(org.balanceroute.fleet.Endpoint::id).toList());
        assertEquals(null, one.decodeIndex.get("http://d:1"));
        assertEquals(Map.of(), new Endpoints(one.settings, one).removed);
    }

    static ConnectorSettings from(Map<String, Object> overrides) {
        Map<String, Object> m = new HashMap<>();
        m.putAll(overrides);
        return ConnectorSettings.from(ConfigProperties.of(VllmConnector.PID, m));
    }

    @Test
    void thePrefillBudgetAndQueueHaveDefaultsAndRanges() {
        ConnectorSettings d = from(Map.of());
        assertEquals(64, d.prefillMaxInFlight());
        assertEquals(4096, d.prefillQueueMax());
        assertEquals(0, from(Map.of("prefillMaxInFlight", 0, "prefillQueueMax", 0)).prefillQueueMax());
        ConfigurationException e = assertThrows(ConfigurationException.class,
                () -> from(Map.of("prefillMaxInFlight", -1)));
        assertEquals("org.balanceroute.connector.vllm: prefillMaxInFlight must be an integer in [0, 100000], got -1", e.getMessage());
        e = assertThrows(ConfigurationException.class, () -> from(Map.of("prefillQueueMax", 2_000_000)));
        assertEquals("org.balanceroute.connector.vllm: prefillQueueMax must be an integer in [0, 1000000], got 2000000", e.getMessage());
    }

    @Test
    void theHealthFailureThresholdHasADefaultAndARange() {
        assertEquals(3, from(Map.of()).healthFailureThreshold());
        assertEquals(1, from(Map.of("healthFailureThreshold", 1)).healthFailureThreshold());
        ConfigurationException e = assertThrows(ConfigurationException.class,
                () -> from(Map.of("healthFailureThreshold", 0)));
        assertEquals("org.balanceroute.connector.vllm: healthFailureThreshold must be an integer in [1, 100], got 0", e.getMessage());
    }
}
