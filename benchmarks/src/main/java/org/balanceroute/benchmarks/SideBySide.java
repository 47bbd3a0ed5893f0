package org.balanceroute.benchmarks;

import static org.balanceroute.benchmarks.ProxyOverhead.JSON;
import static org.balanceroute.benchmarks.Nanos.mean;
import static org.balanceroute.benchmarks.Nanos.ms;
import static org.balanceroute.benchmarks.Nanos.pct;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.time.Duration;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.balanceroute.benchmarks.ProxyOverhead.BenchmarkException;
import org.balanceroute.benchmarks.ProxyOverhead.Latencies;
import org.balanceroute.benchmarks.ProxyOverhead.Path;
import org.balanceroute.benchmarks.ProxyOverhead.Target;
import org.balanceroute.chart.PanelChart;

/**
 * Side by side (issue 11): direct, BalanceRoute and (with {@code --peer}) vllm-ascend's PD proxy
 * on one simulated cluster in one run, with {@link ProxyOverhead}'s client and measurements.
 * {@code benchmarks/side-by-side.sh} starts the cluster, the runtime and the peer and runs this.
 *
 * <p>The phases, in this order, so that each proxy's first requests are its fresh ones and
 * ours is really warm when the warm figures are taken:
 * <ol>
 *   <li>client and cluster warm-up: {@code --client-warmup} direct requests (this JVM's client
 *       and the cluster's compile; no proxy sees them);</li>
 *   <li>fresh: each proxy's first {@code --fresh-requests} requests after one probe, at
 *       concurrency 1, interleaved with direct ones (the baseline of the added latency);</li>
 *   <li>warm-up load: {@code --warm-load-seconds} of {@code --warm-load-streams} streams through
 *       BalanceRoute (the JIT keeps compiling for about a minute under load on 2 cores);</li>
 *   <li>warm latency: as {@link ProxyOverhead}'s (a), every path;</li>
 *   <li>throughput: for each of {@code --concurrency}, every path, warm-up then window, then (the
 *       streams still open) the proxy process's threads, open files and live heap after a full
 *       collection, against the same taken idle before the first point;</li>
 *   <li>short requests: for each of {@code --short-concurrency}, every path, answers of
 *       {@code --short-max-tokens} tokens: requests per second and the added latency;</li>
 *   <li>replay: the cluster switched to {@code --replay-time-factor} and
 *       {@code --replay-stream-interval} ({@code POST /sim/timing}), then the demo's workload
 *       through each path with {@code ./balanceroute replay --continuous-usage}, the engine's
 *       ground truth read from {@code GET /sim/stats} after each; the cluster's timing put back.</li>
 * </ol>
 */
public final class SideBySide {

    static final String USAGE = """
            Usage: java -cp benchmarks/target/benchmarks.jar org.balanceroute.benchmarks.SideBySide \\
                     --proxy URL --prefill URL --decode URL,URL,... --sim URL [--peer URL] [options]
            (benchmarks/side-by-side.sh starts the simulated cluster, the runtime and the peer and runs this)

            Besides ProxyOverhead's options (--help of it; here --concurrency defaults to
            64,256,1024,4096,8192, --warmup-seconds to 5 and --duration-seconds to 15):
              --peer URL                 vllm-ascend's PD proxy, measured as a third path
              --peer-pid PID             its process, for CPU seconds and context switches from /proc
              --engine-pid PID           the simulated cluster's JVM, for its CPU per token
              --json FILE                write {"throughput": [...], "shortRequests": [...], "latency": [...],
                                         "idle": [...]} there
              --chart FILE               draw tokens/s and CPU per 100k tokens against streams there (PNG;
                                         none without it; side-by-side.sh passes
                                         benchmarks/target/side-by-side/side-by-side.png)
              --short-concurrency LIST   short requests' concurrencies (64,512)
              --short-max-tokens N       their answers' tokens (8)
              --skip-short               no short requests
              --client-warmup N          direct requests before the fresh phase (1000)
              --fresh-requests N         each proxy's first N requests, measured (1000)
              --warm-load-seconds S      load through BalanceRoute before the warm latency (60)
              --warm-load-streams N      its streams (64)
              --replay-launcher PATH     ./balanceroute, for the replays (none: no replay)
              --replay-requests N        requests per replay, the demo's generated workload (3000)
              --replay-rate R            arrivals per second (300)
              --replay-time-factor F     the cluster's time factor during the replays (0.08)
              --replay-stream-interval K tokens per chunk during the replays (32)
              --skip-replay
            The direct path's replay goes to --sim, the cluster's all-ranks endpoint (vLLM's own DP
            balancer: the rank with the lowest 4 * waiting + running), without a prefill hop.
            """;

