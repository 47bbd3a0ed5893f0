package org.balanceroute.connector.vllm.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.balanceroute.testkit.ComponentConfigs;
import org.junit.jupiter.api.Test;

class ConnectorSettingsTest {

    @Test
    void decodeWorkersTakeAnOptionalRank() {
        assertEquals(new ConnectorSettings.DecodeWorker("http://h:1", -1), ConnectorSettings.worker("http://h:1/"));
        assertEquals(new ConnectorSettings.DecodeWorker("http://h:1", 3), ConnectorSettings.worker(" http://h:1 ;rank=3"));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> ConnectorSettings.worker("http://h:1;rank=-1"));
        assertTrue(e.getMessage().startsWith("decodeWorkers"));
        assertThrows(IllegalArgumentException.class, () -> ConnectorSettings.worker("ftp://h:1"));
    }

    @Test
    void commaSeparatedEntriesAreSplit() {
        assertEquals(List.of("a", "b", "c"), ConnectorSettings.nonNull(new String[] {"a, b", " ", "c"}));
    }

    @Test
    void theDefaultsPointAtTheSimulatedCluster() {
        ConnectorSettings d = ConnectorSettings.defaults();
        assertEquals(List.of("http://127.0.0.1:18100", "http://127.0.0.1:18101"), d.prefillUrls());
        assertEquals(8, d.decodeWorkers().size());
        assertEquals("http://127.0.0.1:18207", d.decodeWorkers().get(7).url());
    }

    private static ConnectorSettings from(Map<String, Object> overrides) {
        Map<String, Object> m = new HashMap<>(Map.of("decodeWorkers", "http://h:1"));
        m.putAll(overrides);
        return ConnectorSettings.from(ComponentConfigs.of(ConnectorConfig.class, m));
    }

    @Test
    void anEmptyPrefillListIsCoLocatedModeNotAnError() {
        assertEquals(List.of(), from(Map.of("prefillUrls", " ")).prefillUrls());
        assertEquals(List.of(), from(Map.of("prefillUrls", "")).prefillUrls());
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> from(Map.of("decodeWorkers", "")));
        assertTrue(e.getMessage().startsWith("decodeWorkers"), e.getMessage());
    }

    @Test
    void thePrefillBudgetAndQueueHaveDefaultsAndRanges() {
        ConnectorSettings d = from(Map.of());
        assertEquals(64, d.prefillMaxInFlight());
        assertEquals(4096, d.prefillQueueMax());
        assertEquals(ConnectorSettings.defaults().prefillMaxInFlight(), d.prefillMaxInFlight());
        assertEquals(0, from(Map.of("prefillMaxInFlight", 0, "prefillQueueMax", 0)).prefillQueueMax());
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> from(Map.of("prefillMaxInFlight", -1)));
        assertEquals("prefillMaxInFlight = -1: must be in 0..100000", e.getMessage());
        e = assertThrows(IllegalArgumentException.class, () -> from(Map.of("prefillQueueMax", 2_000_000)));
        assertEquals("prefillQueueMax = 2000000: must be in 0..1000000", e.getMessage());
    }
}
