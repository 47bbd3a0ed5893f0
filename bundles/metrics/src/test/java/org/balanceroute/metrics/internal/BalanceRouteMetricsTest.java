package org.balanceroute.metrics.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.sun.management.ThreadMXBean;
import java.lang.management.ManagementFactory;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.balanceroute.api.BarrierFigures;
import org.balanceroute.api.PoolSnapshot;
import org.balanceroute.fleet.DecodeInstance;
import org.balanceroute.fleet.Endpoint;
import org.balanceroute.fleet.PoolTopology;
import org.balanceroute.metrics.internal.BalanceRouteMetrics.PoolState;
import org.balanceroute.metrics.internal.BalanceRouteMetrics.PrefillTier;
import org.balanceroute.proxy.ProxyObserver.Outcome;
import org.balanceroute.router.ReplicaShare;
import org.balanceroute.router.ReplicasStatus;
import org.junit.jupiter.api.Test;

class BalanceRouteMetricsTest {

    private static final PoolSnapshot SNAPSHOT = new PoolSnapshot("test", 7, 0, 4,
            new long[] {1000, 250, 0}, new int[] {3, 1, 0}, new int[] {0, 2, 0}, 5, new boolean[] {true, true, false});

    /** One pool's scrape: {@code topology}'s name, else {@code default}. */
    private static String scrape(BalanceRouteMetrics m, PoolSnapshot s, PrefillTier prefill, ReplicasStatus replicas,
            PoolTopology topology) {
        String name = topology == null ? "default" : topology.name();
        return m.scrape(List.of(new PoolState(name, topology, s, replicas, null, 0, prefill)));
    }

    private static String scrape(BalanceRouteMetrics m, PoolSnapshot s, PrefillTier prefill, ReplicasStatus replicas) {
        return scrape(m, s, prefill, replicas, null);
    }

    private static String scrape(BalanceRouteMetrics m, PoolSnapshot s, PrefillTier prefill) {
        return scrape(m, s, prefill, null, null);
    }

    private static String scrape(BalanceRouteMetrics m, PoolSnapshot s) {
        return scrape(m, s, null, null, null);
    }

    /** sample line (name with labels) to value, comments left out. */
    private static Map<String, Double> samples(String text) {
        Map<String, Double> m = new HashMap<>();
        for (String line : text.split("\n")) {
            if (line.isBlank() || line.startsWith("#")) {
                continue;
            }
            int sp = line.lastIndexOf(' ');
            m.put(line.substring(0, sp), Double.parseDouble(line.substring(sp + 1)));
        }
        return m;
    }

    @Test
    void perWorkerGaugesPoolDepthAndImbalanceComeFromTheSnapshot() {
        String text = scrape(new BalanceRouteMetrics(), SNAPSHOT);
        Map<String, Double> s = samples(text);
        assertEquals(1000.0, s.get("balanceroute_worker_kv_load_tokens{pool=\"default\",instance=\"0\",worker=\"0\",}"));
        assertEquals(250.0, s.get("balanceroute_worker_kv_load_tokens{pool=\"default\",instance=\"0\",worker=\"1\",}"));
        assertEquals(0.0, s.get("balanceroute_worker_kv_load_tokens{pool=\"default\",instance=\"0\",worker=\"2\",}"));
        assertEquals(3.0, s.get("balanceroute_worker_running_requests{pool=\"default\",instance=\"0\",worker=\"0\",}"));
        assertEquals(1.0, s.get("balanceroute_worker_running_requests{pool=\"default\",instance=\"0\",worker=\"1\",}"));
        assertEquals(2.0, s.get("balanceroute_worker_queued_requests{pool=\"default\",instance=\"0\",worker=\"1\",}"));
        assertEquals(1.0, s.get("balanceroute_worker_available{pool=\"default\",instance=\"0\",worker=\"1\",}"));
        assertEquals(0.0, s.get("balanceroute_worker_available{pool=\"default\",instance=\"0\",worker=\"2\",}"));
        assertEquals(5.0, s.get("balanceroute_pool_depth{pool=\"default\",}"));
        assertEquals(1000.0, s.get("balanceroute_imbalance_tokens{pool=\"default\",}"));
        assertEquals(1000.0, s.get("balanceroute_instance_imbalance_tokens{pool=\"default\",instance=\"0\",}"));
        assertEquals(0.0, s.get("balanceroute_worker_draining{pool=\"default\",instance=\"0\",worker=\"0\",}"));
        assertTrue(text.contains("# TYPE balanceroute_worker_kv_load_tokens gauge"), text);
        assertTrue(text.contains("# TYPE balanceroute_pool_depth gauge"), text);
        assertTrue(text.contains("# HELP balanceroute_worker_kv_load_tokens "), text);
    }

