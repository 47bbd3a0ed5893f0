package org.balanceroute.tuner.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.reflect.Proxy;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import org.balanceroute.admin.PolicyAdmin;
import org.balanceroute.api.PoolSnapshot;
import org.balanceroute.api.config.ConfigurationException;
import org.balanceroute.core.TrackedRequest;
import org.balanceroute.policy.balance.BalancePolicy;
import org.balanceroute.router.RouterService;
import org.balanceroute.simulator.ParameterTuner;
import org.junit.jupiter.api.Test;

class TunerComponentTest {

    /** What the fake router reports, and what the fake PolicyAdmin was asked. */
    static final class Fakes {
        volatile String active = BalancePolicy.BRH_SURVIVAL;
        final Map<String, Object> params = new HashMap<>(Map.of("horizon", 80, "beta", 43.0, "gamma", 0.86));
        final List<String> changes = new ArrayList<>();
        final List<String> changeThreads = new ArrayList<>();

        RouterService router() {
            return (RouterService) Proxy.newProxyInstance(getClass().getClassLoader(),
                    new Class<?>[] {RouterService.class}, (p, m, a) -> switch (m.getName()) {
                        case "activePolicy" -> active;
                        case "policyParameters" -> Map.copyOf(params);
                        case "snapshot" -> new PoolSnapshot("test", 0, 0, 8, new long[4], new int[4], new int[4], 0);
                        default -> throw new UnsupportedOperationException(m.getName());
                    });
        }

        PolicyAdmin admin() {
            return (PolicyAdmin) Proxy.newProxyInstance(getClass().getClassLoader(),
                    new Class<?>[] {PolicyAdmin.class}, (p, m, a) -> {
                        if (!m.getName().equals("change")) {
                            throw new UnsupportedOperationException(m.getName());
                        }
                        synchronized (this) {
                            changes.add(a[0] + " " + new java.util.TreeMap<>((Map<?, ?>) a[1]));
                            changeThreads.add(Thread.currentThread().getName());
                        }
                        assertEquals(TunerComponent.APPLY_WAIT, (Duration) a[2]);
                        return new PolicyAdmin.ChangeResult(true, (String) a[0], Map.of(), "in force");
                    });
        }
    }

    /** A bursty workload on 4 workers of 8 slots, fed as the router would: one completion at a time. */
    static void feed(TunerComponent tuner, int n) {
        SplittableRandom random = new SplittableRandom(3);
        double t = 0;
        for (int i = 0; i < n; i++) {
            t += random.nextDouble() * 0.05;
            tuner.onCompleted(new TrackedRequest(i, 1 + random.nextInt(20_000), 1 + random.nextInt(20), 0,
                    (long) (t * 1e9)), 1 + random.nextInt(300));
        }
    }

    @Test
    void reportsTheBestWithoutApplyingWhenAutoApplyIsOff() throws Exception {
        Fakes f = new Fakes();
        TunerComponent tuner = new TunerComponent(Map.of("horizons", "20,80", "gammas", "0.64,0.86",
                "betas", "14.67,43"), f.router(), f.admin());
        try {
            feed(tuner, 400);
            Map<String, Object> report = tuner.start("test").get(60, TimeUnit.SECONDS);
            assertEquals(400, report.get("requests"));
            assertEquals(false, report.get("applied"));
            assertEquals("autoApply is off", report.get("applyMessage"));
            assertTrue((Double) report.get("predictedGain") >= 0);
            assertEquals(true, report.get("complete"));
            assertEquals(1, report.get("parts"));
            assertEquals(ParameterTuner.DEFAULT_REPLAYS, report.get("replays"));
            double agreement = (Double) report.get("agreement");
            assertTrue(agreement >= -1 && agreement <= 1, report.toString());
            boolean kept = ((Map<?, ?>) report.get("best")).get("label").equals(((Map<?, ?>) report.get("current"))
                    .get("label"));
            assertEquals(kept ? 0 : 1, report.get("wins"), report.toString());
            if (agreement < 0.5) {
                assertTrue(kept, "below the agreement gate the settings in force stay: " + report);
            }
            assertEquals(1 + 1 + 8, report.get("candidates"));
            assertNotNull(((Map<?, ?>) report.get("best")).get("label"));
            assertEquals(List.of(), f.changes);
            Map<String, Object> status = tuner.status();
            assertEquals("idle", status.get("state"));
            assertEquals(report, status.get("last"));
            assertEquals(1, status.get("runs"));
        } finally {
            tuner.deactivate();
        }
    }

