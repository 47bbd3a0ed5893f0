package org.balanceroute.benchmarks;

import static org.balanceroute.benchmarks.ProxyOverhead.JSON;
import static org.balanceroute.benchmarks.ProxyOverhead.mean;
import static org.balanceroute.benchmarks.ProxyOverhead.ms;
import static org.balanceroute.benchmarks.ProxyOverhead.pct;

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
import java.util.List;
import java.util.Locale;
import org.balanceroute.benchmarks.ProxyOverhead.BenchmarkException;
import org.balanceroute.benchmarks.ProxyOverhead.Latencies;
import org.balanceroute.benchmarks.ProxyOverhead.Options;
import org.balanceroute.benchmarks.ProxyOverhead.Path;
import org.balanceroute.benchmarks.ProxyOverhead.Target;
import org.balanceroute.benchmarks.ProxyOverhead.Throughput;

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
 *   <li>throughput: for each of {@code --concurrency}, every path, warm-up then window;</li>
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

            Besides ProxyOverhead's options (--help of it; here --concurrency defaults to 64,256,1024,
            --warmup-seconds to 5 and --duration-seconds to 15):
              --peer URL                 vllm-ascend's PD proxy, measured as a third path
              --peer-pid PID             its process, for CPU seconds and context switches from /proc
              --json FILE                write {"throughput": [...], "latency": [...]} there
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
    private final Options o;
    private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(5)).build();

    private SideBySide(ProxyOverhead tool) {
        this.tool = tool;
        this.o = tool.o;
    }

    public static void main(String[] args) {
        Options defaults = new Options();
        defaults.concurrency = new int[] {64, 256, 1024};
        defaults.warmupSeconds = 5;
        defaults.durationSeconds = 15;
        ProxyOverhead.main(args, defaults, USAGE, "side-by-side", t -> new SideBySide(t).run());
    }

    /** One throughput run's result. */
    private record Run(int streams, Throughput result) {
    }

    /** One replay's result: the replayer's and the engine's view. */
    private record Replay(Path path, String url, JsonNode replay, JsonNode engine) {
    }

    private void run() throws BenchmarkException, InterruptedException {
        if (o.sim == null) {
            throw new BenchmarkException("--sim URL is required (the cluster's ground truth and timing)");
        }
        tool.probe();
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
        List<Run> runs = new ArrayList<>();
        if (o.throughput) {
            for (int c : o.concurrency) {
                for (Path p : paths) {
                    runs.add(new Run(c, tool.throughput(p, c, o.warmupSeconds, o.durationSeconds)));
                }
            }
            out.append(throughputTable(runs));
        }
        if (o.replay && o.replayLauncher != null) {
            out.append(replayTable(replays(paths)));
        }
        System.out.print(out);
        System.out.flush();
        if (o.json != null) {
            writeJson(runs, fresh, warm);
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

    private String throughputTable(List<Run> runs) {
        StringBuilder sb = new StringBuilder();
        sb.append(String.format(Locale.ROOT, "%n(b) relayed tokens/s, closed loop, %d tokens per request, 1 token per chunk,"
                + " %.0f s measured after %.0f s warm-up%n", o.streamMaxTokens, o.durationSeconds, o.warmupSeconds));
        sb.append(String.format(Locale.ROOT, "%7s %-13s %10s %9s %7s %11s %9s %8s %9s %9s %8s%n", "streams", "path", "tok/s",
                "/ direct", "errors", "cpu s/100k", "csw/tok", "threads", "e2e p50", "e2e p99", "step ms"));
        double direct = Double.NaN;
        for (Run r : runs) {
            Throughput t = r.result();
            if (t.path() == Path.DIRECT) {
                direct = t.tokensPerSecond();
            }
            boolean proc = t.path() != Path.DIRECT && t.runtime() != null && t.tokens() > 0;
            sb.append(String.format(Locale.ROOT, "%7d %-13s %,10.0f %9s %7d %11s %9s %8s %9.1f %9.1f %8s%n", r.streams(),
                    t.path().name, t.tokensPerSecond(),
                    t.path() == Path.DIRECT ? "-" : String.format(Locale.ROOT, "%.2f", t.tokensPerSecond() / direct),
                    t.errors(), proc ? String.format(Locale.ROOT, "%.3f", cpuPer100k(t)) : "-",
                    proc ? String.format(Locale.ROOT, "%.3f", switchesPerToken(t)) : "-",
                    proc ? Integer.toString(t.runtime().threads()) : "-", ms(pct(t.e2e(), 50)), ms(pct(t.e2e(), 99)),
                    Double.isNaN(t.stepMs()) ? "-" : String.format(Locale.ROOT, "%.3f", t.stepMs())));
        }
        sb.append("(cpu s/100k, csw/tok, threads: the proxy process's CPU seconds (utime + stime, /proc/PID/stat) per 100k\n"
                + " tokens relayed in the window, its context switches (all threads) per token, its threads at the end: the\n"
                + " runtime's JVM, the peer's Python process; e2e: ms from send to [DONE]; step ms: the engine's mean step)\n");
        return sb.toString();
    }

    private static double cpuPer100k(Throughput t) {
        return t.runtime().cpuSeconds() / t.tokens() * 100_000;
    }

    private static double switchesPerToken(Throughput t) {
        return (double) t.runtime().switches() / t.tokens();
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

    // ---------------------------------------------------------------- --json

    private void writeJson(List<Run> runs, Latencies fresh, Latencies warm) throws BenchmarkException {
        ObjectNode root = JSON.createObjectNode();
        ArrayNode throughput = root.putArray("throughput");
        for (Run r : runs) {
            Throughput t = r.result();
            ObjectNode row = throughput.addObject().put("path", t.path().name).put("streams", r.streams())
                    .put("tokPerS", round(t.tokensPerSecond(), 1));
            if (t.path() != Path.DIRECT && t.runtime() != null && t.tokens() > 0) {
                row.put("cpuSecondsPer100kTokens", round(cpuPer100k(t), 4))
                        .put("contextSwitchesPerToken", round(switchesPerToken(t), 4));
            } else {
                row.putNull("cpuSecondsPer100kTokens").putNull("contextSwitchesPerToken");
            }
            row.put("errors", t.errors());
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

    private static double round(double v, int digits) {
        double f = Math.pow(10, digits);
        return Math.round(v * f) / f;
    }
}