    @Test
    void thePrefillTierHasGaugesWhenAConnectorIsThere() {
        Map<String, Double> s = samples(scrape(new BalanceRouteMetrics(), SNAPSHOT,
                new PrefillTier(new int[] {64, 12}, 300)));
        assertEquals(64.0, s.get("balanceroute_prefill_in_flight_requests{pool=\"default\",instance=\"0\",}"));
        assertEquals(12.0, s.get("balanceroute_prefill_in_flight_requests{pool=\"default\",instance=\"1\",}"));
        assertEquals(300.0, s.get("balanceroute_prefill_queued_requests{pool=\"default\",}"));
        String without = scrape(new BalanceRouteMetrics(), SNAPSHOT);
        assertFalse(without.contains("balanceroute_prefill_queued_requests"), without);
    }

    @Test
    void theClusterOfProxiesHasItsMembersSharesAndStaleness() {
        ReplicasStatus replicas = new ReplicasStatus("hazelcast", "m2", "m1", List.of(
                new ReplicaShare("m1", "127.0.0.1:5701", true, 4, new long[] {900, 0, 0}, new int[] {2, 0, 0},
                        new int[3]),
                new ReplicaShare("m2", "127.0.0.1:5702", false, 1, new long[] {100, 250, 0}, new int[] {1, 1, 0},
                        new int[3])), 2, new ReplicasStatus.Staleness(100, 3.0, 12.0, 15.0));
        String text = scrape(new BalanceRouteMetrics(), SNAPSHOT, null, replicas);
        Map<String, Double> s = samples(text);
        assertEquals(2.0, s.get("balanceroute_cluster_members"));
        assertEquals(0.0, s.get("balanceroute_cluster_is_dispatcher"));
        assertEquals(900.0, s.get("balanceroute_member_worker_kv_load_tokens{member=\"m1\",pool=\"default\",instance=\"0\",worker=\"0\",}"));
        assertEquals(250.0, s.get("balanceroute_member_worker_kv_load_tokens{member=\"m2\",pool=\"default\",instance=\"0\",worker=\"1\",}"));
        assertEquals(1.0, s.get("balanceroute_member_worker_running_requests{member=\"m2\",pool=\"default\",instance=\"0\",worker=\"0\",}"));
        assertEquals(4.0, s.get("balanceroute_member_pooled_requests{member=\"m1\",pool=\"default\",}"));
        assertEquals(0.012, s.get("balanceroute_cluster_view_staleness_seconds{quantile=\"0.99\",}"), 1e-12);
        assertEquals(100.0, s.get("balanceroute_cluster_view_staleness_seconds_count"));
        assertTrue(text.contains("# TYPE balanceroute_cluster_view_staleness_seconds summary"), text);
    }

    @Test
    void withoutASnapshotTheRouterGaugesAreLeftOut() {
        String text = scrape(new BalanceRouteMetrics(), null);
        assertFalse(text.contains("balanceroute_worker_kv_load_tokens"), text);
        assertFalse(text.contains("balanceroute_pool_depth"), text);
        assertTrue(text.contains("balanceroute_dispatch_step_duration_seconds_count{pool=\"default\",} 0.0"), text);
    }

    @Test
    void theObservedDecodeStepIsAGaugeInSeconds() {
        BalanceRouteMetrics m = new BalanceRouteMetrics();
        String key = "balanceroute_decode_step_seconds{pool=\"default\",}";
        assertEquals(0.0, samples(scrape(m, SNAPSHOT)).get(key));
        String text = m.scrape(List.of(new PoolState("default", null, SNAPSHOT, null, null, 12_500_000, null)));
        assertEquals(0.0125, samples(text).get(key), 1e-12);
    }

