package org.balanceroute.cluster.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.hazelcast.config.Config;
import com.hazelcast.config.JoinConfig;
import com.hazelcast.config.ServerSocketEndpointConfig;
import com.hazelcast.instance.EndpointQualifier;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class MemberConfigsTest {

    /** The member endpoint: the advanced network configuration carries the member's socket. */
    private static ServerSocketEndpointConfig member(Config c) {
        assertTrue(c.getAdvancedNetworkConfig().isEnabled(), "advanced network configuration");
        return (ServerSocketEndpointConfig) c.getAdvancedNetworkConfig().getEndpointConfigs().get(EndpointQualifier.MEMBER);
    }

    @Test
    void theBuiltConfigTurnsOffEverythingThatLooksBeyondTheMemberList() {
        ClassLoader loader = getClass().getClassLoader();
        Config c = MemberConfigs.build(ClusterSettings.defaults(), "r1", loader, "slf4j");
        JoinConfig join = c.getAdvancedNetworkConfig().getJoin();
        assertFalse(join.getMulticastConfig().isEnabled(), "multicast");
        assertFalse(join.getAutoDetectionConfig().isEnabled(), "auto-detection");
        assertTrue(join.getTcpIpConfig().isEnabled(), "TCP/IP join");
        assertFalse(join.getKubernetesConfig().isEnabled() || join.getAwsConfig().isEnabled());
        assertEquals("false", c.getProperty("hazelcast.phone.home.enabled"));
        assertEquals("false", c.getProperty("hazelcast.socket.bind.any"));
        assertEquals("false", c.getProperty("hazelcast.shutdownhook.enabled"));
        assertEquals("slf4j", c.getProperty("hazelcast.logging.type"));
        assertTrue(member(c).getInterfaces().isEnabled());
        assertEquals(List.of("127.0.0.1"), List.copyOf(member(c).getInterfaces().getInterfaces()));
        assertEquals("balanceroute", c.getClusterName());
        assertEquals(5701, member(c).getPort());
        assertTrue(member(c).isPortAutoIncrement());
        assertEquals(ClusterSettings.PORT_COUNT, member(c).getPortCount());
        assertSame(loader, c.getClassLoader());
        assertEquals("r1", c.getMemberAttributeConfig().getAttribute(MemberConfigs.REPLICA_ATTRIBUTE));
        assertNull(c.getMapConfig(MemberConfigs.CONFIG_MAP).getNearCacheConfig(), "no Near Cache");
        assertTrue(join.getTcpIpConfig().getMembers().contains("127.0.0.1:5701"));
    }

    /**
     * Every address of the TCP/IP member list that nothing listens on costs the side of a split that
     * must merge 5 s per search (Hazelcast's fixed split-brain connection timeout, one address after
     * another): the defaults list a host alone as 3 ports, not the 19 that made a heal take 80-90 s.
     */
    @Test
    void theDefaultMemberListIsThreePortsOfTheHost() {
        Config c = MemberConfigs.build(ClusterSettings.defaults(), "r1", getClass().getClassLoader(), "slf4j");
        assertEquals(List.of("127.0.0.1:5701", "127.0.0.1:5702", "127.0.0.1:5700"),
                c.getAdvancedNetworkConfig().getJoin().getTcpIpConfig().getMembers());
        Config second = MemberConfigs.build(ClusterSettings.from(Map.of("port", 5702)), "r2", getClass().getClassLoader(),
                "slf4j");
        assertEquals(List.of("127.0.0.1:5701", "127.0.0.1:5702", "127.0.0.1:5703"),
                second.getAdvancedNetworkConfig().getJoin().getTcpIpConfig().getMembers());
        Config wide = MemberConfigs.build(ClusterSettings.from(Map.of("hostPorts", 10)), "r1", getClass().getClassLoader(),
                "slf4j");
        assertEquals(19, wide.getAdvancedNetworkConfig().getJoin().getTcpIpConfig().getMembers().size());
        Config listed = MemberConfigs.build(ClusterSettings.from(Map.of("members", "127.0.0.1:5701, 127.0.0.1:5702")),
                "r1", getClass().getClassLoader(), "slf4j");
        assertEquals(List.of("127.0.0.1:5701", "127.0.0.1:5702"),
                listed.getAdvancedNetworkConfig().getJoin().getTcpIpConfig().getMembers());
    }

    @Test
    void theSettingsReachHazelcastsProperties() {
        ClusterSettings s = ClusterSettings.from(Map.of("clusterName", "prod", "port", 6000, "portAutoIncrement", false,
                "bindInterface", "10.1.2.3", "heartbeatIntervalSeconds", 2, "maxNoHeartbeatSeconds", 9, "joinWaitSeconds", 3,
                "mergeFirstRunDelaySeconds", 20, "mergeNextRunDelaySeconds", 7, "members", "10.1.2.3:6000,10.1.2.4:6000"));
        Config c = MemberConfigs.build(s, "r2", getClass().getClassLoader(), "jdk");
        assertEquals("prod", c.getClusterName());
        assertEquals(6000, member(c).getPort());
        assertFalse(member(c).isPortAutoIncrement());
        assertEquals(List.of("10.1.2.3"), List.copyOf(member(c).getInterfaces().getInterfaces()));
        assertEquals("2", c.getProperty("hazelcast.heartbeat.interval.seconds"));
        assertEquals("9", c.getProperty("hazelcast.max.no.heartbeat.seconds"));
        assertEquals("3", c.getProperty("hazelcast.wait.seconds.before.join"));
        assertEquals("20", c.getProperty("hazelcast.merge.first.run.delay.seconds"));
        assertEquals("7", c.getProperty("hazelcast.merge.next.run.delay.seconds"));
        assertEquals(List.of("10.1.2.3:6000", "10.1.2.4:6000"), c.getAdvancedNetworkConfig().getJoin().getTcpIpConfig().getMembers());
    }
}
