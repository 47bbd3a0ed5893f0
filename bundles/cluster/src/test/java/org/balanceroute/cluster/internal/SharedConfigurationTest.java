package org.balanceroute.cluster.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.hazelcast.core.HazelcastInstance;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Two real members, a fake ConfigurationAdmin each. */
class SharedConfigurationTest {

    private static final String ROUTER = "org.balanceroute.router";
    private static final String BALANCE = "org.balanceroute.policy.balance";
    private static final List<String> PIDS = List.of(ROUTER, BALANCE);
    /**
     * How long a condition may take before the test calls it a hang. Generous: the sharing worker's
     * first Hazelcast operations on a cold JVM took more than 5 s on 2 loaded cores (the tally, once).
     */
    private static final Duration BOUND = Duration.ofSeconds(30);

    private TestMembers members;
    private HazelcastInstance a;
    private HazelcastInstance b;
    private final FakeConfigAdmin adminA = new FakeConfigAdmin();
    private final FakeConfigAdmin adminB = new FakeConfigAdmin();
    private final List<SharedConfiguration> started = new ArrayList<>();

    @BeforeEach
    void twoMembers() {
        members = new TestMembers(2);
        a = members.start(0);
        b = members.start(1);
        TestMembers.await("2 members", BOUND, () -> b.getCluster().getMembers().size() == 2);
        // B's join moves partitions to it: until that is over, the map operations a share starts
        // with wait for it, and on 2 loaded cores that outlasted settle's 5 s (the clean CI, once)
        TestMembers.await("the partitions in place", BOUND,
                () -> a.getPartitionService().isClusterSafe() && b.getPartitionService().isClusterSafe());
    }

    @AfterEach
    void stop() {
        started.forEach(SharedConfiguration::stop);
        adminA.close();
        adminB.close();
        members.close();
    }

    private SharedConfiguration share(HazelcastInstance hz, FakeConfigAdmin admin) {
        SharedConfiguration s = new SharedConfiguration(hz, admin.service(), PIDS);
        admin.listener = s::localChanged;
        s.start();
        started.add(s);
        return s;
    }

    @Test
    void aChangeOnAAppearsOnBWithoutALoop() throws Exception {
        adminA.file(ROUTER, Map.of("policy", "br0", "workers", "8"));
        adminB.file(ROUTER, Map.of("policy", "br0", "workers", "8"));
        SharedConfiguration sa = share(a, adminA);
        SharedConfiguration sb = share(b, adminB);
        assertTrue(sa.awaitIdle(BOUND.toMillis(), TimeUnit.MILLISECONDS) && sb.awaitIdle(BOUND.toMillis(), TimeUnit.MILLISECONDS));
        assertEquals(0, adminA.updates.size() + adminB.updates.size(), "equal at the start: nothing applied");

        int rounds = 20;
        long[] micros = new long[rounds];
        for (int i = 0; i < rounds; i++) {
            String workers = Integer.toString(9 + i);
            long before = adminB.updatesOf(ROUTER);
            long t0 = System.nanoTime();
            adminA.change(ROUTER, Map.of("policy", "jsq", "workers", workers,
                    ConfigCodec.FILEINSTALL_FILENAME, "file:/a/config/org.balanceroute.router.cfg"));
            TestMembers.await("B has workers=" + workers, BOUND, () -> adminB.updatesOf(ROUTER) > before);
            micros[i] = (adminB.updates.get(adminB.updates.size() - 1).nanos() - t0) / 1000;
            Map<String, Object> atB = adminB.get(ROUTER);
            assertEquals("jsq", atB.get("policy"));
            assertEquals(workers, atB.get("workers"));
            assertEquals("file:/replica/config/org.balanceroute.router.cfg", atB.get(ConfigCodec.FILEINSTALL_FILENAME),
                    "B keeps its own file");
        }
        settle(sa, sb);
        assertEquals(rounds, adminA.updatesOf(ROUTER), "A: only its own changes, nothing came back");
        assertEquals(rounds, adminB.updatesOf(ROUTER), "B: one update per change, none sent back");
        Arrays.sort(micros);
        System.out.printf("shared configuration: update on A to ConfigAdmin update on B, %d changes: p50 %.1f ms, max %.1f ms%n",
                rounds, micros[rounds / 2] / 1000.0, micros[rounds - 1] / 1000.0);
    }

    @Test
    void typedValuesReachAFileAsTextAndANewPidAsTyped() throws Exception {
        adminB.file(ROUTER, Map.of("policy", "br0"));
        SharedConfiguration sa = share(a, adminA);
        SharedConfiguration sb = share(b, adminB);
        settle(sa, sb);
        // settle waits for the workers, not for B's put still on its way to A: a change made on A before
        // it arrives is briefly overwritten by it and restored (a third update on A)
        TestMembers.await("A has B's file", BOUND, () -> adminA.get(ROUTER) != null
                && "br0".equals(adminA.get(ROUTER).get("policy")));
        settle(sa, sb);
        adminA.change(ROUTER, Map.of("policy", "jsq", "workers", 16));
        adminA.change(BALANCE, Map.of("beta", 43.0, "rMax", 4));
        TestMembers.await("B has both", BOUND, () -> adminB.get(BALANCE) != null && "jsq".equals(adminB.get(ROUTER).get("policy")));
        assertEquals("16", adminB.get(ROUTER).get("workers"), "a .cfg file keeps plain text lines");
        assertEquals(43.0, adminB.get(BALANCE).get("beta"), "no file: typed, as on A");
        assertEquals(4, adminB.get(BALANCE).get("rMax"));
        settle(sa, sb);
        assertEquals(1, adminB.updatesOf(ROUTER), "B: A's change");
        assertEquals(2, adminA.updatesOf(ROUTER), "A: B's file at the join, then its own change");
    }