    @Test
    void dispatchStepsWithoutAPoolNameFillThePoolDefaultsLatencyHistogramAndRunningMean() {
        BalanceRouteMetrics m = new BalanceRouteMetrics();
        m.stepCompleted(3_000, 100, 0);        // 3 us
        m.stepCompleted(40_000, 300, 2);       // 40 us
        m.stepCompleted(2_000_000, 200, 1);    // 2 ms
        String text = scrape(m, SNAPSHOT);
        Map<String, Double> s = samples(text);
        assertTrue(text.contains("# TYPE balanceroute_dispatch_step_duration_seconds histogram"), text);
        assertEquals(3.0, s.get("balanceroute_dispatch_step_duration_seconds_count{pool=\"default\",}"));
        assertEquals(0.002043, s.get("balanceroute_dispatch_step_duration_seconds_sum{pool=\"default\",}"), 1e-9);
        assertEquals(0.0, s.get("balanceroute_dispatch_step_duration_seconds_bucket{pool=\"default\",le=\"1.0E-6\",}"));
        assertEquals(1.0, s.get("balanceroute_dispatch_step_duration_seconds_bucket{pool=\"default\",le=\"5.0E-6\",}"));
        assertEquals(2.0, s.get("balanceroute_dispatch_step_duration_seconds_bucket{pool=\"default\",le=\"5.0E-5\",}"));
        assertEquals(2.0, s.get("balanceroute_dispatch_step_duration_seconds_bucket{pool=\"default\",le=\"0.001\",}"));
        assertEquals(3.0, s.get("balanceroute_dispatch_step_duration_seconds_bucket{pool=\"default\",le=\"0.0025\",}"));
        assertEquals(3.0, s.get("balanceroute_dispatch_step_duration_seconds_bucket{pool=\"default\",le=\"+Inf\",}"));
        assertEquals(200.0, s.get("balanceroute_imbalance_mean_tokens{pool=\"default\",}"));
    }

    /** Pool "chat": instance "a" (workers 0, 1, 2), instance "b" (workers 3, 4). */
    private static final PoolTopology CHAT = new PoolTopology("chat", "m", List.of(), List.of(), List.of(
            new DecodeInstance("a", List.of(endpoint(8001), endpoint(8002), endpoint(8003)), 64),
            new DecodeInstance("b", List.of(endpoint(9001), endpoint(9002)), 32)));

    /**
     * CHAT's state: worker 0 drains with 5,000 tokens still running, worker 3 is drained (nothing
     * left); a's imbalance is 300 - 100 (worker 0 left out), b's is 0 (one worker counts).
     */
    private static final PoolSnapshot TWO_INSTANCES = new PoolSnapshot("test", 9, 0, 64,
            new long[] {5000, 100, 300, 0, 700}, new int[] {2, 1, 1, 0, 2}, new int[5], 3,
            new boolean[] {true, true, true, true, true}, new int[] {0, 0, 0, 1, 1}, new int[] {64, 64, 64, 32, 32},
            new boolean[] {true, false, false, true, false});

    private static Endpoint endpoint(int port) {
        return new Endpoint("http://127.0.0.1:" + port, -1);
    }

    private static String worker(String metric, String pool, String instance, int g) {
        return metric + "{pool=\"" + pool + "\",instance=\"" + instance + "\",worker=\"" + g + "\",}";
    }

    private static String instance(String metric, String pool, String instance) {
        return metric + "{pool=\"" + pool + "\",instance=\"" + instance + "\",}";
    }

    @Test
    void perWorkerMetricsCarryThePoolAndTheInstanceNamesOfTheFleet() {
        String text = scrape(new BalanceRouteMetrics(), TWO_INSTANCES, null, null, CHAT);
        Map<String, Double> s = samples(text);
        assertEquals(5000.0, s.get(worker("balanceroute_worker_kv_load_tokens", "chat", "a", 0)));
        assertEquals(300.0, s.get(worker("balanceroute_worker_kv_load_tokens", "chat", "a", 2)));
        assertEquals(700.0, s.get(worker("balanceroute_worker_kv_load_tokens", "chat", "b", 4)));
        assertEquals(2.0, s.get(worker("balanceroute_worker_running_requests", "chat", "b", 4)));
        assertEquals(0.0, s.get(worker("balanceroute_worker_queued_requests", "chat", "b", 3)));
        assertEquals(1.0, s.get(worker("balanceroute_worker_available", "chat", "a", 1)));
        assertTrue(text.contains("# TYPE balanceroute_worker_draining gauge"), text);
        assertEquals(1.0, s.get(worker("balanceroute_worker_draining", "chat", "a", 0)), "draining");
        assertEquals(0.0, s.get(worker("balanceroute_worker_draining", "chat", "a", 1)));
        assertEquals(1.0, s.get(worker("balanceroute_worker_draining", "chat", "b", 3)), "drained");
        assertEquals(0.0, s.get(worker("balanceroute_worker_draining", "chat", "b", 4)));
        assertFalse(text.contains("worker_kv_load_tokens{worker="), "no sample without pool and instance: " + text);
    }

