package org.balanceroute.cli;

import org.balanceroute.policy.balance.BalancePolicy;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.balanceroute.chart.LoadChart;
import org.balanceroute.chart.LoadSeries;

/**
 * What {@code ./balanceroute demo} reports: a row per phase from the engine's ground truth, printed
 * as a table or as JSON, and a chart per phase of the engine-measured KV load per rank.
 */
final class DemoReport {

    private static final ObjectMapper JSON = new ObjectMapper();

    private DemoReport() {
    }

    /**
     * Draws the engine's series ({@code GET /sim/series}: {@code ranks}, {@code step}, {@code loads})
     * as {@code dir/}{@link DemoPhase#chartName}; returns the file.
     */
    static Path writeChart(Path dir, DemoPhase phase, JsonNode series, int requests) throws IOException {
        return writeChart(dir, phase, series, requests, -1);
    }

    /**
     * @param instance the simulated decode instance the series is of ({@code --instances}: the file is
     *     {@code NAME-instance-I.png}), or -1
     */
    static Path writeChart(Path dir, DemoPhase phase, JsonNode series, int requests, int instance) throws IOException {
        int ranks = series.path("ranks").asInt();
        JsonNode steps = series.path("step");
        JsonNode loads = series.path("loads");
        LoadSeries s = new LoadSeries() {
            @Override public int workers() { return ranks; }
            @Override public int samples() { return Math.min(steps.size(), loads.size()); }
            @Override public long step(int i) { return steps.get(i).asLong(); }
            @Override public long load(int i, int g) { return loads.get(i).get(g).asLong(); }
        };
        String name = phase.chartName();
        if (instance >= 0) {
            name = name.substring(0, name.length() - ".png".length()) + "-instance-" + instance + ".png";
        }
        Path png = dir.resolve(name);
        LoadChart.write(png, String.format(Locale.ROOT, "%s: KV load per rank%s, measured by the engine (%d requests,"
                + " %d steps)", phase.label(), instance >= 0 ? " of instance " + instance : "", requests,
                series.path("steps").asLong()), s);
        return png.toAbsolutePath().normalize();
    }

    /**
     * One row of the comparison from the engine's ground truth ({@code GET /sim/stats}) of each
     * simulated instance: today's keys; with several instances, the imbalances and throughputs
     * summed, the p95 latencies the largest instance's, and {@code instances} (those the pool file
     * listed) and {@code groupImbalance} (each instance's) added.
     */
    static Map<String, Object> row(DemoPhase phase, List<JsonNode> stats, int completed, int failed, int retried) {
        Map<String, Object> row = new LinkedHashMap<>();
        row.put("policy", phase.tuning() == null ? phase.policy() : phase.label());
        row.put("replicas", phase.replicas());
        row.put("shared", phase.shared());
        double imbalance = 0, throughput = 0, tpot = 0, ttft = 0;
        List<Double> groups = new ArrayList<>();
        for (JsonNode s : stats) {
            groups.add(s.path("avgImbalance").asDouble());
            imbalance += s.path("avgImbalance").asDouble();
            throughput += s.path("throughputTokPerS").asDouble();
            tpot = Math.max(tpot, s.path("tpotP95Ms").asDouble());
            ttft = Math.max(ttft, s.path("ttftP95S").asDouble());
        }
        row.put("avgImbalance", imbalance);
        row.put("throughputTokPerS", throughput);
        row.put("tpotP95Ms", tpot);
        row.put("ttftP95S", ttft);
        row.put("completed", completed);
        row.put("failed", failed);
        row.put("retried", retried);
        if (phase.instances() > 0) {
            row.put("instances", phase.instances());
            row.put("groupImbalance", groups);
        }
        return row;
    }

    /** {@code --json}: {@code {"results": [row, ...]}}, indented. */
    static String resultsJson(List<Map<String, Object>> results) throws IOException {
        return JSON.copy().enable(SerializationFeature.INDENT_OUTPUT).writeValueAsString(Map.of("results", results));
    }