    @Test
    void onJoinTheClustersValueWinsAndAPidItLacksIsPut() throws Exception {
        adminA.file(ROUTER, Map.of("policy", "br0", "workers", "8"));
        SharedConfiguration sa = share(a, adminA);
        assertTrue(sa.awaitIdle(BOUND.toMillis(), TimeUnit.MILLISECONDS));
        // B joins with a stale router file and a balance PID the cluster does not have
        adminB.file(ROUTER, Map.of("policy", "jsq", "workers", "8"));
        adminB.file(BALANCE, Map.of("beta", "14.67"));
        SharedConfiguration sb = share(b, adminB);
        TestMembers.await("B takes the cluster's router", BOUND, () -> "br0".equals(adminB.get(ROUTER).get("policy")));
        TestMembers.await("A gets B's balance", BOUND, () -> adminA.get(BALANCE) != null);
        assertEquals("14.67", adminA.get(BALANCE).get("beta"));
        settle(sa, sb);
        assertEquals("br0", adminA.get(ROUTER).get("policy"));
        assertEquals(0, adminA.updatesOf(ROUTER), "the cluster's value stayed");
        assertEquals(1, adminB.updatesOf(ROUTER));
        assertEquals(0, adminB.updatesOf(BALANCE));
        assertEquals(1, adminA.updatesOf(BALANCE));
    }

    @Test
    void aFileLoadedAfterTheJoinDoesNotOverrideTheCluster() throws Exception {
        adminA.file(ROUTER, Map.of("policy", "br0"));
        SharedConfiguration sa = share(a, adminA);
        assertTrue(sa.awaitIdle(BOUND.toMillis(), TimeUnit.MILLISECONDS));
        SharedConfiguration sb = share(b, adminB); // B has no configuration yet: it gets the cluster's
        TestMembers.await("B created", BOUND, () -> adminB.get(ROUTER) != null);
        assertNull(adminB.get(ROUTER).get(ConfigCodec.FILEINSTALL_FILENAME));
        // now FileInstall loads B's stale file: an update with a file name that was not there
        adminB.change(ROUTER, Map.of("policy", "jsq", ConfigCodec.FILEINSTALL_FILENAME, "file:/b/config/org.balanceroute.router.cfg"));
        TestMembers.await("the cluster's value back on B", BOUND, () -> "br0".equals(adminB.get(ROUTER).get("policy")));
        assertEquals("file:/b/config/org.balanceroute.router.cfg", adminB.get(ROUTER).get(ConfigCodec.FILEINSTALL_FILENAME));
        settle(sa, sb);
        assertEquals("br0", adminA.get(ROUTER).get("policy"));
        assertEquals(0, adminA.updatesOf(ROUTER));
    }

    @Test
    void concurrentChangesOnBothEndTheSame() throws Exception {
        adminA.file(ROUTER, Map.of("policy", "br0"));
        adminB.file(ROUTER, Map.of("policy", "br0"));
        SharedConfiguration sa = share(a, adminA);
        SharedConfiguration sb = share(b, adminB);
        settle(sa, sb);
        for (int i = 0; i < 10; i++) {
            adminA.change(ROUTER, Map.of("policy", "a" + i));
            adminB.change(ROUTER, Map.of("policy", "b" + i));
        }
        TestMembers.await("A and B agree", BOUND, () -> {
            try {
                settle(sa, sb);
            } catch (InterruptedException e) {
                throw new IllegalStateException(e);
            }
            return adminA.get(ROUTER).get("policy").equals(adminB.get(ROUTER).get("policy"));
        });
        Object last = adminA.get(ROUTER).get("policy");
        byte[] inCluster = a.<String, byte[]>getMap(MemberConfigs.CONFIG_MAP).get(ROUTER);
        assertEquals(last, ConfigCodec.decode(inCluster).get("policy"));
    }

    /** Waits for the fakes' event threads and both workers to be idle, twice (a change may echo once). */
    private void settle(SharedConfiguration sa, SharedConfiguration sb) throws InterruptedException {
        for (int i = 0; i < 3; i++) {
            assertTrue(adminA.awaitEvents(BOUND) && adminB.awaitEvents(BOUND));
            assertTrue(sa.awaitIdle(BOUND.toMillis(), TimeUnit.MILLISECONDS) && sb.awaitIdle(BOUND.toMillis(), TimeUnit.MILLISECONDS));
        }
    }
}