    @Test
    void aDrainingWorkersLoadDoesNotCountInItsInstancesImbalanceAndThePoolsIsTheSum() {
        Map<String, Double> s = samples(scrape(new BalanceRouteMetrics(), TWO_INSTANCES, null, null, CHAT));
        assertEquals(200.0, s.get(instance("balanceroute_instance_imbalance_tokens", "chat", "a")),
                "300 - 100: worker 0's 5,000 left out");
        assertEquals(0.0, s.get(instance("balanceroute_instance_imbalance_tokens", "chat", "b")),
                "worker 3 drained: one worker left");
        assertEquals(200.0, s.get("balanceroute_imbalance_tokens{pool=\"chat\",}"), "the sum over instances");
    }

    @Test
    void withoutAFleetThePoolIsDefaultAndInstancesGoByIndex() {
        Map<String, Double> s = samples(scrape(new BalanceRouteMetrics(), TWO_INSTANCES, null, null, null));
        assertEquals(300.0, s.get(worker("balanceroute_worker_kv_load_tokens", "default", "0", 2)));
        assertEquals(700.0, s.get(worker("balanceroute_worker_kv_load_tokens", "default", "1", 4)));
        assertEquals(200.0, s.get(instance("balanceroute_instance_imbalance_tokens", "default", "0")));
        assertEquals(0.0, s.get(instance("balanceroute_instance_imbalance_tokens", "default", "1")));
    }

    @Test
    void aTopologyWhoseInstancesAreNotTheRoutersYetIsLabelledByIndex() {
        PoolTopology one = new PoolTopology("chat", "m", List.of(), List.of(), List.of(
                new DecodeInstance("all", List.of(endpoint(1), endpoint(2), endpoint(3), endpoint(4), endpoint(5)), 64)));
        Map<String, Double> s = samples(scrape(new BalanceRouteMetrics(), TWO_INSTANCES, null, null, one));
        assertEquals(700.0, s.get(worker("balanceroute_worker_kv_load_tokens", "chat", "1", 4)));
        assertEquals(200.0, s.get(instance("balanceroute_instance_imbalance_tokens", "chat", "0")));
    }

    @Test
    void theMembersSharesCarryPoolAndInstanceToo() {
        ReplicasStatus replicas = new ReplicasStatus("hazelcast", "m1", "m1", List.of(
                new ReplicaShare("m1", "127.0.0.1:5701", true, 0, new long[] {0, 100, 300, 0, 700},
                        new int[] {0, 1, 1, 0, 2}, new int[5])), 1, new ReplicasStatus.Staleness(0, 0, 0, 0));
        Map<String, Double> s = samples(scrape(new BalanceRouteMetrics(), TWO_INSTANCES, null, replicas, CHAT));
        assertEquals(700.0, s.get("balanceroute_member_worker_kv_load_tokens{member=\"m1\",pool=\"chat\","
                + "instance=\"b\",worker=\"4\",}"));
        assertEquals(1.0, s.get("balanceroute_member_worker_running_requests{member=\"m1\",pool=\"chat\","
                + "instance=\"a\",worker=\"2\",}"));
    }

    @Test
    void eachInstancesBarrierNowComesFromTheSnapshot() {
        Map<String, Double> s = samples(scrape(new BalanceRouteMetrics(), TWO_INSTANCES, null, null, CHAT));
        assertEquals(2.0 * 300 - 400, s.get(instance("balanceroute_instance_barrier_idle_tokens", "chat", "a")),
                "G*M - sum L over workers 1 and 2 (0 drains)");
        assertEquals(1 - 200.0 / 300, s.get(instance("balanceroute_instance_barrier_waste_ratio", "chat", "a")), 1e-12);
        assertEquals(0.0, s.get(instance("balanceroute_instance_barrier_idle_tokens", "chat", "b")), "one worker left");
        assertEquals(0.0, s.get(instance("balanceroute_instance_barrier_waste_ratio", "chat", "b")));
    }

    /** Two instances (workers 0-2 and 3-4) measured as the router measures them. */
    private static BarrierFigures barrier(long... loads) {
        BarrierFigures f = new BarrierFigures();
        f.reset(2);
        f.measure(0, loads, new boolean[loads.length], 0, 3);
        f.measure(1, loads, new boolean[loads.length], 3, 5);
        return f;
    }

