package org.balanceroute.benchmarks;

import static org.balanceroute.benchmarks.Nanos.ms;
import static org.balanceroute.benchmarks.Nanos.pct;

import java.util.Locale;
import org.balanceroute.benchmarks.ProxyOverhead.Path;

/**
 * One closed-loop run's result. {@code runtime}, {@code engine}, {@code client}: /proc over the
 * measured window of the path's proxy process (the idle runtime's on direct), the simulated
 * cluster's JVM and this client's JVM (null when not read); {@code held}: what the proxy
 * process held with the streams open, just after the window (null when not probed).
 */
record Throughput(Path path, int streams, int maxTokens, double seconds, long tokens, long requests, long errors,
        long[] e2e, double poolMean, int poolMax, double stepMs, String firstError, ProcSample.Delta runtime,
        ProcSample.Delta engine, ProcSample.Delta client, Held held) {

    double tokensPerSecond() {
        return tokens / seconds;
    }

    double requestsPerSecond() {
        return requests / seconds;
    }

    String row(int streams, double directTokensPerSecond) {
        String vs = Double.isNaN(directTokensPerSecond) ? "" : String.format(Locale.ROOT, "%7.1f%%",
                (tokensPerSecond() / directTokensPerSecond - 1) * 100);
        String proc = String.format(Locale.ROOT, " %12s %10s %8s %12s",
                runtime == null || tokens == 0 ? "-" : String.format(Locale.ROOT, "%.3f", runtime.cpuPer100k(tokens)),
                runtime == null || tokens == 0 || runtime.switches() < 0 ? "-"
                        : String.format(Locale.ROOT, "%.3f", (double) runtime.switches() / tokens),
                runtime == null ? "-" : Integer.toString(runtime.threads()),
                client == null || tokens == 0 ? "-" : String.format(Locale.ROOT, "%.3f", client.cpuPer100k(tokens)));
        return String.format(Locale.ROOT, "%7d %-7s %,10.0f %8s %8.1f %9.2f %9.2f %7d %11s %11s %9s%s%n", streams,
                path.label, tokensPerSecond(), vs, requests / seconds, ms(pct(e2e, 50)), ms(pct(e2e, 99)), errors,
                Double.isNaN(poolMean) ? "-" : String.format(Locale.ROOT, "%.1f", poolMean),
                poolMax < 0 ? "-" : Integer.toString(poolMax),
                Double.isNaN(stepMs) ? "-" : String.format(Locale.ROOT, "%.3f", stepMs), proc);
    }
}
