package org.balanceroute.metrics.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.balanceroute.api.ClusterSnapshot;
import org.balanceroute.router.ClusterStatus;
import org.balanceroute.router.ReplicaShare;
import org.balanceroute.proxy.ProxyObserver.Outcome;
import org.junit.jupiter.api.Test;

class BalanceRouteMetricsTest {

    private static final ClusterSnapshot SNAPSHOT = new ClusterSnapshot("test", 7, 0, 4,
            new long[] {1000, 250, 0}, new int[] {3, 1, 0}, new int[] {0, 2, 0}, 5, new boolean[] {true, true, false});

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
        String text = new BalanceRouteMetrics().scrape(SNAPSHOT);
        Map<String, Double> s = samples(text);
        assertEquals(1000.0, s.get("balanceroute_worker_kv_load_tokens{worker=\"0\",}"));
        assertEquals(250.0, s.get("balanceroute_worker_kv_load_tokens{worker=\"1\",}"));
        assertEquals(0.0, s.get("balanceroute_worker_kv_load_tokens{worker=\"2\",}"));
        assertEquals(3.0, s.get("balanceroute_worker_running_requests{worker=\"0\",}"));
        assertEquals(1.0, s.get("balanceroute_worker_running_requests{worker=\"1\",}"));
        assertEquals(2.0, s.get("balanceroute_worker_queued_requests{worker=\"1\",}"));
        assertEquals(1.0, s.get("balanceroute_worker_available{worker=\"1\",}"));
        assertEquals(0.0, s.get("balanceroute_worker_available{worker=\"2\",}"));
        assertEquals(5.0, s.get("balanceroute_pool_depth"));
        assertEquals(1000.0, s.get("balanceroute_imbalance_tokens"));
        assertTrue(text.contains("# TYPE balanceroute_worker_kv_load_tokens gauge"), text);
        assertTrue(text.contains("# TYPE balanceroute_pool_depth gauge"), text);
        assertTrue(text.contains("# HELP balanceroute_worker_kv_load_tokens "), text);
    }

    @Test
    void thePrefillTierHasGaugesWhenAConnectorIsThere() {
        Map<String, Double> s = samples(new BalanceRouteMetrics().scrape(SNAPSHOT,
                new BalanceRouteMetrics.PrefillTier(new int[] {64, 12}, 300)));
        assertEquals(64.0, s.get("balanceroute_prefill_in_flight_requests{instance=\"0\",}"));
        assertEquals(12.0, s.get("balanceroute_prefill_in_flight_requests{instance=\"1\",}"));
        assertEquals(300.0, s.get("balanceroute_prefill_queued_requests"));
        String without = new BalanceRouteMetrics().scrape(SNAPSHOT);
        assertFalse(without.contains("balanceroute_prefill_queued_requests"), without);
    }

    @Test
    void theClusterOfProxiesHasItsMembersSharesAndStaleness() {
        ClusterStatus cluster = new ClusterStatus("hazelcast", "m2", "m1", List.of(
                new ReplicaShare("m1", "127.0.0.1:5701", true, 4, new long[] {900, 0, 0}, new int[] {2, 0, 0},
                        new int[3]),
                new ReplicaShare("m2", "127.0.0.1:5702", false, 1, new long[] {100, 250, 0}, new int[] {1, 1, 0},
                        new int[3])), 2, new ClusterStatus.Staleness(100, 3.0, 12.0, 15.0));
        String text = new BalanceRouteMetrics().scrape(SNAPSHOT, null, cluster);
        Map<String, Double> s = samples(text);
        assertEquals(2.0, s.get("balanceroute_cluster_members"));
        assertEquals(0.0, s.get("balanceroute_cluster_is_dispatcher"));
        assertEquals(900.0, s.get("balanceroute_member_worker_kv_load_tokens{member=\"m1\",worker=\"0\",}"));
        assertEquals(250.0, s.get("balanceroute_member_worker_kv_load_tokens{member=\"m2\",worker=\"1\",}"));
        assertEquals(1.0, s.get("balanceroute_member_worker_running_requests{member=\"m2\",worker=\"0\",}"));
        assertEquals(4.0, s.get("balanceroute_member_pooled_requests{member=\"m1\",}"));
        assertEquals(0.012, s.get("balanceroute_cluster_view_staleness_seconds{quantile=\"0.99\",}"), 1e-12);
        assertEquals(100.0, s.get("balanceroute_cluster_view_staleness_seconds_count"));
        assertTrue(text.contains("# TYPE balanceroute_cluster_view_staleness_seconds summary"), text);
    }

    @Test
    void withoutASnapshotTheRouterGaugesAreLeftOut() {
        String text = new BalanceRouteMetrics().scrape(null);
        assertFalse(text.contains("balanceroute_worker_kv_load_tokens"), text);
        assertFalse(text.contains("balanceroute_pool_depth"), text);
        assertTrue(text.contains("balanceroute_dispatch_step_duration_seconds_count 0.0"), text);
    }

    @Test
    void theObservedDecodeStepIsAGaugeInSeconds() {
        BalanceRouteMetrics m = new BalanceRouteMetrics();
        assertEquals(0.0, samples(m.scrape(SNAPSHOT)).get("balanceroute_decode_step_seconds"));
        m.decodeStep(12_500_000);
        assertEquals(0.0125, samples(m.scrape(SNAPSHOT)).get("balanceroute_decode_step_seconds"), 1e-12);
    }

    @Test
    void dispatchStepsFillTheLatencyHistogramAndTheRunningMean() {
        BalanceRouteMetrics m = new BalanceRouteMetrics();
        m.stepCompleted(3_000, 100, 0);        // 3 us
        m.stepCompleted(40_000, 300, 2);       // 40 us
        m.stepCompleted(2_000_000, 200, 1);    // 2 ms
        String text = m.scrape(SNAPSHOT);
        Map<String, Double> s = samples(text);
        assertTrue(text.contains("# TYPE balanceroute_dispatch_step_duration_seconds histogram"), text);
        assertEquals(3.0, s.get("balanceroute_dispatch_step_duration_seconds_count"));
        assertEquals(0.002043, s.get("balanceroute_dispatch_step_duration_seconds_sum"), 1e-9);
        assertEquals(0.0, s.get("balanceroute_dispatch_step_duration_seconds_bucket{le=\"1.0E-6\",}"));
        assertEquals(1.0, s.get("balanceroute_dispatch_step_duration_seconds_bucket{le=\"5.0E-6\",}"));
        assertEquals(2.0, s.get("balanceroute_dispatch_step_duration_seconds_bucket{le=\"5.0E-5\",}"));
        assertEquals(2.0, s.get("balanceroute_dispatch_step_duration_seconds_bucket{le=\"0.001\",}"));
        assertEquals(3.0, s.get("balanceroute_dispatch_step_duration_seconds_bucket{le=\"0.0025\",}"));
        assertEquals(3.0, s.get("balanceroute_dispatch_step_duration_seconds_bucket{le=\"+Inf\",}"));
        assertEquals(200.0, s.get("balanceroute_imbalance_mean_tokens"));
    }

    @Test
    void ttftTpotAndOutcomesAreCounted() {
        BalanceRouteMetrics m = new BalanceRouteMetrics();
        m.firstToken(150_000_000L);            // 0.15 s
        m.firstToken(30_000_000L);             // 0.03 s
        m.timePerOutputToken(20_000_000L);     // 20 ms
        m.requestEnded(Outcome.OK);
        m.requestEnded(Outcome.OK);
        m.requestEnded(Outcome.CLIENT_DISCONNECT);
        m.requestEnded(Outcome.REJECTED);
        Map<String, Double> s = samples(m.scrape(SNAPSHOT));
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