    @Test
    void theBarriersRunningMeansAndTheStragglerCountsComeFromTheSteps() {
        BalanceRouteMetrics m = new BalanceRouteMetrics();
        m.stepCompleted("chat", 1_000, 0, barrier(100, 400, 100, 50, 50));  // a: 1 straggles; b: a tie
        m.stepCompleted("chat", 1_000, 0, barrier(100, 300, 200, 80, 20));  // a: 1 again; b: 3
        m.stepCompleted("chat", 1_000, 0, barrier(500, 300, 200, 0, 0));    // a: 0; b: nothing runs
        Map<String, Double> s = samples(scrape(m, TWO_INSTANCES, null, null, CHAT));
        assertEquals((600 + 300 + 500) / 3.0, s.get(instance("balanceroute_instance_barrier_idle_mean_tokens", "chat", "a")),
                1e-9, "idle 3*400-600, 3*300-600, 3*500-1000");
        assertEquals((0.5 + 1 / 3.0 + 1 / 3.0) / 3, s.get(instance("balanceroute_instance_barrier_waste_mean_ratio", "chat", "a")),
                1e-6);
        assertEquals((0 + 60 + 0) / 3.0, s.get(instance("balanceroute_instance_barrier_idle_mean_tokens", "chat", "b")), 1e-9);
        assertEquals(3.0, s.get("balanceroute_instance_steps_total{pool=\"chat\",instance=\"a\",}"));
        assertEquals(2.0, s.get(worker("balanceroute_straggler_steps_total", "chat", "a", 1)));
        assertEquals(1.0, s.get(worker("balanceroute_straggler_steps_total", "chat", "a", 0)));
        assertEquals(0.0, s.get(worker("balanceroute_straggler_steps_total", "chat", "a", 2)), "every worker from 0");
        assertEquals(1.0, s.get(worker("balanceroute_straggler_steps_total", "chat", "b", 3)));
        assertEquals(0.0, s.get(worker("balanceroute_straggler_steps_total", "chat", "b", 4)), "a tie counts for no one");
        assertEquals(860.0 / 3, s.get("balanceroute_imbalance_mean_tokens{pool=\"chat\",}"), 1e-9,
                "(300 + 0) + (200 + 60) + (300 + 0), over 3 steps");
    }

    @Test
    void eachInstanceHasItsRunningMeanAndThePoolsIsTheMeanOfTheSums() {
        BalanceRouteMetrics m = new BalanceRouteMetrics();
        long[] perInstance = new long[2];
        perInstance[0] = 100;
        perInstance[1] = 10;
        m.stepCompleted("chat", 1_000, 110, 0, perInstance);
        perInstance[0] = 300;                  // the router reuses its array
        perInstance[1] = 30;
        m.stepCompleted("chat", 1_000, 330, 0, perInstance);
        Map<String, Double> s = samples(scrape(m, TWO_INSTANCES, null, null, CHAT));
        assertEquals(200.0, s.get(instance("balanceroute_instance_imbalance_mean_tokens", "chat", "a")));
        assertEquals(20.0, s.get(instance("balanceroute_instance_imbalance_mean_tokens", "chat", "b")));
        assertEquals(220.0, s.get("balanceroute_imbalance_mean_tokens{pool=\"chat\",}"));
        assertEquals(2.0, s.get("balanceroute_dispatch_step_duration_seconds_count{pool=\"chat\",}"));
    }

    @Test
    void stepsWithoutAPoolNameCountForThePoolDefault() {
        BalanceRouteMetrics m = new BalanceRouteMetrics();
        m.stepCompleted(1_000, 110, 0, new long[] {100, 10});
        m.stepCompleted(1_000, 330, 0, new long[] {300, 30});
        m.stepCompleted(1_000, 50, 0);
        Map<String, Double> s = samples(scrape(m, TWO_INSTANCES));
        assertEquals(200.0, s.get(instance("balanceroute_instance_imbalance_mean_tokens", "default", "0")));
        assertEquals(20.0, s.get(instance("balanceroute_instance_imbalance_mean_tokens", "default", "1")));
        assertEquals(490.0 / 3, s.get("balanceroute_imbalance_mean_tokens{pool=\"default\",}"), 1e-9);
        assertEquals(3.0, s.get("balanceroute_dispatch_step_duration_seconds_count{pool=\"default\",}"));
        Map<String, Double> chat = samples(scrape(m, TWO_INSTANCES, null, null, CHAT));
        assertEquals(0.0, chat.get("balanceroute_imbalance_mean_tokens{pool=\"chat\",}"), "not chat's steps");
        assertFalse(chat.keySet().stream().anyMatch(k -> k.contains("pool=\"default\"")),
                "a pool no longer listed is left out: " + chat);
    }

