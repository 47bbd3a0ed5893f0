package org.balanceroute.cluster.internal;

import com.hazelcast.core.HazelcastInstance;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.StringJoiner;
import java.util.UUID;
import java.util.function.BooleanSupplier;
import org.awaitility.Awaitility;

/** Real Hazelcast members on loopback, built by the component's own config builder. */
final class TestMembers implements AutoCloseable {

    /** Ports of this group of members, free when chosen; the members list names exactly them. */
    final List<Integer> ports = new ArrayList<>();
    final String clusterName;
    final List<HazelcastInstance> started = new ArrayList<>();
    final List<String> ids = new ArrayList<>();

    TestMembers(int count) {
        this("test-" + UUID.randomUUID().toString().substring(0, 8), count);
    }

    TestMembers(String clusterName, int count) {
        this.clusterName = clusterName;
        for (int i = 0; i < count; i++) {
            ports.add(freePort());
        }
    }

    /** The settings of member i: explicit ports (no auto-increment), short join wait. */
    ClusterSettings settings(int i, Map<String, Object> overrides) {
        StringJoiner members = new StringJoiner(",");
        for (int p : ports) {
            members.add("127.0.0.1:" + p);
        }
        Map<String, Object> p = new HashMap<>();
        p.put("clusterName", clusterName);
        p.put("members", members.toString());
        p.put("port", ports.get(i));
        p.put("portAutoIncrement", false);
        p.put("joinWaitSeconds", 1);
        p.put("mergeFirstRunDelaySeconds", 3);
        p.put("mergeNextRunDelaySeconds", 2);
        p.putAll(overrides);
        return ClusterSettings.from(p);
    }

    /** Starts member i (blocks until it joined), with a fresh replica id. */
    HazelcastInstance start(int i) {
        return start(i, Map.of());
    }

    HazelcastInstance start(int i, Map<String, Object> overrides) {
        String id = "replica-" + i + "-" + UUID.randomUUID().toString().substring(0, 8);
        HazelcastInstance hz = MemberConfigs.start(MemberConfigs.build(settings(i, overrides), id,
                TestMembers.class.getClassLoader(), "slf4j"));
        started.add(hz);
        ids.add(id);
        return hz;
    }

    @Override
    public void close() {
        for (HazelcastInstance hz : started) {
            try {
                hz.getLifecycleService().terminate();
            } catch (RuntimeException e) {
                // already down
            }
        }
    }

    static int freePort() {
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return s.getLocalPort();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Waits until the condition holds, polling every millisecond, failing after the timeout. */
    static void await(String what, Duration timeout, BooleanSupplier condition) {
        Awaitility.await(what).atMost(timeout).pollInterval(Duration.ofMillis(1)).until(condition::getAsBoolean);
    }
}