    @Test
    void autoApplyGoesThroughPolicyAdminOnTheTunerThreadWhenTheGainClearsTheMargin() throws Exception {
        Fakes f = new Fakes();
        // one part: the whole window's winner, which on this workload is not the settings in force
        TunerComponent tuner = new TunerComponent(Map.of("autoApply", true, "margin", 0.0, "parts", 1,
                "horizons", "20,80", "gammas", "0.64,0.86", "betas", "14.67,43"), f.router(), f.admin());
        try {
            feed(tuner, 400);
            Map<String, Object> report = tuner.start("test").get(60, TimeUnit.SECONDS);
            Map<?, ?> best = (Map<?, ?>) report.get("best");
            Map<?, ?> current = (Map<?, ?>) report.get("current");
            if (best.get("label").equals(current.get("label"))) {
                assertEquals(false, report.get("applied"));
                assertEquals(List.of(), f.changes);
            } else {
                assertEquals(true, report.get("applied"), report.toString());
                assertEquals(1, f.changes.size());
                assertTrue(f.changes.get(0).startsWith((String) best.get("policy")), f.changes.toString());
                assertEquals(List.of("balanceroute-tuner"), f.changeThreads);
            }
            // a margin no gain can clear: reported, not applied
            tuner.modified(Map.of("autoApply", true, "margin", 1.0, "horizons", "20,80"));
            Map<String, Object> again = tuner.start("test").get(60, TimeUnit.SECONDS);
            assertEquals(false, again.get("applied"));
            assertTrue(((String) again.get("applyMessage")).contains("below the margin")
                    || ((String) again.get("applyMessage")).contains("do not agree")
                    || again.get("applyMessage").equals("the settings in force are the best"), again.toString());
        } finally {
            tuner.deactivate();
        }
    }

    @Test
    void theDispatchThreadOnlyRecordsAndABadConfigurationKeepsThePreviousOne() throws Exception {
        Fakes f = new Fakes();
        TunerComponent tuner = new TunerComponent(Map.of(), f.router(), f.admin());
        try {
            long before = System.nanoTime();
            feed(tuner, 2000);
            assertTrue(System.nanoTime() - before < TimeUnit.SECONDS.toNanos(5));
            assertEquals(2000L, tuner.recorded());
            assertEquals("idle", tuner.status().get("state"));
            assertEquals(0, tuner.status().get("runs"));
            ConfigurationException e = assertThrows(ConfigurationException.class,
                    () -> new TunerComponent(Map.of("gammas", "0.5, 0"), f.router(), f.admin()));
            assertEquals("org.balanceroute.tuner: gammas must be comma-separated numbers in (0, 1], got '0'",
                    e.getMessage());
            tuner.modified(Map.of("gammas", "0"));
            assertEquals(false, tuner.status().get("autoApply"));
            tuner.modified(Map.of("parts", 0, "autoApply", true));
            tuner.modified(Map.of("quorum", 0.5, "autoApply", true));
            tuner.modified(Map.of("replays", 0, "autoApply", true));
            tuner.modified(Map.of("replays", ParameterTuner.MAX_REPLAYS + 1, "autoApply", true));
            tuner.modified(Map.of("agreement", 1.5, "autoApply", true));
            assertEquals(false, tuner.status().get("autoApply"));
            assertEquals(1, tuner.status().get("parts"));
            assertEquals(0.5, tuner.status().get("agreement"));
            assertEquals(1.0, tuner.status().get("quorum"));
            assertEquals(ParameterTuner.DEFAULT_REPLAYS, tuner.status().get("replays"));
            tuner.modified(Map.of("windowMinutes", 0.5, "autoApply", true));
            assertEquals(0.5, (Double) tuner.status().get("windowMinutes"), 1e-9);
            assertEquals(true, tuner.status().get("autoApply"));
            f.active = "jsq";
            tuner.modified(Map.of("windowMinutes", 5.0));
            Map<String, Object> report = tuner.start("test").get(60, TimeUnit.SECONDS);
            assertEquals("jsq", ((Map<?, ?>) report.get("current")).get("policy"));
            assertFalse(report.containsKey("error"), report.toString());
        } finally {
            tuner.deactivate();
        }
    }
}
