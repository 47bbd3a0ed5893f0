package org.balanceroute.connector.vllm.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
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
        assertEquals(List.of("http://127.0.0.1:18100"), d.prefillUrls());
        assertEquals(8, d.decodeWorkers().size());
        assertEquals("http://127.0.0.1:18207", d.decodeWorkers().get(7).url());
    }
}
