package org.balanceroute.replay;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import java.io.File;
import java.io.IOException;
import java.io.PrintStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.balanceroute.trace.Trace;
import org.balanceroute.trace.TraceFormatException;
import org.balanceroute.trace.TraceLoader;
import org.balanceroute.trace.TraceOptions;
import org.balanceroute.trace.TraceRequest;
import org.balanceroute.trace.WorkloadGenerator;

/**
 * {@code ./balanceroute demo}: starts the simulated cluster (8 decode ranks, 2 prefill servers,
 * default ports) and the runtime as child processes, waits until both answer, then for each of
 * jsq, br0 and brh-survival switches the policy live ({@code PUT /admin/policy}), resets the
 * engine's ground truth, replays the same workload through the proxy and reads {@code GET
 * /sim/stats}; prints the comparison, then serves until Ctrl-C ({@code --exit}: stops instead).
 */
public final class Demo {

    static final List<String> POLICIES = List.of("jsq", "br0", "brh-survival");
    static final int SIM_PORT_BASE = 18100;
    static final int WARMUP_REQUESTS = 200;
    /*
     * The defaults load the cluster heavily (the paper's regime), within the 2-core budget: 3000
     * requests arriving at 300/s of wall clock, which at 0.08 wall seconds per modelled second is
     * 24 requests per modelled second, about 3x what 8 ranks of 64 slots serve; 32 tokens per
     * chunk keep the relay's event rate (client, proxy and cluster share 2 cores) within reach.
     */
    static final int DEFAULT_REQUESTS = 3000;
    static final double DEFAULT_RATE = 300;
    static final double DEFAULT_TIME_FACTOR = 0.08;
    static final int DEFAULT_STREAM_INTERVAL = 32;

    static final String USAGE = """
            Usage: ./balanceroute demo [--trace FILE] [--requests N] [--exit] [--json] [options]

            Starts the simulated vLLM cluster (8 decode ranks, 2 prefill servers, ports 18100..)
            and the runtime (port 8000), replays the same workload through the proxy once per
            policy (jsq, br0, brh-survival; switched live through the admin API), and prints a
            comparison measured by the engine's ground truth (GET /sim/stats). Then it keeps both
            serving until Ctrl-C.

            Options:
              --trace FILE        replay a trace's first N requests, arrivals compressed to the
                                  workload's rate (default: the built-in seeded generator)
              --requests N        requests per policy (default 3000)
              --rate R            arrivals per wall-clock second (default 300)
              --time-factor F     the cluster's wall seconds per modelled second (default 0.08)
              --stream-interval K tokens per streamed chunk (default 32)
              --seed S            the generator's seed (default 1)
              --port N            the runtime's port (default 8000)
              --exit              stop both processes after the comparison
              --json              print {"results": [{"policy", "avgImbalance", "throughputTokPerS",
                                  "tpotP95Ms", "ttftP95S"}]} instead of the table
            """;

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String AUTH = "Basic " + Base64.getEncoder()
            .encodeToString("admin:admin".getBytes(StandardCharsets.UTF_8));