    private final ProxyOverhead tool;
    private final OverheadOptions o;
    private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(5)).build();

    private SideBySide(ProxyOverhead tool) {
        this.tool = tool;
        this.o = tool.o;
    }

    public static void main(String[] args) {
        OverheadOptions defaults = new OverheadOptions();
        defaults.concurrency = new int[] {64, 256, 1024, 4096, 8192};
        defaults.warmupSeconds = 5;
        defaults.durationSeconds = 15;
        defaults.poolSamples = false;
        ProxyOverhead.main(args, defaults, USAGE, "side-by-side", t -> new SideBySide(t).run());
    }

    /** One replay's result: the replayer's and the engine's view. */
    private record Replay(Path path, String url, JsonNode replay, JsonNode engine) {
    }

    private void run() throws BenchmarkException, InterruptedException {
        if (o.sim == null) {
            throw new BenchmarkException("--sim URL is required (the cluster's ground truth and timing)");
        }
        tool.probe();
        int most = o.latency || o.throughput ? o.warmLoadStreams : 1;
        if (o.throughput) {
            most = Math.max(most, Arrays.stream(o.concurrency).max().orElse(1));
        }
        if (o.shortRequests) {
            most = Math.max(most, Arrays.stream(o.shortConcurrency).max().orElse(1));
        }
        tool.checkOpenFiles(most);
        List<Path> paths = tool.paths();
        List<Target> targets = paths.stream().map(p -> Target.of(p, o)).toList();
        StringBuilder out = new StringBuilder();
        out.append(String.format(Locale.ROOT, "%nSide by side, %s; paths: %s; prompt %d token ids, ignore_eos, streamed%n",
                ZonedDateTime.now().format(DateTimeFormatter.ISO_OFFSET_DATE_TIME),
                String.join(", ", paths.stream().map(p -> p.name).toList()), o.promptTokens));
        Latencies fresh = null;
        Latencies warm = null;
        if (o.latency) {
            tool.latencies(List.of(Target.of(Path.DIRECT, o)), 0, o.clientWarmup, "client and cluster warm-up (direct)");
            fresh = tool.latencies(targets, 0, o.freshRequests, "fresh: each proxy's first requests");
        }
        if ((o.latency || o.throughput) && o.warmLoadSeconds > 0) {
            Throughput load = tool.throughput(Path.PROXY, o.warmLoadStreams, 0, o.warmLoadSeconds);
            System.err.printf(Locale.ROOT, "warm-up load through balanceroute: %,.0f tok/s, %d errors%n",
                    load.tokensPerSecond(), load.errors());
        }
        if (o.latency) {
            warm = tool.latencies(targets, o.latencyWarmup, o.latencyRequests, "warm latency");
            out.append(latencyTable(fresh, warm));
        }
        List<Throughput> runs = new ArrayList<>();
        Map<Path, Held> idle = new EnumMap<>(Path.class);
        if (o.throughput) {
            for (Path p : paths) {
                if (p != Path.DIRECT && tool.pid(p) > 0) {
                    idle.put(p, Held.of(tool.pid(p), o.clockTicks, true, 0));
                }
            }
            for (int c : o.concurrency) {
                for (Path p : paths) {
                    runs.add(tool.throughput(p, c, o.streamMaxTokens, o.warmupSeconds, o.durationSeconds, true));
                }
            }
            out.append(throughputTable(runs)).append(costTable(runs, idle));
        }
        List<Throughput> shorts = new ArrayList<>();
        if (o.shortRequests) {
            for (int c : o.shortConcurrency) {
                for (Path p : paths) {
                    shorts.add(tool.throughput(p, c, o.shortMaxTokens, o.warmupSeconds, o.durationSeconds, false));
                }
            }
            out.append(shortTable(shorts));
        }
        if (o.replay && o.replayLauncher != null) {
            out.append(replayTable(replays(paths)));
        }
        System.out.print(out);
        System.out.flush();
        if (o.json != null) {
            writeJson(runs, idle, shorts, fresh, warm);
        }
        if (o.chart != null && !runs.isEmpty()) {
            writeChart(runs);
        }
    }

    // ---------------------------------------------------------------- latency

    private String latencyTable(Latencies fresh, Latencies warm) {
        StringBuilder sb = new StringBuilder();
        sb.append(String.format(Locale.ROOT, "%n(a) added latency, concurrency 1, %d tokens per request, ms: a path's e2e percentile"
                + " minus direct's in the same phase%n", o.latencyMaxTokens));
        sb.append(String.format(Locale.ROOT, "  fresh: each proxy's first %d requests after start-up (one probe before), after %d"
                + " direct requests warmed the client and the cluster%n", o.freshRequests, o.clientWarmup));
        sb.append(String.format(Locale.ROOT, "  warm: after %.0f s of %d streams through balanceroute, %d warm-up + %d measured"
                + " per path%n", o.warmLoadSeconds, o.warmLoadStreams, o.latencyWarmup, o.latencyRequests));
        sb.append(String.format(Locale.ROOT, "%-13s %-6s %9s %9s %9s %10s %10s %10s%n", "path", "jvm", "e2e p50", "e2e p99",
                "e2e mean", "TTFT p50", "added p50", "added p99"));
        for (Latencies l : List.of(fresh, warm)) {
            int d = l.index(Path.DIRECT);
            for (int p = 0; p < l.targets().size(); p++) {
                long[] e = l.e2e()[p];
                boolean direct = p == d;
                sb.append(String.format(Locale.ROOT, "%-13s %-6s %9.3f %9.3f %9.3f %10.3f %10s %10s%n",
                        pathOf(l.targets().get(p)).name, phase(l, fresh, pathOf(l.targets().get(p))),
                        ms(pct(e, 50)), ms(pct(e, 99)), ms(mean(e)), ms(pct(l.ttft()[p], 50)),
                        direct ? "-" : String.format(Locale.ROOT, "%+.3f", added(l, p, 50)),
                        direct ? "-" : String.format(Locale.ROOT, "%+.3f", added(l, p, 99))));
            }
        }
        sb.append("(jvm: fresh / warm for balanceroute's runtime; the peer (Python) is labelled the same way, its first requests\n"
                + " and after the load; direct is always warm)\n");
        return sb.toString();
    }

    private static String phase(Latencies l, Latencies fresh, Path p) {
        return p == Path.DIRECT || l != fresh ? "warm" : "fresh";
    }

    /** A path's percentile minus direct's, in ms. */
    private static double added(Latencies l, int p, double pct) {
        return ms(pct(l.e2e()[p], pct) - pct(l.e2e()[l.index(Path.DIRECT)], pct));
    }

    private static Path pathOf(Target t) {
        for (Path p : Path.values()) {
            if (p.label.equals(t.label())) {
                return p;
            }
        }
        throw new IllegalArgumentException(t.label());
    }

    // ---------------------------------------------------------------- throughput

    /** The direct run's figure at the same streams and answer length, or NaN. */
    private static Throughput direct(List<Throughput> runs, Throughput t) {
        for (Throughput d : runs) {
            if (d.path() == Path.DIRECT && d.streams() == t.streams() && d.maxTokens() == t.maxTokens()) {
                return d;
            }
        }
        return null;
    }

    private static double ratioToDirect(List<Throughput> runs, Throughput t) {
        Throughput d = direct(runs, t);
        return t.path() == Path.DIRECT || d == null ? Double.NaN : t.tokensPerSecond() / d.tokensPerSecond();
    }

    private String throughputTable(List<Throughput> runs) {
        StringBuilder sb = new StringBuilder();
        sb.append(String.format(Locale.ROOT, "%n(b) relayed tokens/s, closed loop, %d tokens per request, 1 token per chunk,"
                + " %.0f s measured after %.0f s warm-up%n", o.streamMaxTokens, o.durationSeconds, o.warmupSeconds));
        sb.append(String.format(Locale.ROOT, "%7s %-13s %10s %9s %7s %9s %9s %8s %8s%n", "streams", "path", "tok/s",
                "/ direct", "errors", "req/s", "e2e p50", "e2e p99", "step ms"));
        for (Throughput t : runs) {
            double ratio = ratioToDirect(runs, t);
            sb.append(String.format(Locale.ROOT, "%7d %-13s %,10.0f %9s %7d %9.1f %9.1f %9.1f %8s%n", t.streams(),
                    t.path().name, t.tokensPerSecond(), Double.isNaN(ratio) ? "-" : String.format(Locale.ROOT, "%.2f", ratio),
                    t.errors(), t.requestsPerSecond(), ms(pct(t.e2e(), 50)), ms(pct(t.e2e(), 99)),
                    Double.isNaN(t.stepMs()) ? "-" : String.format(Locale.ROOT, "%.3f", t.stepMs())));
        }
        sb.append("(tokens from the cumulative usage of the chunks that arrived in the window; errors: requests that ended\n"
                + " in the window with one; e2e: ms from send to [DONE]; step ms: the engine's mean decode step)\n");
        return sb.toString();
    }

    private String costTable(List<Throughput> runs, Map<Path, Held> idle) {
        StringBuilder sb = new StringBuilder();
        sb.append(String.format(Locale.ROOT, "%n(b) what it costs, same runs: the proxy process over the window and with the"
                + " streams open; the engine and this client over the window%n"));
        sb.append(String.format(Locale.ROOT, "%7s %-13s %10s %8s %8s %7s %7s %8s %9s %7s %10s %10s %12s%n", "streams", "path",
                "cpu/100k", "csw/tok", "sys/tok", "threads", "fds", "heap MB", "KB/stream", "rss MB", "engine/100k", "client/100k",
                "client% (1)"));
        for (Throughput t : runs) {
            boolean proxy = t.path() != Path.DIRECT && t.runtime() != null && t.tokens() > 0;
            Held h = t.held();
            Held i = idle.get(t.path());
            double perStream = heapPerStream(t, i);
            sb.append(String.format(Locale.ROOT, "%7d %-13s %10s %8s %8s %7s %7s %8s %9s %7s %11s %10s %12s%n", t.streams(),
                    t.path().name,
                    proxy ? String.format(Locale.ROOT, "%.3f", t.runtime().cpuPer100k(t.tokens())) : "-",
                    proxy && t.runtime().switches() >= 0
                            ? String.format(Locale.ROOT, "%.3f", (double) t.runtime().switches() / t.tokens()) : "-",
                    proxy && t.runtime().syscalls() >= 0
                            ? String.format(Locale.ROOT, "%.2f", (double) t.runtime().syscalls() / t.tokens()) : "-",
                    count(h == null ? -1 : h.threads()), count(h == null ? -1 : h.openFds()),
                    h == null || h.heapAfterGcBytes() < 0 ? "-" : String.format(Locale.ROOT, "%.1f", h.heapAfterGcBytes() / 1048576.0),
                    Double.isNaN(perStream) ? "-" : String.format(Locale.ROOT, "%.1f", perStream / 1024),
                    h == null || h.rssBytes() < 0 ? "-" : String.format(Locale.ROOT, "%.0f", h.rssBytes() / 1048576.0),
                    per100k(t.engine(), t.tokens()), per100k(t.client(), t.tokens()),
                    t.client() == null ? "-" : String.format(Locale.ROOT, "%.0f (%s)", 100 * t.client().cpuSeconds()
                            / t.client().seconds(), t.client().busiestThreadCpuSeconds() < 0 ? "-" : String.format(Locale.ROOT,
                            "%.0f", 100 * t.client().busiestThreadCpuSeconds() / t.client().seconds()))));
        }
        StringBuilder idleLine = new StringBuilder();
        for (Map.Entry<Path, Held> e : idle.entrySet()) {
            Held h = e.getValue();
            idleLine.append(String.format(Locale.ROOT, "%s %s threads, %s fds, heap %s MB, rss %s MB; ", e.getKey().name,
                    count(h.threads()), count(h.openFds()),
                    h.heapAfterGcBytes() < 0 ? "-" : String.format(Locale.ROOT, "%.1f", h.heapAfterGcBytes() / 1048576.0),
                    h.rssBytes() < 0 ? "-" : String.format(Locale.ROOT, "%.0f", h.rssBytes() / 1048576.0)));
        }
        sb.append("(cpu/100k, csw/tok: the proxy process's CPU seconds (utime + stime, /proc/PID/stat) per 100k tokens\n"
                + " relayed in the window and its context switches (all threads) per token: the runtime's JVM, the peer's\n"
                + " Python process; sys/tok: its read and write system calls (syscr + syscw, /proc/PID/io) per token, 2 when\n"
                + " every token costs a socket read and a write; threads, fds (/proc/PID/fd), heap (a JVM's used heap after jcmd GC.run, GC.heap_info)\n"
                + " and rss: the proxy process's with the streams open, read right after the window; KB/stream: (heap -\n"
                + " heap idle) / streams; engine/100k: the simulated cluster's JVM's CPU seconds per 100k tokens;\n"
                + " client/100k: this load client's; client% (1): its CPU over the window, % of one core, and (in brackets)\n"
                + " its busiest thread's: near 100 the client would be the ceiling)\n");
        if (idleLine.length() > 0) {
            sb.append("(idle, before the first point: ").append(idleLine, 0, idleLine.length() - 2).append(")\n");
        }
        return sb.toString();
    }

    /** (heap with the streams open - heap idle) / streams, bytes; NaN when either is unknown. */
    private static double heapPerStream(Throughput t, Held idle) {
        Held h = t.held();
        if (h == null || idle == null || h.heapAfterGcBytes() < 0 || idle.heapAfterGcBytes() < 0) {
            return Double.NaN;
        }
        return (double) (h.heapAfterGcBytes() - idle.heapAfterGcBytes()) / t.streams();
    }

    private static String count(long n) {
        return n < 0 ? "-" : Long.toString(n);
    }

    private static String per100k(ProcSample.Delta d, long tokens) {
        return d == null || tokens == 0 ? "-" : String.format(Locale.ROOT, "%.3f", d.cpuPer100k(tokens));
    }

    // ---------------------------------------------------------------- short requests

    private String shortTable(List<Throughput> shorts) {
        StringBuilder sb = new StringBuilder();
        sb.append(String.format(Locale.ROOT, "%n(d) short requests: closed loop, %d-token answers (streamed as the rest), %.0f s"
                + " measured after %.0f s warm-up%n", o.shortMaxTokens, o.durationSeconds, o.warmupSeconds));
        sb.append(String.format(Locale.ROOT, "%11s %-13s %9s %9s %7s %9s %9s %10s %10s %11s%n", "concurrency", "path",
                "req/s", "/ direct", "errors", "e2e p50", "e2e p99", "added p50", "added p99", "cpu ms/req"));
        for (Throughput t : shorts) {
            Throughput d = direct(shorts, t);
            boolean direct = t.path() == Path.DIRECT || d == null;
            sb.append(String.format(Locale.ROOT, "%11d %-13s %,9.0f %9s %7d %9.2f %9.2f %10s %10s %11s%n", t.streams(),
                    t.path().name, t.requestsPerSecond(),
                    direct ? "-" : String.format(Locale.ROOT, "%.2f", t.requestsPerSecond() / d.requestsPerSecond()),
                    t.errors(), ms(pct(t.e2e(), 50)), ms(pct(t.e2e(), 99)),
                    direct ? "-" : String.format(Locale.ROOT, "%+.2f", ms(pct(t.e2e(), 50) - pct(d.e2e(), 50))),
                    direct ? "-" : String.format(Locale.ROOT, "%+.2f", ms(pct(t.e2e(), 99) - pct(d.e2e(), 99))),
                    direct || t.runtime() == null || t.requests() == 0 ? "-"
                            : String.format(Locale.ROOT, "%.3f", cpuMsPerRequest(t))));
        }
        sb.append("(req/s: requests that ended whole in the window, per second; e2e: ms from send to [DONE]; added: the\n"
                + " path's e2e percentile minus direct's at the same concurrency; cpu ms/req: the proxy process's CPU per\n"
                + " request)\n");
        return sb.toString();
    }

    private static double cpuMsPerRequest(Throughput t) {
        return t.runtime().cpuSeconds() * 1000 / t.requests();
    }

    // ---------------------------------------------------------------- replay

    private List<Replay> replays(List<Path> paths) throws BenchmarkException, InterruptedException {
        JsonNode before = sim("GET", "/sim/timing", null);
        ObjectNode timing = JSON.createObjectNode().put("timeFactor", o.replayTimeFactor)
                .put("streamInterval", o.replayStreamInterval);
        List<Replay> replays = new ArrayList<>();
        try {
            sim("POST", "/sim/timing", timing);
            for (Path p : paths) {
                URI url = p == Path.DIRECT ? o.sim : p == Path.PROXY ? o.proxy : o.peer;
                sim("POST", "/sim/stats/reset", JSON.createObjectNode());
                System.err.printf(Locale.ROOT, "replay through %s (%s): %d requests at %.0f/s%n", p.name, url,
                        o.replayRequests, o.replayRate);
                JsonNode replay = replay(url);
                JsonNode engine = sim("GET", "/sim/stats", null);
                System.err.printf(Locale.ROOT, "replay through %s: %d completed, %d failed, engine avg imbalance %.0f%n",
                        p.name, replay.path("completed").asInt(), replay.path("failed").asInt(),
                        engine.path("avgImbalance").asDouble());
                if (replay.path("failed").asInt() > 0) {
                    // what failed, kept in the run's output (the runtime's log is overwritten by the next run)
                    System.err.println("replay through " + p.name + ": errors " + replay.path("errors"));
                }
                replays.add(new Replay(p, url.toString(), replay, engine));
            }
        } finally {
            ObjectNode back = JSON.createObjectNode().put("timeFactor", before.path("timeFactor").asDouble())
                    .put("streamInterval", before.path("streamInterval").asInt(1));
            sim("POST", "/sim/timing", back);
        }
        return replays;
    }

    /** {@code ./balanceroute replay ... --json}: its JSON summary. */
    private JsonNode replay(URI url) throws BenchmarkException, InterruptedException {
        List<String> command = List.of(o.replayLauncher, "replay", "--url", url.toString(), "--model", o.model,
                "--generate", Integer.toString(o.replayRequests), "--rate", Double.toString(o.replayRate),
                "--concurrency", "4096", "--continuous-usage", "--json");
        try {
            ProcessBuilder pb = new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.INHERIT);
            pb.environment().put("BALANCEROUTE_NO_BUILD", "1"); // side-by-side.sh built it before measuring
            Process process = pb.start();
            String stdout;
            try (InputStream in = process.getInputStream()) {
                stdout = new String(in.readAllBytes(), StandardCharsets.UTF_8);
            }
            int status = process.waitFor();
            if (status > 1) { // 1: some requests failed, still a result
                throw new BenchmarkException(String.join(" ", command) + ": exit status " + status);
            }
            return JSON.readTree(stdout);
        } catch (IOException e) {
            throw new BenchmarkException(String.join(" ", command) + ": " + e);
        }
    }

    private JsonNode sim(String method, String path, JsonNode body) throws BenchmarkException, InterruptedException {
        HttpRequest.Builder b = HttpRequest.newBuilder(o.sim.resolve(path)).timeout(Duration.ofSeconds(10));
        if (body != null) {
            b.header("Content-Type", "application/json").method(method, HttpRequest.BodyPublishers.ofString(body.toString()));
        } else {
            b.method(method, HttpRequest.BodyPublishers.noBody());
        }
        try {
            HttpResponse<String> r = http.send(b.build(), HttpResponse.BodyHandlers.ofString());
            if (r.statusCode() != 200) {
                throw new BenchmarkException(method + " " + path + ": HTTP " + r.statusCode() + " " + r.body());
            }
            return JSON.readTree(r.body());
        } catch (IOException e) {
            throw new BenchmarkException(method + " " + path + ": " + e);
        }
    }

    private String replayTable(List<Replay> replays) {
        StringBuilder sb = new StringBuilder();
        sb.append(String.format(Locale.ROOT, "%n(c) replay: %d requests of the demo's generated workload (seed 1) at %.0f/s,"
                + " cluster time factor %s, %d tokens per chunk; engine-measured (GET /sim/stats)%n", o.replayRequests,
                o.replayRate, o.replayTimeFactor, o.replayStreamInterval));
        sb.append(String.format(Locale.ROOT, "%-13s %9s %6s %7s %14s %12s %12s %10s %10s %8s%n", "path", "completed", "failed",
                "retried", "avg imbalance", "mean I", "engine tok/s", "TPOT p95", "TTFT p95", "wall s"));
        for (Replay r : replays) {
            sb.append(String.format(Locale.ROOT, "%-13s %9d %6d %7d %,14.0f %,12.0f %,12.0f %10.1f %10.2f %8.1f%n", r.path().name,
                    r.replay().path("completed").asInt(), r.replay().path("failed").asInt(), r.replay().path("retried").asInt(),
                    r.engine().path("avgImbalance").asDouble(), r.engine().path("meanI").asDouble(),
                    r.engine().path("throughputTokPerS").asDouble(), r.engine().path("tpotP95Ms").asDouble(),
                    r.engine().path("ttftP95S").asDouble(), r.replay().path("wallSeconds").asDouble()));
        }
        sb.append("(retried: sent twice by the replayer, their connection having ended before any answer; avg imbalance:\n"
                + " mean over decode steps of max_g L_g - min_g L_g, KV tokens; mean I: of G * max_g L_g -\n"
                + " sum_g L_g; TPOT p95 ms, TTFT p95 s, engine-measured, wall clock; direct: the cluster's all-ranks endpoint,\n"
                + " vLLM's own DP balancer, no prefill hop; balanceroute: its policy in force (br0 by default))\n");
        return sb.toString();
    }

    // ---------------------------------------------------------------- --chart

    /**
     * Tokens/s and the proxy process's CPU per 100k tokens against streams, one line per path
     * (two panels of {@link PanelChart}); streams on a log2 scale (its axis is a number axis:
     * the x values are log2 of the streams, the label says which is which).
     */
    private void writeChart(List<Throughput> runs) throws BenchmarkException {
        List<Path> paths = runs.stream().map(Throughput::path).distinct().toList();
        int[] streams = runs.stream().mapToInt(Throughput::streams).distinct().sorted().toArray();
        List<PanelChart.Line> tokens = new ArrayList<>();
        List<PanelChart.Line> cpu = new ArrayList<>();
        for (Path p : paths) {
            List<Throughput> mine = runs.stream().filter(t -> t.path() == p).sorted(
                    java.util.Comparator.comparingInt(Throughput::streams)).toList();
            tokens.add(line(p.name, mine, Throughput::tokensPerSecond));
            if (p != Path.DIRECT) {
                PanelChart.Line l = line(p.name, mine, t -> t.runtime() == null || t.tokens() == 0 ? Double.NaN
                        : t.runtime().cpuPer100k(t.tokens()));
                if (l.x().length > 0) {
                    cpu.add(l);
                }
            }
        }
        List<PanelChart.Panel> panels = new ArrayList<>();
        // what the run was, in the panels' titles too (PanelChart 0.2.0 leaves its own title out of the image)
        panels.add(new PanelChart.Panel(String.format(Locale.ROOT, "relayed tokens/s (%s, %d-token requests)",
                ZonedDateTime.now().format(DateTimeFormatter.ISO_LOCAL_DATE), o.streamMaxTokens), tokens));
        if (!cpu.isEmpty()) {
            panels.add(new PanelChart.Panel(String.format(Locale.ROOT, "proxy process's CPU s per 100k tokens (%.0f s windows)",
                    o.durationSeconds), cpu));
        }
        // short enough to fit under each panel: the first and the last point only
        int last = streams.length - 1;
        String x = String.format(Locale.ROOT, "log2 of streams (%s = %,d ... %s = %,d)", axisNumber(log2(streams[0])),
                streams[0], axisNumber(log2(streams[last])), streams[last]);
        String title = String.format(Locale.ROOT, "Side by side, %s: %d-token streams, 1 token per chunk, %.0f s windows",
                ZonedDateTime.now().format(DateTimeFormatter.ISO_LOCAL_DATE), o.streamMaxTokens, o.durationSeconds);
        try {
            java.nio.file.Path parent = o.chart.toAbsolutePath().getParent();
            if (parent != null) {
                Files.createDirectories(parent);
            }
            PanelChart.write(o.chart, title, x, "", panels.size(), panels);
            System.err.println("side-by-side: drew " + o.chart);
        } catch (IOException | RuntimeException e) {
            throw new BenchmarkException("cannot draw " + o.chart + ": " + e);
        }
    }

    /** One path's points with a known figure. */
    private static PanelChart.Line line(String name, List<Throughput> runs, java.util.function.ToDoubleFunction<Throughput> y) {
        double[] xs = new double[runs.size()];
        double[] ys = new double[runs.size()];
        int n = 0;
        for (Throughput t : runs) {
            double v = y.applyAsDouble(t);
            if (!Double.isNaN(v)) {
                xs[n] = log2(t.streams());
                ys[n++] = v;
            }
        }
        return new PanelChart.Line(name, Arrays.copyOf(xs, n), Arrays.copyOf(ys, n));
    }

    /** 6 for 6.0, 9.97 for log2(1,000). */
    private static String axisNumber(double v) {
        return String.format(Locale.ROOT, "%.2f", v).replaceAll("\\.?0+$", "");
    }

    private static double log2(int v) {
        return Math.log(v) / Math.log(2);
    }

    // ---------------------------------------------------------------- --json

    private void writeJson(List<Throughput> runs, Map<Path, Held> idle, List<Throughput> shorts, Latencies fresh,
            Latencies warm) throws BenchmarkException {
        ObjectNode root = JSON.createObjectNode();
        ArrayNode throughput = root.putArray("throughput");
        for (Throughput t : runs) {
            ObjectNode row = throughput.addObject().put("path", t.path().name).put("streams", t.streams())
                    .put("tokPerS", round(t.tokensPerSecond(), 1));
            number(row, "ratioToDirect", ratioToDirect(runs, t), 4);
            row.put("errors", t.errors());
            boolean proxy = t.path() != Path.DIRECT && t.runtime() != null && t.tokens() > 0;
            number(row, "cpuSecondsPer100kTokens", proxy ? t.runtime().cpuPer100k(t.tokens()) : Double.NaN, 4);
            number(row, "contextSwitchesPerToken", proxy && t.runtime().switches() >= 0
                    ? (double) t.runtime().switches() / t.tokens() : Double.NaN, 4);
            number(row, "syscallsPerToken", proxy && t.runtime().syscalls() >= 0
                    ? (double) t.runtime().syscalls() / t.tokens() : Double.NaN, 4);
            Held h = t.held();
            count(row, "threads", h == null ? -1 : h.threads());
            count(row, "openFds", h == null ? -1 : h.openFds());
            count(row, "rssBytes", h == null ? -1 : h.rssBytes());
            count(row, "heapAfterGcBytes", h == null ? -1 : h.heapAfterGcBytes());
            number(row, "heapPerStreamBytes", heapPerStream(t, idle.get(t.path())), 0);
            count(row, "openStreams", h == null ? -1 : h.openStreams());
            number(row, "engineCpuSecondsPer100kTokens", t.engine() == null || t.tokens() == 0 ? Double.NaN
                    : t.engine().cpuPer100k(t.tokens()), 4);
            number(row, "clientCpuSecondsPer100kTokens", t.client() == null || t.tokens() == 0 ? Double.NaN
                    : t.client().cpuPer100k(t.tokens()), 4);
            number(row, "clientCpuCores", t.client() == null ? Double.NaN : t.client().cpuSeconds() / t.client().seconds(), 3);
            number(row, "clientBusiestThreadCpuShare", t.client() == null || t.client().busiestThreadCpuSeconds() < 0
                    ? Double.NaN : t.client().busiestThreadCpuSeconds() / t.client().seconds(), 3);
            row.put("e2eP50Ms", round(ms(pct(t.e2e(), 50)), 3)).put("e2eP99Ms", round(ms(pct(t.e2e(), 99)), 3));
            number(row, "stepMs", t.stepMs(), 3);
        }
        ArrayNode idleRows = root.putArray("idle");
        for (Map.Entry<Path, Held> e : idle.entrySet()) {
            Held h = e.getValue();
            ObjectNode row = idleRows.addObject().put("path", e.getKey().name);
            count(row, "threads", h.threads());
            count(row, "openFds", h.openFds());
            count(row, "rssBytes", h.rssBytes());
            count(row, "heapAfterGcBytes", h.heapAfterGcBytes());
        }
        ArrayNode shortRows = root.putArray("shortRequests");
        for (Throughput t : shorts) {
            Throughput d = direct(shorts, t);
            boolean direct = t.path() == Path.DIRECT || d == null;
            ObjectNode row = shortRows.addObject().put("path", t.path().name).put("concurrency", t.streams())
                    .put("maxTokens", t.maxTokens()).put("reqPerS", round(t.requestsPerSecond(), 1));
            number(row, "ratioToDirect", direct ? Double.NaN : t.requestsPerSecond() / d.requestsPerSecond(), 4);
            row.put("errors", t.errors()).put("e2eP50Ms", round(ms(pct(t.e2e(), 50)), 3))
                    .put("e2eP99Ms", round(ms(pct(t.e2e(), 99)), 3));
            number(row, "addedP50Ms", direct ? Double.NaN : ms(pct(t.e2e(), 50) - pct(d.e2e(), 50)), 3);
            number(row, "addedP99Ms", direct ? Double.NaN : ms(pct(t.e2e(), 99) - pct(d.e2e(), 99)), 3);
            number(row, "cpuMsPerRequest", direct || t.runtime() == null || t.requests() == 0 ? Double.NaN
                    : cpuMsPerRequest(t), 4);
            number(row, "clientCpuMsPerRequest", t.client() == null || t.requests() == 0 ? Double.NaN
                    : t.client().cpuSeconds() * 1000 / t.requests(), 4);
        }
        ArrayNode latency = root.putArray("latency");
        if (warm != null) {
            latency.addObject().put("path", Path.DIRECT.name).put("jvm", "warm").put("addedP50Ms", 0.0).put("addedP99Ms", 0.0);
            for (Latencies l : List.of(fresh, warm)) {
                for (int p = 0; p < l.targets().size(); p++) {
                    Path path = pathOf(l.targets().get(p));
                    if (path != Path.DIRECT) {
                        latency.addObject().put("path", path.name).put("jvm", phase(l, fresh, path))
                                .put("addedP50Ms", round(added(l, p, 50), 3)).put("addedP99Ms", round(added(l, p, 99), 3));
                    }
                }
            }
        }
        try {
            java.nio.file.Path parent = o.json.toAbsolutePath().getParent();
            if (parent != null) {
                Files.createDirectories(parent);
            }
            Files.writeString(o.json, JSON.writer().with(SerializationFeature.INDENT_OUTPUT).writeValueAsString(root) + "\n");
            System.err.println("side-by-side: wrote " + o.json);
        } catch (IOException e) {
            throw new BenchmarkException("cannot write " + o.json + ": " + e);
        }
    }

    private static void number(ObjectNode row, String key, double v, int digits) {
        if (Double.isNaN(v) || Double.isInfinite(v)) {
            row.putNull(key);
        } else {
            row.put(key, round(v, digits));
        }
    }

    private static void count(ObjectNode row, String key, long v) {
        if (v < 0) {
            row.putNull(key);
        } else {
            row.put(key, v);
        }
    }

    private static double round(double v, int digits) {
        double f = Math.pow(10, digits);
        return Math.round(v * f) / f;
    }
}