    /** Pool "llama": one instance "x" of three workers. */
    private static final PoolTopology LLAMA = new PoolTopology("llama", "l", List.of(), List.of(), List.of(
            new DecodeInstance("x", List.of(endpoint(7001), endpoint(7002), endpoint(7003)), 64)));

    @Test
    void eachPoolHasItsOwnStepLatencyRunningMeanAndInstanceMeansUnderItsOwnLabels() {
        BalanceRouteMetrics m = new BalanceRouteMetrics();
        long[] chat = new long[2];
        long[] llama = new long[1];
        for (int i = 0; i < 4; i++) {          // chat: a 100, 300, 100, 300; b 10, 30, 10, 30
            chat[0] = i % 2 == 0 ? 100 : 300;
            chat[1] = i % 2 == 0 ? 10 : 30;
            m.stepCompleted("chat", 3_000, chat[0] + chat[1], 0, chat);
            if (i < 2) {                       // llama: x 1000, 2000 (two steps, 2 ms each)
                llama[0] = 1000 * (i + 1);
                m.stepCompleted("llama", 2_000_000, llama[0], 0, llama);
            }
        }
        List<PoolState> both = List.of(new PoolState("chat", CHAT, TWO_INSTANCES, null, null, 0, null),
                new PoolState("llama", LLAMA, SNAPSHOT, null, null, 0, null));
        String text = m.scrape(both);
        Map<String, Double> s = samples(text);
        assertEquals(220.0, s.get("balanceroute_imbalance_mean_tokens{pool=\"chat\",}"));
        assertEquals(1500.0, s.get("balanceroute_imbalance_mean_tokens{pool=\"llama\",}"));
        assertEquals(200.0, s.get(instance("balanceroute_instance_imbalance_mean_tokens", "chat", "a")));
        assertEquals(20.0, s.get(instance("balanceroute_instance_imbalance_mean_tokens", "chat", "b")));
        assertEquals(1500.0, s.get(instance("balanceroute_instance_imbalance_mean_tokens", "llama", "x")));
        assertEquals(3, s.keySet().stream().filter(k -> k.startsWith("balanceroute_instance_imbalance_mean_tokens"))
                .count(), "two instances of chat, one of llama: " + text);
        assertEquals(4.0, s.get("balanceroute_dispatch_step_duration_seconds_count{pool=\"chat\",}"));
        assertEquals(2.0, s.get("balanceroute_dispatch_step_duration_seconds_count{pool=\"llama\",}"));
        assertEquals(4.0, s.get("balanceroute_dispatch_step_duration_seconds_bucket{pool=\"chat\",le=\"5.0E-6\",}"));
        assertEquals(0.0, s.get("balanceroute_dispatch_step_duration_seconds_bucket{pool=\"llama\",le=\"0.001\",}"));
        assertEquals(2.0, s.get("balanceroute_dispatch_step_duration_seconds_bucket{pool=\"llama\",le=\"0.0025\",}"));
        assertEquals(0.004, s.get("balanceroute_dispatch_step_duration_seconds_sum{pool=\"llama\",}"), 1e-12);
        assertEquals(1, text.split("# TYPE balanceroute_dispatch_step_duration_seconds histogram").length - 1,
                "one family for all pools");
        assertEquals(1, text.split("# TYPE balanceroute_imbalance_mean_tokens gauge").length - 1);

        Map<String, Double> chatOnly = samples(m.scrape(List.of(both.get(0))));
        assertEquals(220.0, chatOnly.get("balanceroute_imbalance_mean_tokens{pool=\"chat\",}"));
        assertFalse(chatOnly.keySet().stream().anyMatch(k -> k.contains("pool=\"llama\"")),
                "llama is no longer listed: " + chatOnly);
        Map<String, Double> again = samples(m.scrape(both));
        assertEquals(0.0, again.get("balanceroute_imbalance_mean_tokens{pool=\"llama\",}"),
                "a pool listed again starts over");
        assertEquals(0.0, again.get("balanceroute_dispatch_step_duration_seconds_count{pool=\"llama\",}"));
        assertEquals(4.0, again.get("balanceroute_dispatch_step_duration_seconds_count{pool=\"chat\",}"));
    }