    private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(2)).build();
    private final List<Process> children = new ArrayList<>();
    private final PrintStream err = System.err;

    public static void main(String[] args) throws Exception {
        Replayer.configureJdkClient();
        int status;
        Demo demo = new Demo();
        try {
            status = demo.run(args);
        } catch (DemoException e) {
            System.err.println("balanceroute demo: " + e.getMessage());
            status = e.status;
        }
        demo.stopChildren();
        System.exit(status);
    }

    static final class DemoException extends Exception {
        final int status;

        DemoException(int status, String message) {
            super(message);
            this.status = status;
        }
    }

    int run(String[] args) throws Exception {
        Path root = Path.of(".");
        String trace = null;
        int requests = DEFAULT_REQUESTS;
        double rate = DEFAULT_RATE;
        double timeFactor = DEFAULT_TIME_FACTOR;
        int streamInterval = DEFAULT_STREAM_INTERVAL;
        long seed = 1;
        int port = 8000;
        boolean exit = false;
        boolean json = false;
        try {
            for (int i = 0; i < args.length; i++) {
                String a = args[i];
                switch (a) {
                    case "--root" -> root = Path.of(value(args, ++i, a));
                    case "--trace" -> trace = value(args, ++i, a);
                    case "--requests" -> requests = Integer.parseInt(value(args, ++i, a));
                    case "--rate" -> rate = Double.parseDouble(value(args, ++i, a));
                    case "--time-factor" -> timeFactor = Double.parseDouble(value(args, ++i, a));
                    case "--stream-interval" -> streamInterval = Integer.parseInt(value(args, ++i, a));
                    case "--seed" -> seed = Long.parseLong(value(args, ++i, a));
                    case "--port" -> port = Integer.parseInt(value(args, ++i, a));
                    case "--exit" -> exit = true;
                    case "--json" -> json = true;
                    case "-h", "--help" -> {
                        System.out.print(USAGE);
                        return 0;
                    }
                    default -> throw new IllegalArgumentException("unknown option '" + a + "'");
                }
            }
            if (requests < 1 || !(rate > 0) || !(timeFactor > 0) || streamInterval < 1 || port < 1 || port > 65535) {
                throw new IllegalArgumentException("--requests >= 1, --rate > 0, --time-factor > 0, "
                        + "--stream-interval >= 1, --port 1..65535");
            }
        } catch (IllegalArgumentException e) {
            err.println("balanceroute demo: " + e.getMessage());
            err.print(USAGE);
            return 2;
        }

        // the workload: the same requests for every policy
        List<TraceRequest> workload;
        if (trace == null) {
            Trace t = new WorkloadGenerator(seed, rate).generate(requests);
            workload = t.requests();
            err.println("balanceroute demo: workload " + t);
        } else {
            Trace t;
            try {
                t = TraceLoader.load(Path.of(trace), new TraceOptions(requests, -1, 1, 4));
            } catch (TraceFormatException e) {
                throw new DemoException(1, e.getMessage());
            }
            double span = (t.size() - 1) / rate; // the same arrival rate as the generator's
            double scale = t.durationSeconds() > 0 ? t.durationSeconds() / span : 1;
            workload = new ArrayList<>(t.size());
            for (TraceRequest r : t.requests()) {
                workload.add(new TraceRequest(r.arrivalSeconds() / scale, r.inputTokens(), r.outputTokens(), r.promptKey()));
            }
            err.printf(Locale.ROOT, "balanceroute demo: workload %s, arrivals compressed %.1fx%n", t, scale);
        }

        // ports first: say what is in the way before starting anything
        for (int p : new int[] {port, SIM_PORT_BASE, SIM_PORT_BASE + 1, SIM_PORT_BASE + 99, SIM_PORT_BASE + 100}) {
            if (listening(p)) {
                throw new DemoException(1, "port " + p + " is already in use"
                        + (p == port ? " (another ./balanceroute run?); choose another with --port N"
                                : " (another ./balanceroute sim-cluster or demo?); stop it first"));
            }
        }

        Path logs = root.resolve("bundles/replay/target/demo");
        Files.createDirectories(logs);
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        String simCp = root.resolve("bundles/engine-sim/target/org.balanceroute.enginesim-0.1.0-SNAPSHOT.jar")
                + File.pathSeparator + root.resolve("bundles/engine-sim/target/lib") + File.separator + "*";
        Runtime.getRuntime().addShutdownHook(new Thread(this::stopChildren, "demo-stop"));
        start("sim-cluster", logs, List.of(java, "-cp", simCp, "org.balanceroute.enginesim.SimCluster",
                "--prefill", "2", "--decode", "8", "--time-factor", Double.toString(timeFactor),
                "--stream-interval", Integer.toString(streamInterval)));
        start("runtime", logs, List.of(root.resolve("balanceroute").toString(), "run", "--port", Integer.toString(port)));
        String base = "http://127.0.0.1:" + port;
        String sim = "http://127.0.0.1:" + (SIM_PORT_BASE + 99);

        long deadline = System.nanoTime() + Duration.ofSeconds(120).toNanos();
        await("the simulated cluster (" + sim + "/health)", () -> get(sim + "/health", false).statusCode() == 200, deadline, logs);
        await("the admin API (" + base + "/admin/policies)", () -> get(base + "/admin/policies", true).statusCode() == 200,
                deadline, logs);
        await("the proxy (" + base + "/health)", () -> get(base + "/health", false).statusCode() == 200, deadline, logs);
        err.println("balanceroute demo: cluster and runtime up; logs in " + logs.toAbsolutePath().normalize());

        // warm-up, not measured: the JVMs compile the hot paths (otherwise the first policy pays)
        List<TraceRequest> warmup = workload.subList(0, Math.min(WARMUP_REQUESTS, workload.size()));
        err.println("balanceroute demo: warm-up: " + warmup.size() + " requests, not measured");
        ReplayResult warm = new Replayer(base, "balanceroute-sim", 1, 4096, null).continuousUsage(true).run(warmup);
        err.printf(Locale.ROOT, "balanceroute demo: warm-up: %d/%d completed in %.1f s%n", warm.completed(),
                warm.requests(), warm.wallSeconds());

        // the policy in force before the demo, put back afterwards (PUT /admin/policy persists)
        String initialPolicy = JSON.readTree(get(base + "/admin/policies", true).body()).path("active").asText();
        List<Map<String, Object>> results = new ArrayList<>();
        for (String policy : POLICIES) {
            HttpResponse<String> put = send(HttpRequest.newBuilder(URI.create(base + "/admin/policy"))
                    .header("Authorization", AUTH).header("Content-Type", "application/json")
                    .PUT(HttpRequest.BodyPublishers.ofString("{\"policy\": \"" + policy + "\"}")));
            if (put.statusCode() != 200) {
                throw new DemoException(1, "PUT /admin/policy " + policy + ": HTTP " + put.statusCode() + " "
                        + Replayer.errorMessage(put.body()));
            }
            long switchDeadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
            await("policy " + policy + " active", () -> policy.equals(
                    JSON.readTree(get(base + "/admin/policies", true).body()).path("active").asText()), switchDeadline, logs);
            HttpResponse<String> reset = send(HttpRequest.newBuilder(URI.create(sim + "/sim/stats/reset"))
                    .POST(HttpRequest.BodyPublishers.noBody()));
            if (reset.statusCode() / 100 != 2) {
                throw new DemoException(1, "POST /sim/stats/reset: HTTP " + reset.statusCode());
            }
            err.println("balanceroute demo: " + policy + ": replaying " + workload.size() + " requests through " + base);
            Replayer replayer = new Replayer(base, "balanceroute-sim", 1, 4096, err).continuousUsage(true);
            ReplayResult replay = replayer.run(workload);
            JsonNode stats = JSON.readTree(get(sim + "/sim/stats", false).body());
            Map<String, Object> row = new LinkedHashMap<>();
            row.put("policy", policy);
            row.put("avgImbalance", stats.path("avgImbalance").asDouble());
            row.put("throughputTokPerS", stats.path("throughputTokPerS").asDouble());
            row.put("tpotP95Ms", stats.path("tpotP95Ms").asDouble());
            row.put("ttftP95S", stats.path("ttftP95S").asDouble());
            results.add(row);
            double running = 0;
            for (JsonNode rank : stats.path("ranks")) {
                running += rank.path("meanRunning").asDouble();
            }
            err.printf(Locale.ROOT, "balanceroute demo: %s: %d/%d completed, %d failed, %.1f s; engine: avg imbalance %.0f,"
                    + " %.0f tok/s, %d steps, %.1f running per rank on average%n", policy, replay.completed(),
                    replay.requests(), replay.failed(), replay.wallSeconds(), stats.path("avgImbalance").asDouble(),
                    stats.path("throughputTokPerS").asDouble(), stats.path("steps").asLong(),
                    running / Math.max(1, stats.path("ranks").size()));
            replay.errors().forEach((m, c) -> err.println("  error x" + c + ": " + m));
        }

        if (!initialPolicy.isEmpty() && !initialPolicy.equals(POLICIES.get(POLICIES.size() - 1))) {
            HttpResponse<String> back = send(HttpRequest.newBuilder(URI.create(base + "/admin/policy"))
                    .header("Authorization", AUTH).header("Content-Type", "application/json")
                    .PUT(HttpRequest.BodyPublishers.ofString("{\"policy\": \"" + initialPolicy + "\"}")));
            err.println("balanceroute demo: policy " + initialPolicy + " restored (HTTP " + back.statusCode() + ")");
        }
        if (json) {
            System.out.println(JSON.enable(SerializationFeature.INDENT_OUTPUT).writeValueAsString(Map.of("results", results)));
        } else {
            System.out.print(table(results, workload.size(), trace == null ? "the built-in generator (seed " + seed + ")" : trace));
        }
        System.out.flush();
        if (exit) {
            return 0;
        }
        err.println("balanceroute demo: still serving for exploration (Ctrl-C stops both):");
        err.println("  proxy        " + base + "/v1/completions, " + base + "/v1/chat/completions");
        err.println("  admin        curl -u admin:admin " + base + "/admin/snapshot");
        err.println("  web console  " + base + "/system/console (admin/admin)");
        err.println("  cluster      " + sim + "/sim/stats");
        for (Process p : children) {
            p.waitFor();
        }
        return 0;
    }

    static String table(List<Map<String, Object>> results, int n, String workload) {
        StringBuilder sb = new StringBuilder();
        sb.append(String.format(Locale.ROOT, "%nBalanceRoute demo: %d requests of %s per policy, G=8, measured by the engine%n%n",
                n, workload));
        sb.append(String.format(Locale.ROOT, "%-14s %16s %9s %12s %9s %12s %12s%n",
                "policy", "avg imbalance", "vs jsq", "tok/s", "vs jsq", "TPOT p95 ms", "TTFT p95 s"));
        double jsqImb = (double) results.get(0).get("avgImbalance");
        double jsqTput = (double) results.get(0).get("throughputTokPerS");
        for (Map<String, Object> r : results) {
            double imb = (double) r.get("avgImbalance");
            double tput = (double) r.get("throughputTokPerS");
            sb.append(String.format(Locale.ROOT, "%-14s %,16.0f %8.2fx %,12.0f %+8.1f%% %12.1f %12.2f%n",
                    r.get("policy"), imb, imb / jsqImb, tput, (tput / jsqTput - 1) * 100,
                    (double) r.get("tpotP95Ms"), (double) r.get("ttftP95S")));
        }
        sb.append("(vs jsq: imbalance as a fraction of jsq's, lower is better; throughput change)\n");
        return sb.toString();
    }

    interface Check {
        boolean ok() throws Exception;
    }

    private void await(String what, Check check, long deadline, Path logs) throws Exception {
        long pause = 100;
        while (true) {
            for (Process p : children) {
                if (!p.isAlive()) {
                    throw new DemoException(1, "a child process exited (status " + p.exitValue() + ") while waiting for "
                            + what + "; see the logs in " + logs.toAbsolutePath().normalize());
                }
            }
            try {
                if (check.ok()) {
                    return;
                }
            } catch (IOException e) {
                // not up yet
            }
            if (System.nanoTime() > deadline) {
                throw new DemoException(1, "timed out waiting for " + what + "; see the logs in "
                        + logs.toAbsolutePath().normalize());
            }
            Thread.sleep(pause);
            pause = Math.min(1000, pause * 2);
        }
    }

    private void start(String name, Path logs, List<String> command) throws IOException {
        File log = logs.resolve(name + ".log").toFile();
        ProcessBuilder pb = new ProcessBuilder(command).redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.to(log));
        Process p = pb.start();
        synchronized (children) {
            children.add(p);
        }
        err.println("balanceroute demo: started " + name + " (pid " + p.pid() + ", log " + log + ")");
    }

    void stopChildren() {
        List<Process> list;
        synchronized (children) {
            list = new ArrayList<>(children);
            children.clear();
        }
        for (Process p : list) {
            p.descendants().forEach(ProcessHandle::destroy);
            p.destroy();
        }
        for (Process p : list) {
            try {
                if (!p.waitFor(15, java.util.concurrent.TimeUnit.SECONDS)) {
                    p.destroyForcibly();
                }
            } catch (InterruptedException e) {
                p.destroyForcibly();
            }
        }
    }

    private HttpResponse<String> get(String url, boolean auth) throws IOException, InterruptedException {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(10)).GET();
        if (auth) {
            b.header("Authorization", AUTH);
        }
        return http.send(b.build(), HttpResponse.BodyHandlers.ofString());
    }

    private HttpResponse<String> send(HttpRequest.Builder b) throws IOException, InterruptedException {
        return http.send(b.timeout(Duration.ofSeconds(30)).build(), HttpResponse.BodyHandlers.ofString());
    }

    private static boolean listening(int port) {
        try (Socket s = new Socket()) {
            s.connect(new InetSocketAddress("127.0.0.1", port), 500);
            return true;
        } catch (IOException e) {
            return false;
        }
    }

    private static String value(String[] args, int i, String option) {
        if (i >= args.length) {
            throw new IllegalArgumentException(option + " needs a value");
        }
        return args[i];
    }
}
