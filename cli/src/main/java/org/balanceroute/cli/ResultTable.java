package org.balanceroute.cli;

import java.io.PrintStream;
import java.util.List;
import java.util.Locale;
import org.balanceroute.policy.baseline.JoinShortestQueuePolicy;
import org.balanceroute.simulator.SimulationResult;

/** The human-readable comparison: one row per policy, ratios to jsq when jsq ran. */
final class ResultTable {

    private static final String REFERENCE = JoinShortestQueuePolicy.NAME;

    private ResultTable() {
    }

    /**
     * @param engineCounters also the engine's over-capacity placements and queued steps (several
     *     proxy replicas, where the routers' views and the engine part)
     */
    static void print(PrintStream out, List<SimulationResult> results, boolean engineCounters) {
        SimulationResult ref = results.stream().filter(r -> r.policy().equals(REFERENCE)).findFirst().orElse(null);
        String more = engineCounters ? " %10s %10s" : "";
        String cols = "%-14s %13s %9s %13s %9s %13s %9s %13s %10s %10s %9s %12s %9s %10s %9s %9s %8s %10s";
        out.printf(Locale.ROOT, cols + more + "%n", "policy",
                "avg imbalance", "jsq/this", "backlogged", "jsq/this", "steady", "jsq/this", "mean I", "TPOT p95",
                "tok/s", "vs jsq", "steady tok/s", "vs jsq", "steady TPOT", "TTFT p50", "TTFT p95", "steps",
                "makespan", "over cap", "queued");
        out.printf(Locale.ROOT, cols + more + "%n", "",
                "tokens", "", "imbalance", "", "imbalance", "", "tokens", "ms", "", "", "", "", "p95 ms", "s", "s", "",
                "s", "placements", "steps");
        for (SimulationResult r : results) {
            String imbalanceRatio = ratio(ref == null ? 0 : ref.avgImbalance(), r.avgImbalance());
            String backloggedRatio = ratio(ref == null ? 0 : ref.avgImbalanceBacklogged(), r.avgImbalanceBacklogged());
            String steadyRatio = ratio(ref == null ? 0 : ref.steadyAvgImbalance(), r.steadyAvgImbalance());
            out.printf(Locale.ROOT,
                    "%-14s %13.0f %9s %13.0f %9s %13.0f %9s %13.0f %10.1f %10.1f %9s %12.1f %9s %10.1f %9.2f %9.2f %8d %10.1f",
                    r.policy(), r.avgImbalance(), imbalanceRatio, r.avgImbalanceBacklogged(), backloggedRatio,
                    r.steadyAvgImbalance(), steadyRatio, r.meanI(), r.tpotP95Ms(), r.throughputTokPerS(),
                    gain(ref == null ? 0 : ref.throughputTokPerS(), r.throughputTokPerS()),
                    r.steadyThroughputTokPerS(), gain(ref == null ? 0 : ref.steadyThroughputTokPerS(),
                            r.steadyThroughputTokPerS()),
                    r.steadyTpotP95Ms(), r.ttftP50S(), r.ttftP95S(), r.steps(), r.makespanS());
            if (engineCounters) {
                out.printf(Locale.ROOT, " %10d %10d", r.overCapacityPlacements(), r.engineQueuedSteps());
            }
            out.println();
        }
    }

    /** The change over the reference in percent; "-" without a reference. */
    private static String gain(double reference, double value) {
        return reference == 0 ? "-" : String.format(Locale.ROOT, "%+.1f%%", 100 * (value / reference - 1));
    }

    /** How many times lower than the reference; "-" without a reference. */
    private static String ratio(double reference, double value) {
        return reference == 0 || value == 0 ? "-" : String.format(Locale.ROOT, "%.2fx", reference / value);
    }
}
