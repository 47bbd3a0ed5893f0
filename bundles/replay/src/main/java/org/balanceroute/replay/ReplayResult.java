package org.balanceroute.replay;

import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

/**
 * The summary of a replay: counts, tokens, wall time, TTFT and TPOT percentiles over the
 * completed requests, and errors grouped by message. A replay spread over several endpoints
 * names them all ({@code url}, comma-separated) and counts its failures per endpoint.
 * {@code retried}: requests sent a second time because their connection ended before any byte of
 * an answer ({@link Replayer}); each is counted once, as completed or failed, by its second try.
 */
public record ReplayResult(String url, int requests, int completed, int failed, long outputTokens,
        long expectedOutputTokens, double wallSeconds, double ttftMeanS, double ttftP50S, double ttftP95S,
        double ttftP99S, double tpotMeanMs, double tpotP50Ms, double tpotP95Ms, Map<String, Integer> errors,
        List<RequestOutcome> outcomes, List<String> targets, int retried) {

    static ReplayResult of(List<String> targets, List<RequestOutcome> outcomes, double wallSeconds, int retried) {
        String url = String.join(", ", targets);
        int completed = 0;
        long tokens = 0;
        long expected = 0;
        Map<String, Integer> errors = new TreeMap<>();
        double[] ttft = outcomes.stream().filter(o -> o.error() == null && !Double.isNaN(o.ttftSeconds()))
                .mapToDouble(RequestOutcome::ttftSeconds).sorted().toArray();
        double[] tpot = outcomes.stream().filter(o -> o.error() == null && !Double.isNaN(o.tpotMillis()))
                .mapToDouble(RequestOutcome::tpotMillis).sorted().toArray();
        for (RequestOutcome o : outcomes) {
            expected += o.request().outputTokens();
            if (o.error() == null) {
                completed++;
                tokens += o.outputTokens();
            } else {
                errors.merge(o.error(), 1, Integer::sum);
            }
        }
        return new ReplayResult(url, outcomes.size(), completed, outcomes.size() - completed, tokens, expected,
                wallSeconds, mean(ttft), quantile(ttft, 0.5), quantile(ttft, 0.95), quantile(ttft, 0.99),
                mean(tpot), quantile(tpot, 0.5), quantile(tpot, 0.95), errors, outcomes, List.copyOf(targets), retried);
    }

    /** Failed requests per endpoint, in the replay's order of endpoints. */
    public Map<String, Integer> failedByTarget() {
        Map<String, Integer> m = new LinkedHashMap<>();
        for (String t : targets) {
            m.put(t, 0);
        }
        for (RequestOutcome o : outcomes) {
            if (o.error() != null) {
                m.merge(targets.get(o.target()), 1, Integer::sum);
            }
        }
        return m;
    }

    /** Output tokens per wall second of the whole replay. */
    public double throughputTokPerS() {
        return wallSeconds > 0 ? outputTokens / wallSeconds : 0;
    }

    private static double mean(double[] a) {
        return a.length == 0 ? Double.NaN : Arrays.stream(a).average().orElse(Double.NaN);
    }

    /** Nearest-rank quantile of sorted values; NaN when empty. */
    static double quantile(double[] sorted, double p) {
        if (sorted.length == 0) {
            return Double.NaN;
        }
        int rank = (int) Math.ceil(p * sorted.length);
        return sorted[Math.max(0, Math.min(sorted.length - 1, rank - 1))];
    }

    /** The summary as a JSON-ready map (no per-request outcomes). */
    public Map<String, Object> toMap() {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("url", url);
        m.put("requests", requests);
        m.put("completed", completed);
        m.put("failed", failed);
        m.put("retried", retried);
        m.put("outputTokens", outputTokens);
        m.put("expectedOutputTokens", expectedOutputTokens);
        m.put("wallSeconds", num(wallSeconds));
        m.put("throughputTokPerS", num(throughputTokPerS()));
        m.put("ttftMeanS", num(ttftMeanS));
        m.put("ttftP50S", num(ttftP50S));
        m.put("ttftP95S", num(ttftP95S));
        m.put("ttftP99S", num(ttftP99S));
        m.put("tpotMeanMs", num(tpotMeanMs));
        m.put("tpotP50Ms", num(tpotP50Ms));
        m.put("tpotP95Ms", num(tpotP95Ms));
        m.put("errors", errors);
        if (targets.size() > 1) {
            m.put("failedByUrl", failedByTarget());
        }
        return m;
    }

    private static Object num(double x) {
        return Double.isNaN(x) || Double.isInfinite(x) ? null : x;
    }

    /** A human-readable summary. */
    public String table() {
        StringBuilder sb = new StringBuilder();
        sb.append(String.format(Locale.ROOT, "replay of %d requests against %s%n", requests, url));
        sb.append(String.format(Locale.ROOT, "  completed       %d, failed %d%s%n", completed, failed,
                retried == 0 ? "" : String.format(Locale.ROOT, " (%d sent twice: the connection ended before any answer)", retried)));
        sb.append(String.format(Locale.ROOT, "  output tokens   %d (asked for %d)%n", outputTokens, expectedOutputTokens));
        sb.append(String.format(Locale.ROOT, "  wall time       %.1f s, %.0f tok/s%n", wallSeconds, throughputTokPerS()));
        sb.append(String.format(Locale.ROOT, "  TTFT            mean %.3f s, p50 %.3f s, p95 %.3f s, p99 %.3f s%n",
                ttftMeanS, ttftP50S, ttftP95S, ttftP99S));
        sb.append(String.format(Locale.ROOT, "  TPOT            mean %.1f ms, p50 %.1f ms, p95 %.1f ms%n",
                tpotMeanMs, tpotP50Ms, tpotP95Ms));
        if (targets.size() > 1) {
            failedByTarget().forEach((t, count) -> sb.append(String.format(Locale.ROOT, "  failed at %s: %d%n", t, count)));
        }
        errors.forEach((message, count) -> sb.append(String.format(Locale.ROOT, "  error x%d: %s%n", count, message)));
        return sb.toString();
    }
}