    @Test
    void anInstanceAddedLaterStartsItsMeanWhenItFirstReports() {
        BalanceRouteMetrics m = new BalanceRouteMetrics();
        m.stepCompleted("chat", 1_000, 100, 0, new long[] {100});
        m.stepCompleted("chat", 1_000, 300, 0, new long[] {300});
        m.stepCompleted("chat", 1_000, 90, 0, new long[] {50, 40});
        Map<String, Double> s = samples(scrape(m, TWO_INSTANCES, null, null, CHAT));
        assertEquals(150.0, s.get(instance("balanceroute_instance_imbalance_mean_tokens", "chat", "a")));
        assertEquals(40.0, s.get(instance("balanceroute_instance_imbalance_mean_tokens", "chat", "b")));
        assertEquals(490.0 / 3, s.get("balanceroute_imbalance_mean_tokens{pool=\"chat\",}"), 1e-9);
        Map<String, Double> none = samples(scrape(new BalanceRouteMetrics(), TWO_INSTANCES, null, null, CHAT));
        assertEquals(0.0, none.get("balanceroute_imbalance_mean_tokens{pool=\"chat\",}"), "0 before the first step");
        assertEquals(0.0, none.get("balanceroute_dispatch_step_duration_seconds_count{pool=\"chat\",}"));
        assertFalse(none.keySet().stream().anyMatch(k -> k.startsWith("balanceroute_instance_imbalance_mean_tokens")),
                "no instance mean before its first step");
    }

    @Test
    void theStepHookAllocatesNothing() {
        ThreadMXBean threads = (ThreadMXBean) ManagementFactory.getThreadMXBean();
        BalanceRouteMetrics m = new BalanceRouteMetrics();
        long[] perInstance = {120, 340, 0, 56};
        long[] other = {7, 9};
        BarrierFigures barrier = barrier(100, 400, 100, 50, 60);
        for (int i = 0; i < 200_000; i++) {   // warm up (each pool's creation and its one resize)
            m.stepCompleted("chat", 2_000 + i % 50_000, 516, 3, perInstance);
            m.stepCompleted("llama", 2_000 + i % 50_000, 16, 0, other);
            m.stepCompleted(2_000 + i % 50_000, 516, 3, perInstance);
            m.stepCompleted("barrier", 2_000 + i % 50_000, 3, barrier);
        }
        long tid = Thread.currentThread().getId();
        long before = threads.getThreadAllocatedBytes(tid);
        for (int i = 0; i < 100_000; i++) {
            m.stepCompleted("chat", 2_000 + i % 50_000, 516, 3, perInstance);
            m.stepCompleted("llama", 2_000 + i % 50_000, 16, 0, other);
            m.stepCompleted(2_000 + i % 50_000, 516, 3, perInstance);
            m.stepCompleted("barrier", 2_000 + i % 50_000, 3, barrier);
        }
        long allocated = threads.getThreadAllocatedBytes(tid) - before;
        assertTrue(allocated < 4_096, "400,000 steps allocated " + allocated + " bytes");
    }

