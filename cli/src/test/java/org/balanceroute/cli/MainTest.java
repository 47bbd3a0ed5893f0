package org.balanceroute.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class MainTest {

    @TempDir
    Path dir;

    private final ByteArrayOutputStream out = new ByteArrayOutputStream();
    private final ByteArrayOutputStream err = new ByteArrayOutputStream();

    private int run(String... args) {
        return Main.run(Arrays.asList(args), new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8));
    }

    private String stderr() {
        return err.toString(StandardCharsets.UTF_8);
    }

    private Path plainTrace(int n) throws Exception {
        List<String> lines = new ArrayList<>();
        lines.add("arrival_s,input_tokens,output_tokens");
        for (int i = 0; i < n; i++) {
            lines.add((i * 0.01) + "," + (500 + (i * 7919) % 4000) + "," + (5 + (i * 31) % 60));
        }
        Path f = dir.resolve("small.csv");
        Files.write(f, lines);
        return f;
    }

    @Test
    void jsonHasTheDocumentedShape() throws Exception {
        Path trace = plainTrace(200);
        assertEquals(0, run("simulate", "--trace", trace.toString(), "--workers", "4", "--capacity", "8",
                "--policies", "jsq,br0,brh-oracle", "--json"), stderr());
        JsonNode doc = new ObjectMapper().readTree(out.toString(StandardCharsets.UTF_8));
        assertEquals(4, doc.get("config").get("workers").asInt());
        assertEquals(3, doc.get("results").size());
        JsonNode row = doc.get("results").get(1);
        List<String> keys = new ArrayList<>();
        row.fieldNames().forEachRemaining(keys::add);
        assertEquals(List.of("policy", "avgImbalance", "meanI", "tpotP95Ms", "throughputTokPerS", "ttftP50S",
                "ttftP95S", "steps", "makespanS", "avgImbalanceBacklogged", "backloggedSteps",
                "overCapacityPlacements", "routerQueuedPlacements", "engineQueuedSteps", "steadySteps",
                "steadyAvgImbalance", "steadyThroughputTokPerS", "steadyTpotP95Ms"), keys);
        assertEquals(1, doc.get("config").get("replicas").asInt());
        assertEquals(0.0, doc.get("config").get("syncDelayMs").asDouble());
        assertEquals("dispatcher", doc.get("config").get("clusterMode").asText());
        assertEquals("br0", row.get("policy").asText());
        assertTrue(row.get("throughputTokPerS").asDouble() > 0);
    }

    @Test
    void loadSetsTheRateScaleAndIsReportedWithTheSteadyWindow() throws Exception {
        Path trace = plainTrace(200);
        assertEquals(0, run("simulate", "--trace", trace.toString(), "--workers", "4", "--capacity", "8",
                "--policies", "jsq", "--load", "0.8", "--warmup", "0.5", "--json"), stderr());
        JsonNode cfg = new ObjectMapper().readTree(out.toString(StandardCharsets.UTF_8)).get("config");
        assertEquals(0.8, cfg.get("load").asDouble(), 1e-9);
        assertEquals(0.5, cfg.get("warmupS").asDouble(), 1e-9);
        assertTrue(cfg.get("rateScale").asDouble() > 0);
        assertTrue(cfg.get("steadyEndS").asDouble() > cfg.get("steadyStartS").asDouble());
    }

    @Test
    void sweepWritesTablesResultsAndAChart() throws Exception {
        Path trace = plainTrace(200);
        String prefix = dir.resolve("out/sweep").toString();
        assertEquals(0, run("sweep", "--traces", trace.toString(), "--workers", "2,4", "--loads", "0.8,1.1",
                "--capacity", "8", "--policies", "jsq,br0", "--out", prefix), stderr());
        String md = Files.readString(Path.of(prefix + ".md"));
        assertEquals(md, out.toString(StandardCharsets.UTF_8));
        assertTrue(md.contains("small.csv, G=4"), md);
        assertTrue(md.lines().anyMatch(l -> l.equals("| jsq | 1.00x +0.0% +0.0% | 1.00x +0.0% +0.0% |")), md);
        JsonNode doc = new ObjectMapper().readTree(Files.readString(Path.of(prefix + ".json")));
        assertEquals(4, doc.get("runs").size());
        assertEquals(1.1, doc.get("runs").get(1).get("load").asDouble(), 1e-12);
        assertEquals("br0", doc.get("runs").get(0).get("results").get(1).get("policy").asText());
        assertTrue(Files.size(Path.of(prefix + ".png")) > 0);
        err.reset();
        assertEquals(2, run("sweep", "--traces", trace.toString(), "--policies", "br0"));
        assertTrue(stderr().contains("must include jsq"), stderr());
    }

    /**
     * Three samples per cell: medians and ranges in the tables and the JSON, sample 0 the run of
     * --samples 1, and the same samples again from the same seed. G=4 next to G=2 superposes two
     * copies.
     */
    @Test
    void sweepSamplesAreReportedAsMediansAndAreReproducible() throws Exception {
        Path trace = plainTrace(200);
        List<String> common = List.of("sweep", "--traces", trace.toString(), "--workers", "2,4", "--loads", "1.1",
                "--capacity", "8", "--policies", "jsq,br0,least-tokens", "--seed", "7");
        String one = dir.resolve("one").toString(), three = dir.resolve("three").toString(),
                again = dir.resolve("again").toString();
        for (String[] extra : new String[][] {{"--out", one}, {"--samples", "3", "--out", three},
                {"--samples", "3", "--out", again}}) {
            List<String> args = new ArrayList<>(common);
            args.addAll(List.of(extra));
            assertEquals(0, run(args.toArray(String[]::new)), stderr());
        }
        ObjectMapper mapper = new ObjectMapper();
        JsonNode single = mapper.readTree(Files.readString(Path.of(one + ".json")));
        JsonNode doc = mapper.readTree(Files.readString(Path.of(three + ".json")));
        assertEquals(doc, mapper.readTree(Files.readString(Path.of(again + ".json"))));
        assertEquals(3, doc.get("samples").asInt());
        JsonNode g4 = doc.get("runs").get(1);
        assertEquals(2, g4.get("copies").asInt());
        assertEquals(1, doc.get("runs").get(0).get("copies").asInt());
        assertEquals(3, g4.get("samples").size());
        assertEquals(single.get("runs").get(1).get("results"), g4.get("samples").get(0).get("results"));
        assertEquals(g4.get("results"), g4.get("samples").get(0).get("results"));
        double[] ratios = new double[3];
        for (int s = 0; s < 3; s++) {
            JsonNode results = g4.get("samples").get(s).get("results");
            ratios[s] = results.get(1).get("steadyThroughputTokPerS").asDouble()
                    / results.get(0).get("steadyThroughputTokPerS").asDouble();
        }
        Arrays.sort(ratios);
        JsonNode br0 = g4.get("medians").get("br0").get("steadyThroughputThisOverJsq");
        assertEquals(ratios[1], br0.get("median").asDouble(), 1e-12);
        assertEquals(ratios[0], br0.get("min").asDouble(), 1e-12);
        assertEquals(ratios[2], br0.get("max").asDouble(), 1e-12);
        String md = Files.readString(Path.of(three + ".md"));
        assertTrue(md.contains("median of 3 samples [min, max]"), md);
        assertTrue(md.lines().anyMatch(l -> l.equals("| jsq | 1.00x [1.00, 1.00] +0.0% [+0.0, +0.0] +0.0% [+0.0, +0.0] |")),
                md);
        String once = dir.resolve("once").toString();
        List<String> args = new ArrayList<>(common);
        args.addAll(List.of("--no-superpose", "--out", once));
        assertEquals(0, run(args.toArray(String[]::new)), stderr());
        JsonNode onceG4 = mapper.readTree(Files.readString(Path.of(once + ".json"))).get("runs").get(1);
        assertEquals(1, onceG4.get("copies").asInt());
        // one copy at G=4 is offered twice as fast as two: twice the rate scale for the same load
        assertEquals(2 * single.get("runs").get(1).get("rateScale").asDouble(), onceG4.get("rateScale").asDouble(),
                1e-9);
        err.reset();
        assertEquals(2, run("sweep", "--traces", trace.toString(), "--samples", "0"));
        assertTrue(stderr().contains("--samples must be >= 1"), stderr());
    }

    @Test
    void loadAndRateScaleExcludeEachOther() throws Exception {
        Path trace = plainTrace(20);
        assertEquals(2, run("simulate", "--trace", trace.toString(), "--load", "1", "--rate-scale", "2"));
        assertTrue(stderr().contains("--load and --rate-scale"), stderr());
        err.reset();
        assertEquals(2, run("simulate", "--trace", trace.toString(), "--load", "0"));
        assertTrue(stderr().contains("--load must be"), stderr());
        err.reset();
        assertEquals(2, run("simulate", "--trace", trace.toString(), "--warmup", "-1"));
        assertTrue(stderr().contains("--warmup must be"), stderr());
    }

    @Test
    void tableHasARowPerPolicyWithRatiosToJsq() throws Exception {
        Path trace = plainTrace(100);
        assertEquals(0, run("simulate", "--trace", trace.toString(), "--policies", "jsq,round-robin"), stderr());
        String table = out.toString(StandardCharsets.UTF_8);
        assertTrue(table.lines().anyMatch(l -> l.startsWith("jsq ") && l.contains("1.00x") && l.contains("+0.0%")),
                table);
        assertTrue(table.lines().anyMatch(l -> l.startsWith("round-robin ")), table);
    }

    @Test
    void replicasAreInTheJsonAndTheTableGainsTheEngineCounters() throws Exception {
        Path trace = plainTrace(300);
        List<String> common = List.of("simulate", "--trace", trace.toString(), "--workers", "2", "--capacity", "4",
                "--policies", "br0,jsq", "--replicas", "3", "--sync-delay-ms", "2.5", "--cluster-mode", "gossip");
        List<String> json = new ArrayList<>(common);
        json.add("--json");
        assertEquals(0, run(json.toArray(String[]::new)), stderr());
        JsonNode doc = new ObjectMapper().readTree(out.toString(StandardCharsets.UTF_8));
        assertEquals(3, doc.get("config").get("replicas").asInt());
        assertEquals(2.5, doc.get("config").get("syncDelayMs").asDouble());
        assertEquals("gossip", doc.get("config").get("clusterMode").asText());
        JsonNode br0 = doc.get("results").get(0);
        assertTrue(br0.get("overCapacityPlacements").asLong() > 0, br0.toString());
        assertEquals(0, br0.get("routerQueuedPlacements").asLong(), br0.toString());
        assertTrue(stderr().contains("3 proxy replicas (gossip, sync delay 2.5 ms)"), stderr());
        out.reset();
        assertEquals(0, run(common.toArray(String[]::new)), stderr());
        String table = out.toString(StandardCharsets.UTF_8);
        assertTrue(table.lines().findFirst().orElseThrow().endsWith("over cap     queued"), table);
        out.reset();
        assertEquals(0, run("simulate", "--trace", trace.toString(), "--policies", "br0"), stderr());
        assertTrue(out.toString(StandardCharsets.UTF_8).lines().findFirst().orElseThrow().endsWith("makespan"));
    }

    @Test
    void badReplicaOptionsNameTheOption() throws Exception {
        Path trace = plainTrace(10);
        String[][] cases = {
            {"--replicas", "0", "--replicas must be 1..64, got 0"},
            {"--replicas", "65", "--replicas must be 1..64, got 65"},
            {"--replicas", "two", "--replicas must be an integer, got 'two'"},
            {"--sync-delay-ms", "-1", "--sync-delay-ms must be >= 0 and finite, got -1.0"},
            {"--sync-delay-ms", "Infinity", "--sync-delay-ms must be a number, got 'Infinity'"},
            {"--sync-delay-ms", "NaN", "--sync-delay-ms must be a number, got 'NaN'"},
            {"--cluster-mode", "mesh", "--cluster-mode must be one of dispatcher, gossip, independent, got 'mesh'"},
        };
        assertUsageErrors(trace, cases);
    }

    /** Each case: simulate's options, then the message: a usage error (2) saying it, nothing on stdout. */
    private void assertUsageErrors(Path trace, String[][] cases) {
        for (String[] c : cases) {
            err.reset();
            List<String> args = new ArrayList<>(List.of("simulate", "--trace", trace.toString()));
            args.addAll(Arrays.asList(c).subList(0, c.length - 1));
            String message = c[c.length - 1];
            assertEquals(2, run(args.toArray(String[]::new)), message);
            assertTrue(stderr().contains(message), stderr());
            assertEquals("", out.toString(StandardCharsets.UTF_8));
        }
    }

    @Test
    void warmStartChangesWhatTheSurvivalPredictorKnows() throws Exception {
        Path trace = plainTrace(300);
        List<String> common = List.of("simulate", "--trace", trace.toString(), "--workers", "4", "--capacity", "4",
                "--policies", "brh-survival", "--horizon", "40", "--stage1-worker", "slots", "--horizon-margin", "min",
                "--json");
        assertEquals(0, run(common.toArray(String[]::new)), stderr());
        String cold = out.toString(StandardCharsets.UTF_8);
        out.reset();
        List<String> warm = new ArrayList<>(common);
        warm.addAll(List.of("--warm-start", trace.toString()));
        assertEquals(0, run(warm.toArray(String[]::new)), stderr());
        String warmed = out.toString(StandardCharsets.UTF_8);
        JsonNode a = new ObjectMapper().readTree(cold).get("results").get(0);
        JsonNode b = new ObjectMapper().readTree(warmed).get("results").get(0);
        assertTrue(a.get("avgImbalance").asDouble() != b.get("avgImbalance").asDouble(), cold + "\n" + warmed);
    }

    @Test
    void seriesWritesCsvAndChartPerPolicy() throws Exception {
        Path trace = plainTrace(100);
        Path series = dir.resolve("series");
        assertEquals(0, run("simulate", "--trace", trace.toString(), "--workers", "3", "--policies", "br0",
                "--series", series.toString()), stderr());
        List<String> csv = Files.readAllLines(series.resolve("br0.csv"));
        assertEquals("step,time_s,worker_0,worker_1,worker_2", csv.get(0));
        assertTrue(csv.size() > 10);
        byte[] png = Files.readAllBytes(series.resolve("br0.png"));
        assertEquals((byte) 0x89, png[0]);
        assertEquals('P', png[1]);
    }

    @Test
    void badOptionsNameTheOption() throws Exception {
        Path trace = plainTrace(10);
        assertEquals(2, run("simulate", "--trace", trace.toString(), "--workers", "many"));
        assertTrue(stderr().contains("--workers must be an integer, got 'many'"), stderr());
        err.reset();
        assertEquals(2, run("simulate", "--trace", trace.toString(), "--gamma", "1.5"));
        assertTrue(stderr().contains("--gamma must be (0, 1]"), stderr());
        err.reset();
        assertEquals(2, run("simulate", "--trace", trace.toString(), "--policies", "jsq,best"));
        assertTrue(stderr().contains("unknown policy 'best'"), stderr());
        err.reset();
        assertEquals(2, run("simulate", "--trace", trace.toString(), "--rate-scale", "0"));
        assertTrue(stderr().contains("--rate-scale"), stderr());
        err.reset();
        assertEquals(2, run("simulate", "--trace", trace.toString(), "--frobnicate", "1"));
        assertTrue(stderr().contains("unknown option '--frobnicate'"), stderr());
        err.reset();
        assertEquals(2, run("simulate"));
        assertTrue(stderr().contains("--trace FILE is required"), stderr());
    }

    /** tune on the built-in workload, with replays on both sides: the one-run and the mean figures side by side. */
    @Test
    void tuneTakesTheBuiltInWorkloadAndReportsBothDefinitions() {
        String[] args = {"tune", "--generate", "800", "--workers", "4", "--window-minutes", "1", "--betas", "8",
            "--gammas", "0.5", "--horizons", "20", "--replays", "2", "--eval-replays", "3"};
        assertEquals(0, run(args), stderr());
        String text = out.toString(StandardCharsets.UTF_8);
        assertTrue(text.contains(", " + 3 * 2 + " runs,"), text); // 3 candidates x 2 replays
        assertTrue(text.contains("on the mean over 3 perturbed replays of the rest:"), text);
        assertTrue(text.contains("(on the mean)"), text);
        out.reset();
        assertEquals(0, run(args));
        assertEquals(text.replaceAll("[0-9.]+ s\\)", ""), out.toString(StandardCharsets.UTF_8)
                .replaceAll("[0-9.]+ s\\)", ""), "seeded: the same figures again");
    }

    @Test
    void aMalformedTraceNamesFileLineAndFieldAndRunsNothing() throws Exception {
        Path bad = dir.resolve("bad.csv");
        Files.write(bad, List.of("arrival_s,input_tokens,output_tokens", "0,10,5", "0.1,ten,5"));
        assertEquals(1, run("simulate", "--trace", bad.toString()));
        assertTrue(stderr().contains("bad.csv:3: field 'input_tokens'"), stderr());
        assertEquals("", out.toString(StandardCharsets.UTF_8));
    }

    @Test
    void groupsAreSimulatedAndReportedPerInstance() throws Exception {
        Path trace = plainTrace(300);
        assertEquals(0, run("simulate", "--trace", trace.toString(), "--groups", "3,2", "--capacity", "4,8",
                "--policies", "jsq,br0,jsq-br0", "--load", "1.0", "--json"), stderr());
        JsonNode doc = new ObjectMapper().readTree(out.toString(StandardCharsets.UTF_8));
        JsonNode cfg = doc.get("config");
        assertEquals("[3,2]", cfg.get("groups").toString());
        assertEquals("[4,8]", cfg.get("groupCapacities").toString());
        assertEquals(5, cfg.get("workers").asInt());
        assertEquals(8, cfg.get("capacity").asInt());
        assertEquals("groups", cfg.get("policyView").asText());
        assertEquals(3, doc.get("results").size());
        for (JsonNode row : doc.get("results")) {
            JsonNode g = row.get("groupImbalance");
            assertEquals(2, g.size(), row.toString());
            assertEquals(row.get("avgImbalance").asDouble(), g.get(0).asDouble() + g.get(1).asDouble(), 1e-6);
            JsonNode steady = row.get("steadyGroupImbalance");
            assertEquals(row.get("steadyAvgImbalance").asDouble(), steady.get(0).asDouble() + steady.get(1).asDouble(),
                    1e-6);
        }
        out.reset();
        assertEquals(0, run("simulate", "--trace", trace.toString(), "--groups", "3,2", "--policies", "br0",
                "--policy-view", "flat"), stderr());
        String text = out.toString(StandardCharsets.UTF_8);
        assertTrue(text.contains("imbalance per decode instance"), text);
        assertTrue(text.contains("0: ") && text.contains("1: "), text);
    }

    @Test
    void theLoadScalesWithTheCapacityOfEveryInstance() throws Exception {
        Path trace = plainTrace(200);
        assertEquals(0, run("simulate", "--trace", trace.toString(), "--workers", "4", "--policies", "jsq",
                "--load", "1.0", "--json"), stderr());
        JsonNode one = new ObjectMapper().readTree(out.toString(StandardCharsets.UTF_8)).get("config");
        out.reset();
        assertEquals(0, run("simulate", "--trace", trace.toString(), "--groups", "4,4", "--policies", "jsq",
                "--load", "1.0", "--json"), stderr());
        JsonNode two = new ObjectMapper().readTree(out.toString(StandardCharsets.UTF_8)).get("config");
        assertEquals(2 * one.get("capacityTokPerS").asDouble(), two.get("capacityTokPerS").asDouble(), 1e-6);
        assertEquals(2 * one.get("rateScale").asDouble(), two.get("rateScale").asDouble(), 1e-9);
    }

    @Test
    void badGroupsCapacitiesAndViewsNameTheOption() throws Exception {
        Path trace = plainTrace(10);
        String[][] cases = {
            {"--groups", "8,,8", "--groups must be an integer or a comma list of integers, got '8,,8' (an empty item)"},
            {"--groups", "8,x", "--groups must be an integer or a comma list of integers, got '8,x' ('x' is not one)"},
            {"--groups", "0,8", "--groups: every instance needs 1..4096 ranks, got 0 in '0,8'"},
            {"--groups", "4000,200", "--groups: at most 4096 ranks in all, got 4200"},
            {"--capacity", "64,128", "--capacity: 2 values (one per decode instance) need simulate --groups"},
            {"--capacity", "abc", "--capacity must be an integer or a comma list of integers, got 'abc'"},
            {"--policy-view", "wide", "--policy-view must be groups or flat, got 'wide'"},
        };
        assertUsageErrors(trace, cases);
        String[][] pairs = {
            {"--groups", "8,8", "--capacity", "1,2,3", "--capacity: give one value, or one per decode instance of"
                    + " --groups (2), got 3"},
            {"--groups", "8,8", "--capacity", "0,64", "--capacity must be 1..1000000 per instance, got 0"},
            {"--groups", "4,4", "--workers", "8", "--groups and --workers both set the decode ranks"},
            {"--groups", "2,2", "--replicas", "2", "--groups: several decode instances are modelled with one proxy"},
        };
        assertUsageErrors(trace, pairs);
        err.reset();
        assertEquals(2, run("sweep", "--traces", trace.toString(), "--capacity", "8,8"));
        assertTrue(stderr().contains("--capacity: 2 values"), stderr());
    }
}
