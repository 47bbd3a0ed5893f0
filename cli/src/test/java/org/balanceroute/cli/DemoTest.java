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
        assertEquals(List.of(new DemoPhase("jsq", 1, false), new DemoPhase("br0", 1, false),
                new DemoPhase("brh-survival", 1, false)), DemoPhase.phases(1));
    }

    @Test
    void withTuneJsqThenBrhFromThePoorPairThenTuned() {
        List<DemoPhase> phases = DemoPhase.phases(1, true);
        assertEquals(List.of(new DemoPhase("jsq", 1, false), new DemoPhase("brh-survival", 1, false, DemoPhase.POOR),
                new DemoPhase("brh-survival", 1, false, DemoPhase.POOR_AGAIN), new DemoPhase("brh-survival", 1, false,
                        DemoPhase.TUNED)), phases);
        assertEquals("brh-survival (43, 0.86) again", phases.get(2).label());
        assertEquals("tune-poor-again.png", phases.get(2).chartName());
        assertEquals("brh-survival (43, 0.86)", phases.get(1).label());
        assertEquals("tune-poor.png", phases.get(1).chartName());
        assertEquals("br0 tuned", new DemoPhase("br0", 1, false, DemoPhase.TUNED).label());
        assertEquals("brh-survival (43, 0.86) kept", new DemoPhase("brh-survival", 1, false, DemoPhase.KEPT).label());
        assertEquals("tune-kept.png", new DemoPhase("brh-survival", 1, false, DemoPhase.KEPT).chartName());
    }

    @Test
    void withReplicasOneRuntimeThenNPlainProxiesThenNSharing() {
        assertEquals(List.of(new DemoPhase("jsq", 1, false), new DemoPhase("br0", 1, false),
                new DemoPhase("br0", 3, false), new DemoPhase("br0", 3, true)), DemoPhase.phases(3));
        assertEquals("br0 on 3 replicas, shared snapshot", new DemoPhase("br0", 3, true).label());
    }

    @Test
    void theTableComparesTheReplicasWithOneReplicaAndJsq() {
        String t = DemoReport.table(List.of(row("jsq", 1, false, 200_000), row("br0", 1, false, 80_000),
                row("br0", 2, false, 150_000), row("br0", 2, true, 88_000)), 3000, "the built-in generator");
        assertTrue(t.contains("br0 on 2 replicas sharing the snapshot: 1.10x the imbalance of br0 on one replica,"
                + " 0.44x jsq's; 2 plain proxies (local views): 1.88x of one replica"), t);
        assertTrue(t.contains("replicas"), t);
    }

    @Test
    void theColumnsStayAlignedWithTheTuningLabels() {
        String t = DemoReport.table(List.of(row("jsq", 1, false, 200_000), row("brh-survival (43, 0.86)", 1, false, 80_000),
                row("brh-survival tuned", 1, false, 70_000)), 3000, "the built-in generator");
        List<String> lines = t.lines().filter(l -> l.startsWith("policy") || l.startsWith("jsq")
                || l.startsWith("brh-survival")).toList();
        assertEquals(4, lines.size(), t);
        assertEquals(1, lines.stream().map(String::length).distinct().count(), t);
    }

    @Test
    void oneChartPerPhaseNamedAfterIt() {
        assertEquals(List.of("jsq.png", "br0.png", "brh-survival.png"),
                DemoPhase.phases(1).stream().map(DemoPhase::chartName).toList());
        assertEquals(List.of("jsq.png", "br0.png", "br0-3-replicas-local.png", "br0-3-replicas-shared.png"),
                DemoPhase.phases(3).stream().map(DemoPhase::chartName).toList());
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
            Path png = DemoReport.writeChart(dir, new DemoPhase("br0", 1, false), series, 1);
            assertEquals(dir.resolve("br0.png").toAbsolutePath().normalize(), png);
            byte[] bytes = Files.readAllBytes(png);
            assertArrayEquals(PNG_SIGNATURE, Arrays.copyOf(bytes, 8), "a PNG");
            assertTrue(bytes.length > 1000);
        }
    }

    /** The demo's options as Main parses them (nothing started). */
    private static Demo parse(String... args) {
        picocli.CommandLine top = Main.commandLine(System.out, System.err);
        Demo demo = top.getSubcommands().get("demo").getCommand();
        List<String> line = new java.util.ArrayList<>(List.of("demo"));
        line.addAll(List.of(args));
        top.parseArgs(line.toArray(String[]::new));
        return demo;
    }

    @Test
    void withoutInstancesThePlanIsTodays() throws Exception {
        Demo demo = parse();
        assertEquals(1, demo.instances);
        Demo.checkInstances(demo.given("--instances") != null, demo.instances, demo.replicas, demo.tune);
        // one sim-cluster with today's arguments (default ports), today's ports checked, today's phases
        assertEquals(List.of(List.of("sim-cluster", "--prefill", "2", "--decode", "8", "--time-factor", "0.08",
                "--stream-interval", "32")), DemoTopology.simClusterArgs(demo.instances, demo.timeFactor, demo.streamInterval, demo.simPortBase));
        assertEquals(List.of(18100, 18101, 18199, 18200, 8000), DemoTopology.ports(demo.replicas, demo.port, demo.instances, demo.simPortBase));
        assertEquals(List.of(18100, 18101, 18199, 18200, 8000, 5701, 8001, 5702, 8002, 5703), DemoTopology.ports(3, 8000, 1, 18100));
        assertEquals(DemoPhase.phases(1), DemoPhase.phases(1, false, demo.instances));
        assertEquals(0.08, Demo.timeFactor(demo.given("--time-factor") != null, demo.timeFactor, demo.instances));
        assertEquals(DemoPhase.phases(3), DemoPhase.phases(3, false, 1));
        assertEquals(DemoPhase.phases(1, true), DemoPhase.phases(1, true, 1));
        assertEquals(List.of(new DemoPhase("jsq", 1, false), new DemoPhase("br0", 1, false),
                new DemoPhase("brh-survival", 1, false)), DemoPhase.phases(1, false, 1));
    }

    @Test
    void instancesParsedAndPlanned() throws Exception {
        Demo demo = parse("--instances", "2", "--time-factor", "0.1");
        assertEquals(2, demo.instances);
        assertEquals(0.1, Demo.timeFactor(true, demo.timeFactor, 2), "as given");
        Demo byDefault = parse("--instances", "2");
        assertEquals(0.16, Demo.timeFactor(byDefault.given("--time-factor") != null, byDefault.timeFactor, 2), 1e-12,
                "twice the ranks: twice the default, the same load per rank");
        Demo.checkInstances(true, demo.instances, demo.replicas, demo.tune);
        assertEquals(List.of(
                List.of("sim-cluster", "--prefill", "2", "--decode", "8", "--time-factor", "0.1", "--stream-interval", "32"),
                List.of("sim-cluster", "--prefill", "0", "--decode", "8", "--port-base", "18300", "--handles-from",
                        "http://127.0.0.1:18199", "--time-factor", "0.1", "--stream-interval", "32")),
                DemoTopology.simClusterArgs(2, demo.timeFactor, demo.streamInterval, demo.simPortBase));
        assertEquals(List.of(18100, 18101, 18199, 18200, 18399, 18400, 8000), DemoTopology.ports(1, 8000, 2, 18100));
        List<DemoPhase> phases = DemoPhase.phases(1, false, 2);
        assertEquals(List.of(DemoPhase.ofInstances("jsq", 2), DemoPhase.ofInstances("br0", 1),
                DemoPhase.ofInstances("br0", 2)), phases);
        assertEquals(List.of("jsq", "br0 flat", "br0 group-aware"), phases.stream().map(DemoPhase::label).toList());
        assertEquals(List.of("jsq.png", "br0-flat.png", "br0-grouped.png"), phases.stream().map(DemoPhase::chartName).toList());
        assertEquals(List.of(
                List.of("sim-cluster", "--prefill", "2", "--decode", "8", "--port-base", "19100", "--time-factor", "0.1",
                        "--stream-interval", "32"),
                List.of("sim-cluster", "--prefill", "0", "--decode", "8", "--port-base", "19300", "--handles-from",
                        "http://127.0.0.1:19199", "--time-factor", "0.1", "--stream-interval", "32")),
                DemoTopology.simClusterArgs(2, 0.1, 32, 19100));
        assertTrue(DemoTopology.poolFile(2, 2, 19100).contains("prefillUrls = http://127.0.0.1:19100, http://127.0.0.1:19101\n"));
        assertTrue(DemoTopology.poolFile(2, 2, 19100).contains("instance.decode1.workers = http://127.0.0.1:19400,"));
        UsageException e = org.junit.jupiter.api.Assertions.assertThrows(UsageException.class,
                () -> Demo.checkInstances(true, 1, 1, false));
        assertEquals("--instances must be 2..4, got 1", e.getMessage());
    }

    @Test
    void thePoolFileListsTheRanksAsTwoInstancesOrOneFlat() {
        String grouped = DemoTopology.poolFile(2, 2, 18100);
        assertTrue(grouped.contains("\ninstances = decode0, decode1\n"), grouped);
        assertTrue(grouped.contains("instance.decode0.workers = http://127.0.0.1:18200, http://127.0.0.1:18201,"
                + " http://127.0.0.1:18202, http://127.0.0.1:18203, http://127.0.0.1:18204, http://127.0.0.1:18205,"
                + " http://127.0.0.1:18206, http://127.0.0.1:18207\n"), grouped);
        assertTrue(grouped.contains("instance.decode1.workers = http://127.0.0.1:18400,"), grouped);
        assertTrue(grouped.contains("http://127.0.0.1:18407\ninstance.decode1.capacity = 64\n"), grouped);
        assertTrue(grouped.contains("prefillUrls = http://127.0.0.1:18100, http://127.0.0.1:18101\n"), grouped);
        assertTrue(grouped.contains("\nmodel = balanceroute-sim\n"), grouped);
        String flat = DemoTopology.poolFile(1, 2, 18100);
        assertTrue(flat.contains("\ninstances = flat\n"), flat);
        assertTrue(flat.contains("instance.flat.workers = http://127.0.0.1:18200,"), flat);
        assertTrue(flat.contains("http://127.0.0.1:18207, http://127.0.0.1:18400,"), flat);
        assertTrue(flat.contains("http://127.0.0.1:18407\ninstance.flat.capacity = 64\n"), flat);
    }

    private static JsonNode stats(double imbalance, double tput, double tpot, double ttft) {
        return new ObjectMapper().createObjectNode().put("avgImbalance", imbalance).put("throughputTokPerS", tput)
                .put("tpotP95Ms", tpot).put("ttftP95S", ttft);
    }

    @Test
    void withoutInstancesTheJsonRowHasTodaysKeysOnly() throws Exception {
        Map<String, Object> r = DemoReport.row(new DemoPhase("br0", 1, false), List.of(stats(85_644, 26_350, 21.1, 12.6)),
                3000, 0, 2);
        assertEquals(List.of("policy", "replicas", "shared", "avgImbalance", "throughputTokPerS", "tpotP95Ms",
                "ttftP95S", "completed", "failed", "retried"), List.copyOf(r.keySet()));
        JsonNode json = new ObjectMapper().readTree(DemoReport.resultsJson(List.of(r)));
        assertEquals(85_644.0, json.at("/results/0/avgImbalance").asDouble());
        assertEquals(26_350.0, json.at("/results/0/throughputTokPerS").asDouble());
        assertEquals(2, json.at("/results/0/retried").asInt());
    }

    @Test
    void withInstancesEachRowAddsInstancesAndGroupImbalanceSummed() throws Exception {
        List<Map<String, Object>> rows = List.of(
                DemoReport.row(DemoPhase.ofInstances("jsq", 2), List.of(stats(100_000, 10_000, 30, 12),
                        stats(120_000, 11_000, 35, 10)), 3000, 0, 0),
                DemoReport.row(DemoPhase.ofInstances("br0", 1), List.of(stats(60_000, 12_000, 25, 13),
                        stats(50_000, 12_500, 24, 14)), 3000, 1, 0),
                DemoReport.row(DemoPhase.ofInstances("br0", 2), List.of(stats(40_000, 13_000, 20, 11),
                        stats(37_000, 13_000, 21, 11)), 3000, 0, 0));
        JsonNode json = new ObjectMapper().readTree(DemoReport.resultsJson(rows));
        JsonNode jsq = json.at("/results/0");
        assertEquals(List.of("policy", "replicas", "shared", "avgImbalance", "throughputTokPerS", "tpotP95Ms",
                "ttftP95S", "completed", "failed", "retried", "instances", "groupImbalance"),
                List.copyOf(rows.get(0).keySet()));
        assertEquals(220_000.0, jsq.path("avgImbalance").asDouble(), "summed over the instances");
        assertEquals(21_000.0, jsq.path("throughputTokPerS").asDouble());
        assertEquals(35.0, jsq.path("tpotP95Ms").asDouble(), "the larger instance's p95");
        assertEquals(12.0, jsq.path("ttftP95S").asDouble());
        assertEquals(2, jsq.path("instances").asInt());
        assertEquals(100_000.0, jsq.path("groupImbalance").get(0).asDouble());
        assertEquals(120_000.0, jsq.path("groupImbalance").get(1).asDouble());
        assertEquals(1, json.at("/results/1/instances").asInt(), "flat: one instance in the pool file");
        assertEquals(2, json.at("/results/1/groupImbalance").size(), "still measured per simulated instance");
        assertEquals("br0", json.at("/results/2/policy").asText());
        String t = DemoReport.instancesTable(rows, 3000, "the built-in generator", 2);
        assertTrue(t.contains("group-aware br0: 0.70x the summed imbalance of flat br0, 0.35x jsq's"), t);
        assertTrue(t.contains("br0 flat         1 x 16"), t);
        assertTrue(t.contains("br0 group-aware  2 x 8"), t);
        List<String> lines = t.lines().filter(l -> l.startsWith("policy") || l.startsWith("jsq")
                || l.startsWith("br0")).toList();
        assertEquals(4, lines.size(), t);
        assertEquals(1, lines.stream().map(String::length).distinct().count(), t);
    }
}
