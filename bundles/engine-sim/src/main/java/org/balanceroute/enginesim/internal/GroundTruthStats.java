package org.balanceroute.enginesim.internal;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.Arrays;

/**
 * What the engine itself observed, step by step: every rank's true KV load and running count
 * (spec section 7 metrics), and the per-rank load over the steps ({@link KvLoadSeries}). Written
 * by the step loop once per step, read by {@code /sim/stats} and {@code /sim/series}; a monitor
 * guards it (one short critical section per step, off any routing path).
 *
 * <p>Times are wall-clock, as clients see them; divide by the time factor for modelled time.
 */
final class GroundTruthStats {

    private final int ranks;
    private final TimeFactor timeFactor;
    private long steps;
    private double sumImbalance;
    private double sumI;
    private double sumModelStepSeconds;
    private long firstStepStartNanos = -1;
    private long lastStepEndNanos = -1;
    private long busyNanos;
    private long outputTokens;
    private long completed;
    private long aborted;
    private double[] tpotMs = new double[64];
    private int tpotCount;
    private double[] ttftS = new double[64];
    private int ttftCount;
    private final double[] rankLoadSum;
    private final long[] rankMaxLoad;
    private final long[] rankTokens;
    private final long[] rankCompleted;
    private final long[] rankRunningSum;
    private final KvLoadSeries series;

    GroundTruthStats(int ranks, TimeFactor timeFactor) {
        this.ranks = ranks;
        this.timeFactor = timeFactor;
        rankLoadSum = new double[ranks];
        rankMaxLoad = new long[ranks];
        rankTokens = new long[ranks];
        rankCompleted = new long[ranks];
        rankRunningSum = new long[ranks];
        series = new KvLoadSeries(ranks);
    }

    /**
     * One decode step: the loads and batch sizes it ran with, its modelled duration, when it was
     * scheduled to start and when its tokens were really out (wall clock, measured).
     */
    synchronized void step(long[] loads, int[] running, double modelSeconds, long startNanos, long endNanos,
                           int[] tokensByRank) {
        long max = Long.MIN_VALUE;
        long min = Long.MAX_VALUE;
        long sum = 0;
        for (int g = 0; g < ranks; g++) {
            long l = loads[g];
            max = Math.max(max, l);
            min = Math.min(min, l);
            sum += l;
            rankLoadSum[g] += l;
            rankMaxLoad[g] = Math.max(rankMaxLoad[g], l);
            rankRunningSum[g] += running[g];
            rankTokens[g] += tokensByRank[g];
            outputTokens += tokensByRank[g];
        }
        steps++;
        sumImbalance += max - min;
        sumI += (double) ranks * max - sum;
        sumModelStepSeconds += modelSeconds;
        if (firstStepStartNanos < 0) {
            firstStepStartNanos = startNanos;
        }
        series.record(loads, (startNanos - firstStepStartNanos) / 1e9);
        lastStepEndNanos = endNanos;
        busyNanos += endNanos - startNanos;
    }

    synchronized void completed(int rank, int tokens, long firstTokenNanos, long endNanos) {
        completed++;
        rankCompleted[rank]++;
        if (tokens > 1) {
            if (tpotCount == tpotMs.length) {
                tpotMs = Arrays.copyOf(tpotMs, tpotCount * 2);
            }
            tpotMs[tpotCount++] = (endNanos - firstTokenNanos) / 1e6 / (tokens - 1);
        }
    }

    synchronized void firstToken(long arrivalNanos, long firstTokenNanos) {
        if (ttftCount == ttftS.length) {
            ttftS = Arrays.copyOf(ttftS, ttftCount * 2);
        }
        ttftS[ttftCount++] = (firstTokenNanos - arrivalNanos) / 1e9;
    }

    synchronized void aborted() {
        aborted++;
    }

    synchronized void reset() {
        steps = 0;
        sumImbalance = 0;
        sumI = 0;
        sumModelStepSeconds = 0;
        firstStepStartNanos = -1;
        lastStepEndNanos = -1;
        busyNanos = 0;
        outputTokens = 0;
        completed = 0;
        aborted = 0;
        tpotCount = 0;
        ttftCount = 0;
        Arrays.fill(rankLoadSum, 0);
        Arrays.fill(rankMaxLoad, 0);
        Arrays.fill(rankTokens, 0);
        Arrays.fill(rankCompleted, 0);
        Arrays.fill(rankRunningSum, 0);
        series.reset();
    }

    synchronized ObjectNode toJson(ObjectMapper json) {
        ObjectNode out = json.createObjectNode();
        out.put("steps", steps);
        out.put("avgImbalance", steps == 0 ? 0 : sumImbalance / steps);
        out.put("meanI", steps == 0 ? 0 : sumI / steps);
        double spanS = steps == 0 ? 0 : (lastStepEndNanos - firstStepStartNanos) / 1e9;
        out.put("outputTokens", outputTokens);
        out.put("throughputTokPerS", spanS > 0 ? outputTokens / spanS : 0);
        out.put("tpotP95Ms", percentile(tpotMs, tpotCount, 0.95));
        out.put("ttftP50S", percentile(ttftS, ttftCount, 0.50));
        out.put("ttftP95S", percentile(ttftS, ttftCount, 0.95));
        out.put("completed", completed);
        out.put("aborted", aborted);
        out.put("spanS", spanS);
        out.put("busyS", busyNanos / 1e9);
        out.put("meanStepMs", steps == 0 ? 0 : busyNanos / 1e6 / steps);
        out.put("modelStepSecondsSum", sumModelStepSeconds);
        out.put("meanModelStepMs", steps == 0 ? 0 : sumModelStepSeconds * 1e3 / steps);
        out.put("timeFactor", timeFactor.get());
        ArrayNode r = out.putArray("ranks");
        for (int g = 0; g < ranks; g++) {
            r.addObject().put("rank", g)
                    .put("meanLoad", steps == 0 ? 0 : rankLoadSum[g] / steps)
                    .put("maxLoad", rankMaxLoad[g])
                    .put("meanRunning", steps == 0 ? 0 : (double) rankRunningSum[g] / steps)
                    .put("outputTokens", rankTokens[g])
                    .put("completed", rankCompleted[g]);
        }
        return out;
    }

    /** The per-rank load series since the last reset, as {@code GET /sim/series} answers it. */
    synchronized ObjectNode seriesJson(ObjectMapper json) {
        return series.toJson(json);
    }

    /** Nearest-rank percentile; 0 with no samples. */
    static double percentile(double[] values, int n, double p) {
        if (n == 0) {
            return 0;
        }
        double[] sorted = Arrays.copyOf(values, n);
        Arrays.sort(sorted);
        int idx = (int) Math.ceil(p * n) - 1;
        return sorted[Math.max(0, Math.min(n - 1, idx))];
    }
}