    @Test
    void everyPoolIsScrapedWithItsPoolLabelItsPolicyAndItsPrefillTier() {
        ReplicasStatus chatReplicas = new ReplicasStatus("local", "m1", "m1", List.of(new ReplicaShare("m1", "a", true, 3,
                new long[] {5000, 100, 300, 0, 700}, new int[] {2, 1, 1, 0, 2}, new int[5])), 0,
                new ReplicasStatus.Staleness(0, 0, 0, 0));
        ReplicasStatus llamaReplicas = new ReplicasStatus("local", "m1", "m1", List.of(new ReplicaShare("m1", "a", true, 5,
                new long[] {1000, 250, 0}, new int[] {3, 1, 0}, new int[3])), 0, new ReplicasStatus.Staleness(0, 0, 0, 0));
        String text = new BalanceRouteMetrics().scrape(List.of(
                new PoolState("chat", CHAT, TWO_INSTANCES, chatReplicas, "br0", 20_000_000, new PrefillTier(new int[] {4}, 1)),
                new PoolState("llama", LLAMA, SNAPSHOT, llamaReplicas, "jsq", 0, null)));
        Map<String, Double> s = samples(text);
        assertEquals(700.0, s.get(worker("balanceroute_worker_kv_load_tokens", "chat", "b", 4)));
        assertEquals(1000.0, s.get(worker("balanceroute_worker_kv_load_tokens", "llama", "x", 0)));
        assertEquals(3.0, s.get("balanceroute_pool_depth{pool=\"chat\",}"));
        assertEquals(5.0, s.get("balanceroute_pool_depth{pool=\"llama\",}"));
        assertEquals(200.0, s.get("balanceroute_imbalance_tokens{pool=\"chat\",}"));
        assertEquals(1000.0, s.get("balanceroute_imbalance_tokens{pool=\"llama\",}"));
        assertEquals(1000.0, s.get(instance("balanceroute_instance_imbalance_tokens", "llama", "x")));
        assertEquals(1.0, s.get("balanceroute_pool_active_policy{pool=\"chat\",policy=\"br0\",}"));
        assertEquals(1.0, s.get("balanceroute_pool_active_policy{pool=\"llama\",policy=\"jsq\",}"));
        assertEquals(0.02, s.get("balanceroute_decode_step_seconds{pool=\"chat\",}"), 1e-12);
        assertEquals(4.0, s.get("balanceroute_prefill_in_flight_requests{pool=\"chat\",instance=\"0\",}"));
        assertEquals(1.0, s.get("balanceroute_prefill_queued_requests{pool=\"chat\",}"));
        assertFalse(s.containsKey("balanceroute_prefill_queued_requests{pool=\"llama\",}"), "no connector, no gauge");
        assertEquals(3.0, s.get("balanceroute_member_pooled_requests{member=\"m1\",pool=\"chat\",}"));
        assertEquals(5.0, s.get("balanceroute_member_pooled_requests{member=\"m1\",pool=\"llama\",}"));
        assertEquals(1000.0, s.get("balanceroute_member_worker_kv_load_tokens{member=\"m1\",pool=\"llama\","
                + "instance=\"x\",worker=\"0\",}"));
        assertEquals(1.0, s.get("balanceroute_cluster_members"), "once, not per pool");
        assertEquals(1, text.split("# TYPE balanceroute_worker_kv_load_tokens ").length - 1, "one family for all pools");
    }

    @Test
    void ttftTpotOutputTokensAndOutcomesAreCounted() {
        BalanceRouteMetrics m = new BalanceRouteMetrics();
        m.firstToken(150_000_000L);            // 0.15 s
        m.firstToken(30_000_000L);             // 0.03 s
        m.timePerOutputToken(20_000_000L);     // 20 ms
        m.requestEnded(Outcome.OK);
        m.requestEnded(Outcome.OK);
        m.requestEnded(Outcome.CLIENT_DISCONNECT);
        m.requestEnded(Outcome.REJECTED);
        assertEquals(0.0, samples(scrape(m, SNAPSHOT)).get("balanceroute_output_tokens_total"), "exposed from 0");
        m.outputTokens(7);                     // a streamed chunk
        m.outputTokens(5);                     // a plain answer's completion_tokens
        Map<String, Double> s = samples(scrape(m, SNAPSHOT));
        assertEquals(12.0, s.get("balanceroute_output_tokens_total"));
        assertEquals(2.0, s.get("balanceroute_time_to_first_token_seconds_count"));
        assertEquals(1.0, s.get("balanceroute_time_to_first_token_seconds_bucket{le=\"0.04\",}"));
        assertEquals(2.0, s.get("balanceroute_time_to_first_token_seconds_bucket{le=\"0.25\",}"));
        assertEquals(1.0, s.get("balanceroute_time_per_output_token_seconds_count"));
        assertEquals(0.0, s.get("balanceroute_time_per_output_token_seconds_bucket{le=\"0.01\",}"));
        assertEquals(1.0, s.get("balanceroute_time_per_output_token_seconds_bucket{le=\"0.025\",}"));
        assertEquals(2.0, s.get("balanceroute_requests_total{outcome=\"ok\",}"));
        assertEquals(1.0, s.get("balanceroute_requests_total{outcome=\"client_disconnect\",}"));
        assertEquals(1.0, s.get("balanceroute_requests_total{outcome=\"rejected\",}"));
        assertEquals(0.0, s.get("balanceroute_requests_total{outcome=\"error\",}"), "every outcome is exposed from 0");
        assertEquals(0.0, s.get("balanceroute_requests_total{outcome=\"timeout\",}"));
    }
}
