package org.balanceroute.cluster.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.hazelcast.core.HazelcastInstance;
import java.lang.reflect.Proxy;
import java.time.Duration;
import java.util.Dictionary;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.balanceroute.api.SnapshotStore;
import org.balanceroute.api.config.ConfigurationException;
import org.junit.jupiter.api.Test;
import org.osgi.framework.BundleContext;
import org.osgi.framework.ServiceRegistration;

class ClusterMemberComponentTest {

    private static final Duration BOUND = Duration.ofSeconds(20);

    /** A BundleContext that records service registrations and unregistrations, in order. */
    static final class FakeContext {
        record Registered(String type, Object service, Dictionary<String, ?> properties) {
        }

        final List<String> log = new CopyOnWriteArrayList<>();
        final List<Registered> live = new CopyOnWriteArrayList<>();
        final List<Thread> registeringThreads = new CopyOnWriteArrayList<>();

        BundleContext context() {
            return (BundleContext) Proxy.newProxyInstance(getClass().getClassLoader(), new Class<?>[] {BundleContext.class},
                    (proxy, method, args) -> {
                        if (!method.getName().equals("registerService")) {
                            throw new UnsupportedOperationException(method.getName());
                        }
                        String type = ((Class<?>) args[0]).getSimpleName();
                        @SuppressWarnings("unchecked")
                        Registered r = new Registered(type, args[1], (Dictionary<String, ?>) args[2]);
                        registeringThreads.add(Thread.currentThread());
                        live.add(r);
                        log.add("register " + type);
                        return registration(r);
                    });
        }

        private ServiceRegistration<?> registration(Registered r) {
            return (ServiceRegistration<?>) Proxy.newProxyInstance(getClass().getClassLoader(),
                    new Class<?>[] {ServiceRegistration.class}, (proxy, method, args) -> {
                        if (!method.getName().equals("unregister")) {
                            throw new UnsupportedOperationException(method.getName());
                        }
                        live.remove(r);
                        log.add("unregister " + r.type() + (runningMember(r) ? " (member running)" : ""));
                        return null;
                    });
        }

        private static boolean runningMember(Registered r) {
            HazelcastInstance hz = r.service() instanceof RunningMember m ? m.instance() : null;
            return hz != null && hz.getLifecycleService().isRunning();
        }

        Registered live(String type) {
            return live.stream().filter(r -> r.type().equals(type)).findFirst().orElse(null);
        }
    }

    private static Map<String, Object> config(int port, String clusterName) {
        Map<String, Object> p = new HashMap<>();
        p.put("clusterName", clusterName);
        p.put("members", "127.0.0.1:" + port);
        p.put("port", Integer.toString(port));
        p.put("portAutoIncrement", "false");
        p.put("sharedPids", "");
        return p;
    }

    @Test
    void startsOffTheActivationThreadRegistersTheStoreAndUnregistersItBeforeShutdown() {
        FakeContext fake = new FakeContext();
        int port = TestMembers.freePort();
        ClusterMemberComponent c = new ClusterMemberComponent(fake.context(), config(port, "component-test"), "r-1");

        TestMembers.await("store registered", BOUND, () -> fake.live("SnapshotStore") != null);
        // Off the activation thread: SCR's thread must not wait for the member to join (a wall-clock bound here raced).
        assertFalse(fake.registeringThreads.contains(Thread.currentThread()), "registered on the activation thread");
        FakeContext.Registered store = fake.live("SnapshotStore");
        assertEquals("hazelcast", store.properties().get(SnapshotStore.NAME_PROPERTY));
        assertEquals(List.of("register RunningMember", "register SnapshotStore"), fake.log);
        SnapshotStore s = (SnapshotStore) store.service();
        assertEquals("hazelcast", s.name());
        RecordingReceiver r = new RecordingReceiver();
        try (SnapshotStore.Session session = s.open(r)) {
            assertEquals("r-1", session.localMember());
            assertEquals(List.of(new SnapshotStore.Member("r-1", "127.0.0.1:" + port)), session.members());
        }
        HazelcastInstance hz = c.instance();
        assertNotNull(hz);

        c.deactivate();
        assertEquals(List.of("register RunningMember", "register SnapshotStore",
                "unregister SnapshotStore", "unregister RunningMember (member running)"), fake.log);
        assertFalse(hz.getLifecycleService().isRunning(), "shut down when deactivate returned");
    }

    @Test
    void anInvalidFirstConfigurationFailsTheActivationAndAnInvalidChangeKeepsTheMember() {
        FakeContext fake = new FakeContext();
        int port = TestMembers.freePort();
        Map<String, Object> bad = config(port, "dev");
        ConfigurationException e = assertThrows(ConfigurationException.class,
                () -> new ClusterMemberComponent(fake.context(), bad, "r-2"));
        assertEquals("org.balanceroute.cluster: clusterName must be other than Hazelcast's default, got 'dev'",
                e.getMessage());
        assertEquals(List.of(), fake.log);

        ClusterMemberComponent c = new ClusterMemberComponent(fake.context(), config(port, "component-test-2"), "r-2");
        try {
            TestMembers.await("store registered", BOUND, () -> fake.live("SnapshotStore") != null);
            HazelcastInstance first = c.instance();
            Map<String, Object> invalid = config(port, "component-test-2");
            invalid.put("maxNoHeartbeatSeconds", "1");
            c.modified(invalid);
            assertSame(first, c.instance(), "the member in force stays");
            assertTrue(first.getLifecycleService().isRunning());
            assertNotNull(fake.live("SnapshotStore"));

            c.modified(config(port, "component-test-2")); // the same settings: nothing happens
            assertSame(first, c.instance());

            int port2 = TestMembers.freePort();
            c.modified(config(port2, "component-test-3"));
            TestMembers.await("re-created", BOUND, () -> c.instance() != null && c.instance() != first
                    && fake.live("SnapshotStore") != null);
            assertFalse(first.getLifecycleService().isRunning(), "the old member is shut down");
            assertNotSame(first, c.instance());
            assertEquals("component-test-3", c.instance().getConfig().getClusterName());
            assertEquals(port2, c.instance().getCluster().getLocalMember().getAddress().getPort());
            assertEquals("r-2", c.instance().getCluster().getLocalMember().getAttribute(MemberConfigs.REPLICA_ATTRIBUTE),
                    "the replica id stays");
        } finally {
            c.deactivate();
        }
    }
}
