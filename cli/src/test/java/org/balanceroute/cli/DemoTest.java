package org.balanceroute.cli;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.balanceroute.enginesim.SimCluster;
import org.balanceroute.enginesim.SimConfig;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The demo's phases, its table and its charts, without starting the runtime. */
class DemoTest {

    private static final byte[] PNG_SIGNATURE = {(byte) 0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};

    private static Map<String, Object> row(String policy, int replicas, boolean shared, double imbalance) {
        Map<String, Object> r = new LinkedHashMap<>();
        r.put("policy", policy);
        r.put("replicas", replicas);
        r.put("shared", shared);
        r.put("avgImbalance", imbalance);
        r.put("throughputTokPerS", 20_000.0);
        r.put("tpotP95Ms", 25.0);
        r.put("ttftP95S", 10.0);
        r.put("completed", 3000);
        r.put("failed", 0);
        return r;
    }

    @Test
    void withoutReplicasTheThreePoliciesRunOnOneRuntime() {
        assertEquals(List.of(new Demo.Phase("jsq", 1, false), new Demo.Phase("br0", 1, false),
                new Demo.Phase("brh-survival", 1, false)), Demo.phases(1));
    }

    @Test
    void withTuneJsqThenBrhFromThePoorPairThenTuned() {
        List<Demo.Phase> phases = Demo.phases(1, true);
        assertEquals(List.of(new Demo.Phase("jsq", 1, false), new Demo.Phase("brh-survival", 1, false, Demo.POOR),
                new Demo.Phase("brh-survival", 1, false, Demo.POOR_AGAIN), new Demo.Phase("brh-survival", 1, false,
                        Demo.TUNED)), phases);
        assertEquals("brh-survival (43, 0.86) again", Demo.label(phases.get(2)));
        assertEquals("tune-poor-again.png", Demo.chartName(phases.get(2)));
        assertEquals("brh-survival (43, 0.86)", Demo.label(phases.get(1)));
        assertEquals("tune-poor.png", Demo.chartName(phases.get(1)));
        assertEquals("br0 tuned", Demo.label(new Demo.Phase("br0", 1, false, Demo.TUNED)));
        assertEquals("brh-survival (43, 0.86) kept", Demo.label(new Demo.Phase("brh-survival", 1, false, Demo.KEPT)));
        assertEquals("tune-kept.png", Demo.chartName(new Demo.Phase("brh-survival", 1, false, Demo.KEPT)));
    }

    @Test
    void withReplicasOneRuntimeThenNPlainProxiesThenNSharing() {
        assertEquals(List.of(new Demo.Phase("jsq", 1, false), new Demo.Phase("br0", 1, false),
                new Demo.Phase("br0", 3, false), new Demo.Phase("br0", 3, true)), Demo.phases(3));
        assertEquals("br0 on 3 replicas, shared snapshot", Demo.label(new Demo.Phase("br0", 3, true)));
    }

    @Test
    void theTableComparesTheReplicasWithOneReplicaAndJsq() {
        String t = Demo.table(List.of(row("jsq", 1, false, 200_000), row("br0", 1, false, 80_000),
                row("br0", 2, false, 150_000), row("br0", 2, true, 88_000)), 3000, "the built-in generator");
        assertTrue(t.contains("br0 on 2 replicas sharing the snapshot: 1.10x the imbalance of br0 on one replica,"
                + " 0.44x jsq's; 2 plain proxies (local views): 1.88x of one replica"), t);
        assertTrue(t.contains("replicas"), t);
    }

    @Test
    void theColumnsStayAlignedWithTheTuningLabels() {
        String t = Demo.table(List.of(row("jsq", 1, false, 200_000), row("brh-survival (43, 0.86)", 1, false, 80_000),
                row("brh-survival tuned", 1, false, 70_000)), 3000, "the built-in generator");
        List<String> lines = t.lines().filter(l -> l.startsWith("policy") || l.startsWith("jsq")
                || l.startsWith("brh-survival")).toList();
        assertEquals(4, lines.size(), t);
        assertEquals(1, lines.stream().map(String::length).distinct().count(), t);
    }

    @Test
    void oneChartPerPhaseNamedAfterIt() {
        assertEquals(List.of("jsq.png", "br0.png", "brh-survival.png"),
                Demo.phases(1).stream().map(Demo::chartName).toList());
        assertEquals(List.of("jsq.png", "br0.png", "br0-3-replicas-local.png", "br0-3-replicas-shared.png"),
                Demo.phases(3).stream().map(Demo::chartName).toList());
    }

    @Test
    void theEnginesSeriesBecomesAPng(@TempDir Path dir) throws Exception {
        try (SimCluster c = SimCluster.start(SimConfig.builder().prefill(0).decode(2).portBase(0).timeFactor(0.01)
                .build())) {
            HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
            HttpResponse<String> done = http.send(HttpRequest.newBuilder(URI.create(c.decodeUrl(1) + "/v1/completions"))
                    .header("Content-Type", "application/json")
                    .POST(HttpRequest.BodyPublishers.ofString("{\"prompt\": [1, 2, 3, 4], \"max_tokens\": 20,"
                            + " \"ignore_eos\": true}")).build(), HttpResponse.BodyHandlers.ofString());
            assertEquals(200, done.statusCode(), done.body());
            JsonNode series = new ObjectMapper().readTree(http.send(HttpRequest.newBuilder(
                    URI.create(c.allRanksUrl() + "/sim/series")).build(), HttpResponse.BodyHandlers.ofString()).body());
            assertEquals(20, series.get("samples").asInt());
            Path png = Demo.writeChart(dir, new Demo.Phase("br0", 1, false), series, 1);
            assertEquals(dir.resolve("br0.png").toAbsolutePath().normalize(), png);
            byte[] bytes = Files.readAllBytes(png);
            assertArrayEquals(PNG_SIGNATURE, Arrays.copyOf(bytes, 8), "a PNG");
            assertTrue(bytes.length > 1000);
        }
    }
}
