package org.balanceroute.cluster.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.balanceroute.api.config.ConfigurationException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class ClusterSettingsTest {

    @Test
    void defaults() {
        ClusterSettings s = ClusterSettings.defaults();
        assertEquals("balanceroute", s.clusterName());
        assertEquals(List.of("127.0.0.1"), s.members());
        assertEquals(2, s.hostPorts());
        assertEquals(5701, s.port());
        assertTrue(s.portAutoIncrement());
        assertEquals("127.0.0.1", s.bindInterface());
        assertEquals(1, s.heartbeatIntervalSeconds());
        assertEquals(5, s.maxNoHeartbeatSeconds());
        assertEquals(1, s.joinWaitSeconds());
        assertEquals(10, s.mergeFirstRunDelaySeconds());
        assertEquals(5, s.mergeNextRunDelaySeconds());
        assertEquals(List.of("org.balanceroute.router", "org.balanceroute.policy.balance",
                "org.balanceroute.predictor.survival", "org.balanceroute.predictor.exactmatch",
                "org.balanceroute.connector.vllm", "org.balanceroute.proxy"), s.sharedPids());
    }

    @Test
    void textValuesOfACfgFileAreRead() {
        ClusterSettings s = ClusterSettings.from(Map.of("port", "5702", "portAutoIncrement", "false",
                "members", " 10.0.0.1:5701 , 10.0.0.2 ", "sharedPids", "", "heartbeatIntervalSeconds", "2",
                "maxNoHeartbeatSeconds", "10"));
        assertEquals(5702, s.port());
        assertFalse(s.portAutoIncrement());
        assertEquals(List.of("10.0.0.1:5701", "10.0.0.2"), s.members());
        assertEquals(List.of(), s.sharedPids());
        assertEquals(2, s.heartbeatIntervalSeconds());
    }

    @Test
    void aHostAloneStandsForItsPortsFromTheDefaultAndAroundThisMembersPort() {
        // hostPorts 2 (the default): 5701..5702 and port-1..port+1
        ClusterSettings s = ClusterSettings.from(Map.of("members", "127.0.0.1, 10.0.0.9:6000", "port", 5703));
        assertEquals(List.of("127.0.0.1:5701", "127.0.0.1:5702", "127.0.0.1:5703", "127.0.0.1:5704", "10.0.0.9:6000"),
                s.joinAddresses());
        assertEquals(List.of("127.0.0.1:5701", "127.0.0.1:5702", "127.0.0.1:15703", "127.0.0.1:15704", "127.0.0.1:15705"),
                ClusterSettings.from(Map.of("port", 15704)).joinAddresses());
        assertEquals(List.of("127.0.0.1:5701", "127.0.0.1:5702", "127.0.0.1:5703", "127.0.0.1:5704", "127.0.0.1:5705"),
                ClusterSettings.from(Map.of("port", 5703, "hostPorts", 3)).joinAddresses());
        // at most 10: 5701..5710 and port-9..port+9
        List<String> a = ClusterSettings.from(Map.of("members", "127.0.0.1", "port", 5703, "hostPorts", "10"))
                .joinAddresses();
        assertEquals("127.0.0.1:5701", a.get(0));
        assertTrue(a.containsAll(List.of("127.0.0.1:5694", "127.0.0.1:5712")));
        assertFalse(a.contains("127.0.0.1:5713") || a.contains("127.0.0.1:5693"));
        assertEquals(19, a.size());
        // 1: the host at 5701 and at this member's port
        assertEquals(List.of("10.0.0.9:5701", "10.0.0.9:5705"),
                ClusterSettings.from(Map.of("members", "10.0.0.9", "port", 5705, "hostPorts", 1)).joinAddresses());
        // host:port entries are taken as they are, whatever hostPorts
        assertEquals(List.of("127.0.0.1:5701", "127.0.0.1:5702"),
                ClusterSettings.from(Map.of("members", "127.0.0.1:5701,127.0.0.1:5702", "port", 5702)).joinAddresses());
    }

    @ParameterizedTest(name = "{0} = {1}")
    @CsvSource(delimiter = '|', value = {
            "clusterName | ''", "clusterName | dev", "clusterName | has space",
            "members | ''", "members | host:", "hostPorts | 0", "hostPorts | 11", "members | host:0", "members | host:70000", "members | a b",
            "port | 0", "port | 65535", "port | abc", "port | 5701.5",
            "portAutoIncrement | yes",
            "bindInterface | 0.0.0.0.0", "bindInterface | localhost", "bindInterface | 10.0.0.256", "bindInterface | ''",
            "heartbeatIntervalSeconds | 0", "heartbeatIntervalSeconds | 61",
            "maxNoHeartbeatSeconds | 1", "maxNoHeartbeatSeconds | 3601",
            "joinWaitSeconds | -1", "joinWaitSeconds | 61",
            "mergeFirstRunDelaySeconds | 0", "mergeNextRunDelaySeconds | 0", "mergeNextRunDelaySeconds | x",
            "sharedPids | org.balanceroute.cluster", "sharedPids | org.balanceroute.admin",
            "sharedPids | org.apache.felix.webconsole.internal.servlet.OsgiManager", "sharedPids | 'a b'",
    })
    void everyBadValueNamesItsProperty(String property, String value) {
        Map<String, Object> p = new HashMap<>();
        p.put(property, value);
        ConfigurationException e = assertThrows(ConfigurationException.class, () -> ClusterSettings.from(p));
        assertEquals(property, e.property());
        assertTrue(e.getMessage().startsWith("org.balanceroute.cluster: " + property + " must be "), e.getMessage());
    }

    @Test
    void typedValuesOfTheWrongTypeNameTheirProperty() {
        ConfigurationException e = assertThrows(ConfigurationException.class,
                () -> ClusterSettings.from(Map.of("clusterName", 5)));
        assertEquals("org.balanceroute.cluster: clusterName must be text, got 5", e.getMessage());
        e = assertThrows(ConfigurationException.class, () -> ClusterSettings.from(Map.of("port", 5701L << 33)));
        assertEquals("port", e.property());
    }
}