    /**
     * {@code --instances}: per phase each instance's engine-measured imbalance and their sum, with
     * the ratios; then group-aware br0 against flat br0 and jsq.
     */
    @SuppressWarnings("unchecked")
    static String instancesTable(List<Map<String, Object>> results, int n, String workload, int simInstances) {
        StringBuilder sb = new StringBuilder();
        sb.append(String.format(Locale.ROOT, "%nBalanceRoute demo: %d requests of %s per policy, %d decode instances"
                + " of G=%d (one barrier each), measured by each instance's engine%n%n", n, workload, simInstances,
                DemoTopology.RANKS_PER_INSTANCE));
        StringBuilder head = new StringBuilder(String.format(Locale.ROOT, "%-16s %-9s", "policy", "pool file"));
        for (int i = 0; i < simInstances; i++) {
            head.append(String.format(Locale.ROOT, " %12s", "instance " + i));
        }
        head.append(String.format(Locale.ROOT, " %12s %8s %10s %8s %11s %10s %6s%n", "summed", "vs jsq", "tok/s",
                "vs jsq", "TPOT p95 ms", "TTFT p95 s", "failed"));
        sb.append(head);
        double jsqImb = (double) results.get(0).get("avgImbalance");
        double jsqTput = (double) results.get(0).get("throughputTokPerS");
        for (Map<String, Object> r : results) {
            int listed = (int) r.get("instances");
            String policy = BalancePolicy.BR0.equals(r.get("policy")) ? listed == 1 ? "br0 flat" : "br0 group-aware"
                    : String.valueOf(r.get("policy"));
            StringBuilder line = new StringBuilder(String.format(Locale.ROOT, "%-16s %-9s", policy,
                    listed == 1 ? "1 x " + simInstances * DemoTopology.RANKS_PER_INSTANCE : listed + " x " + DemoTopology.RANKS_PER_INSTANCE));
            for (double g : (List<Double>) r.get("groupImbalance")) {
                line.append(String.format(Locale.ROOT, " %,12.0f", g));
            }
            double imb = (double) r.get("avgImbalance");
            double tput = (double) r.get("throughputTokPerS");
            line.append(String.format(Locale.ROOT, " %,12.0f %7.2fx %,10.0f %+7.1f%% %11.1f %10.2f %6d%n", imb,
                    imb / jsqImb, tput, (tput / jsqTput - 1) * 100, (double) r.get("tpotP95Ms"),
                    (double) r.get("ttftP95S"), (int) r.get("failed")));
            sb.append(line);
        }
        sb.append("(avg imbalance in KV tokens, max - min over each instance's ranks every step, as its engine measures"
                + " it; summed over the instances; vs jsq: as a fraction of jsq's, lower is better)\n");
        double flat = Double.NaN, grouped = Double.NaN;
        for (Map<String, Object> r : results) {
            if (BalancePolicy.BR0.equals(r.get("policy"))) {
                if ((int) r.get("instances") == 1) {
                    flat = (double) r.get("avgImbalance");
                } else {
                    grouped = (double) r.get("avgImbalance");
                }
            }
        }
        sb.append(String.format(Locale.ROOT, "group-aware br0: %.2fx the summed imbalance of flat br0, %.2fx jsq's%n",
                grouped / flat, grouped / jsqImb));
        return sb.toString();
    }

    static String table(List<Map<String, Object>> results, int n, String workload) {
        StringBuilder sb = new StringBuilder();
        boolean replicated = results.stream().anyMatch(r -> (int) r.get("replicas") > 1);
        sb.append(String.format(Locale.ROOT, "%nBalanceRoute demo: %d requests of %s per %s, G=8, measured by the engine%n%n",
                n, workload, replicated ? "phase" : "policy"));
        // as wide as the longest label ("brh-survival (43, 0.86)" with --tune), so the columns stay aligned
        int width = Math.max(14, results.stream().mapToInt(r -> String.valueOf(r.get("policy")).length()).max().orElse(0));
        sb.append(String.format(Locale.ROOT, "%-" + width + "s %8s %7s %16s %9s %12s %9s %12s %12s %7s%n",
                "policy", "replicas", "shared", "avg imbalance", "vs jsq", "tok/s", "vs jsq", "TPOT p95 ms",
                "TTFT p95 s", "failed"));
        double jsqImb = (double) results.get(0).get("avgImbalance");
        double jsqTput = (double) results.get(0).get("throughputTokPerS");
        for (Map<String, Object> r : results) {
            double imb = (double) r.get("avgImbalance");
            double tput = (double) r.get("throughputTokPerS");
            sb.append(String.format(Locale.ROOT, "%-" + width + "s %8d %7s %,16.0f %8.2fx %,12.0f %+8.1f%% %12.1f %12.2f %7d%n",
                    r.get("policy"), (int) r.get("replicas"), (boolean) r.get("shared") ? "yes" : "no", imb,
                    imb / jsqImb, tput, (tput / jsqTput - 1) * 100, (double) r.get("tpotP95Ms"),
                    (double) r.get("ttftP95S"), (int) r.get("failed")));
        }
        sb.append("(vs jsq: imbalance as a fraction of jsq's, lower is better; throughput change)\n");
        if (replicated) {
            double one = imbalanceOf(results, 1, false);
            double shared = imbalanceOf(results, -1, true);
            double local = imbalanceOf(results, -1, false);
            int reps = results.stream().mapToInt(r -> (int) r.get("replicas")).max().orElse(1);
            sb.append(String.format(Locale.ROOT, "br0 on %d replicas sharing the snapshot: %.2fx the imbalance of br0 on"
                    + " one replica, %.2fx jsq's; %d plain proxies (local views): %.2fx of one replica%n", reps,
                    shared / one, shared / jsqImb, reps, local / one));
        }
        return sb.toString();
    }

    /** The br0 row's imbalance: on one replica (replicas 1), or on several (-1) with or without sharing. */
    private static double imbalanceOf(List<Map<String, Object>> results, int replicas, boolean shared) {
        for (Map<String, Object> r : results) {
            int n = (int) r.get("replicas");
            if (BalancePolicy.BR0.equals(r.get("policy")) && (boolean) r.get("shared") == shared
                    && (replicas == -1 ? n > 1 : n == replicas)) {
                return (double) r.get("avgImbalance");
            }
        }
        return Double.NaN;
    }
}
