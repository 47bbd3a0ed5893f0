package org.balanceroute.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.File;
import java.io.IOException;
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
import org.balanceroute.api.PoolView;
import org.balanceroute.chart.LoadChart;
import org.balanceroute.chart.LoadSeries;
import org.balanceroute.policy.balance.BalancePolicy;
import org.balanceroute.policy.balance.BalanceSettings;
import org.balanceroute.policy.baseline.JoinShortestQueuePolicy;
import org.balanceroute.replay.ReplayResult;
import org.balanceroute.replay.Replayer;
import org.balanceroute.trace.Trace;
import org.balanceroute.trace.TraceFormatException;
import org.balanceroute.trace.TraceLoader;
import org.balanceroute.simulator.RobustChoice;
import org.balanceroute.trace.TraceOptions;
import org.balanceroute.trace.TraceRequest;
import org.balanceroute.trace.WorkloadGenerator;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code ./balanceroute demo}: starts the simulated cluster (8 decode ranks, 2 prefill servers,
 * default ports) and the runtime as child processes, waits until both answer, then for each of
 * jsq, br0 and brh-survival switches the policy live ({@code PUT /admin/policy}), resets the
 * engine's ground truth, replays the same workload through the proxy, reads {@code GET
 * /sim/stats} and draws the engine-measured per-rank KV load over the run ({@code GET
 * /sim/series}) as {@code bundles/replay/target/demo/POLICY.png}; prints the comparison and where
 * the charts are, then serves until Ctrl-C ({@code --exit}: stops instead).
 *
 * <p>With {@code --replicas N} it starts N runtimes (each in its own home) and compares, on the
 * same workload: jsq and br0 on one replica, br0 on N replicas each with its own local view (N
 * plain proxies, the replay spread round-robin), and br0 on the same N replicas once they share
 * the snapshot (the cluster feature dropped into each one's deploy/ while it runs); one chart per
 * phase ({@link #chartName}).
 *
 * <p>With {@code --instances N} it starts N simulated decode instances (N sim-cluster processes,
 * the first one's prefill servers shared: {@link #simClusterArgs}) and one runtime in a home of its
 * own, and compares jsq, br0 given every rank as one instance (flat) and br0 given the N instances
 * (group-aware), switching between them by rewriting the pool file ({@link #poolFile}) and waiting
 * until it is in force; each instance's engine measures its own imbalance ({@link #row}).
 */
@Command(name = "demo", sortOptions = false,
        customSynopsis = "./balanceroute demo [--trace FILE] [--requests N] [--replicas N | --instances N] [--exit] [--json]"
                + " [options]",
        description = {"", "Starts the simulated vLLM cluster (8 decode ranks, 2 prefill servers, ports 18100..)"
                + " and the runtime (port 8000), replays the same workload through the proxy once per policy (jsq,"
                + " br0, brh-survival; switched live through the admin API), and prints a comparison measured by"
                + " the engine's ground truth (GET /sim/stats). For each policy it also writes the engine-measured"
                + " per-rank KV load over the run (GET /sim/series) as a chart,"
                + " bundles/replay/target/demo/POLICY.png. Then it keeps both serving until Ctrl-C.", "",
            "With --replicas N (2..8) it starts N runtimes (ports 8000.., cluster ports 5701..) and compares jsq"
                + " and br0 on one replica, br0 on N replicas with a local view each (N plain proxies) and br0 on"
                + " the N replicas sharing the snapshot (the cluster feature joined live), one chart per phase.",
            "",
            "With --instances N (2..4) it starts N simulated decode instances of the model (N sim-cluster processes of"
                + " 8 ranks, each its own barrier; the first one's 2 prefill servers serve them all) and compares, measured"
                + " by each instance's engine and summed: jsq, br0 given the N*8 ranks as one instance (flat) and br0"
                + " given the N instances (group-aware), switched by rewriting the pool file live.",
            ""})
public final class Demo extends CliCommand {

    static final List<String> POLICIES = List.of(JoinShortestQueuePolicy.NAME, BalancePolicy.BR0,
            BalancePolicy.BRH_SURVIVAL);
    /** The Hazelcast member port of replica i is CLUSTER_PORT_BASE + i. */
    static final int CLUSTER_PORT_BASE = 5701;
    static final int MAX_REPLICAS = 8;
    static final int MAX_INSTANCES = 4;
    /** Simulated decode instance i (0-based) uses the ports from SIM_PORT_BASE + INSTANCE_PORT_STRIDE * i. */
    static final int INSTANCE_PORT_STRIDE = 200;
    static final int RANKS_PER_INSTANCE = 8;
    static final int CAPACITY = PoolView.DEFAULT_CAPACITY;
    static final String POOL_FILE = "org.balanceroute.pool-default.cfg";
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

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String AUTH = "Basic " + Base64.getEncoder()
            .encodeToString("admin:admin".getBytes(StandardCharsets.UTF_8));

    private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(2)).build();
    private final List<Process> children = new ArrayList<>();

    @Option(names = "--root", hidden = true, description = "the project (./balanceroute gives it)")
    Path root = Path.of(".");

    @Option(names = "--trace", paramLabel = "FILE", description = "replay a trace's first N requests, arrivals"
            + " compressed to the workload's rate; default: the built-in seeded generator")
    String trace;

    @Option(names = "--requests", paramLabel = "N", converter = Values.Int.class,
            description = "requests per policy; default: ${DEFAULT-VALUE}")
    int requests = DEFAULT_REQUESTS;

    @Option(names = "--rate", paramLabel = "R", converter = Values.Real.class,
            description = "arrivals per wall-clock second; default: ${DEFAULT-VALUE}")
    double rate = DEFAULT_RATE;

    @Option(names = "--time-factor", paramLabel = "F", converter = Values.Real.class,
            description = "the cluster's wall seconds per modelled second; default: ${DEFAULT-VALUE} (with --instances"
                    + " N: N times that, the same load per rank)")
    double timeFactor = DEFAULT_TIME_FACTOR;

    @Option(names = "--stream-interval", paramLabel = "K", converter = Values.Int.class,
            description = "tokens per streamed chunk; default: ${DEFAULT-VALUE}")
    int streamInterval = DEFAULT_STREAM_INTERVAL;

    @Option(names = "--seed", paramLabel = "S", converter = Values.Long.class,
            description = "the generator's seed; default: ${DEFAULT-VALUE}")
    long seed = 1;

    @Option(names = "--port", paramLabel = "N", converter = Values.Int.class,
            description = "the runtime's port (replica i: N + i); default: ${DEFAULT-VALUE}")
    int port = 8000;

    @Option(names = "--replicas", paramLabel = "N", converter = Values.Int.class,
            description = "compare N proxy replicas, local and sharing the snapshot (2..8)")
    int replicas = 1;

    @Option(names = "--instances", paramLabel = "N", converter = Values.Int.class,
            description = "compare jsq, flat br0 and group-aware br0 on N simulated decode instances of 8 ranks (2.."
                    + MAX_INSTANCES + ")")
    int instances = 1;

    @Option(names = "--sim-port-base", paramLabel = "N", converter = Values.Int.class,
            description = "with --instances: the simulated instances' first port (instance i from N + "
                    + INSTANCE_PORT_STRIDE + " * i); without it the runtime's pool file names 18100..; default:"
                    + " ${DEFAULT-VALUE}")
    int simPortBase = SIM_PORT_BASE;

    @Option(names = "--tune", description = "jsq, then brh-survival from the poor pair (beta, gamma) = (43, 0.86)"
            + " twice (the second: the control, and the window of the self-tuner's search, POST /admin/tune), its"
            + " winner applied, and the same replay again (one replica)")
    boolean tune;

    @Option(names = "--tune-parts", paramLabel = "K", converter = Values.Int.class,
            description = "with --tune: the parts of the window the tuner's choice must win (its parts setting,"
                    + " quorum 1); 1: the lowest imbalance over the whole window wins; default: ${DEFAULT-VALUE}")
    int tuneParts = RobustChoice.DEFAULT.parts();

    @Option(names = "--tune-horizon", paramLabel = "H", converter = Values.Int.class,
            description = "with --tune: the horizon BR-H starts at with (43, 0.86) (0.."
                    + BalanceSettings.MAX_HORIZON + "); default: ${DEFAULT-VALUE}, the paper's")
    int tuneHorizon = 80;

    @Option(names = "--exit", description = "stop the processes after the comparison")
    boolean exit;

    @Option(names = "--json", description = "print {\"results\": [{\"policy\", \"replicas\", \"shared\","
            + " \"avgImbalance\", \"throughputTokPerS\", \"tpotP95Ms\", \"ttftP95S\", \"completed\","
            + " \"failed\", \"retried\"}]} instead of the table; with --instances each row adds \"instances\" (the"
            + " decode instances the pool file listed: 1 = flat) and \"groupImbalance\" (each simulated instance's"
            + " engine-measured avg imbalance; avgImbalance is their sum)")
    boolean json;

    @Override
    Hint usageHint() {
        return Hint.USAGE;
    }

    @Override
    int run() throws Exception {
        try {
            return demo();
        } catch (DemoException e) {
            err.println("balanceroute demo: " + e.getMessage());
            return e.status;
        } finally {
            stopChildren();
        }
    }

    static final class DemoException extends Exception {
        final int status;

        DemoException(int status, String message) {
            super(message);
            this.status = status;
        }
    }

    /**
     * One measured replay: a policy on one replica, or on N replicas with or without the shared
     * snapshot; with {@code --tune}, BR-H started from a poor pair ({@link #POOR}), the same pair
     * replayed once more ({@link #POOR_AGAIN}: the control, as warm as what follows) and the same
     * after the self-tuner's search over it ({@link #TUNED}, or {@link #KEPT} when it applied nothing).
     */
    record Phase(String policy, int replicas, boolean shared, String tuning, int instances) {

        Phase(String policy, int replicas, boolean shared) {
            this(policy, replicas, shared, null);
        }

        Phase(String policy, int replicas, boolean shared, String tuning) {
            this(policy, replicas, shared, tuning, 0);
        }

        /**
         * A phase of {@code --instances}: the policy on one runtime whose pool file lists
         * {@code instances} decode instances (1: every rank as one instance, flat).
         */
        static Phase ofInstances(String policy, int instances) {
            return new Phase(policy, 1, false, null, instances);
        }
    }

    static final String POOR = "poor";
    static final String POOR_AGAIN = "poor-again";
    static final String TUNED = "tuned";
    static final String KEPT = "kept";
    /**
     * The pair the issue starts the tuner from, the paper's second setting, at {@code --tune-horizon}:
     * measurably poor on Azure at H=20 or 200, the best there at H=80, within noise of the best on
     * Mooncake-like traffic (docs/self-tuning.md).
     */
    static ObjectNode poorParameters(int horizon) {
        return JSON.createObjectNode().put("horizon", horizon).put("beta", 43).put("gamma", 0.86);
    }

    /** The phases of a run: the three policies on one runtime, or the replica comparison. */
    static List<Phase> phases(int replicas) {
        return phases(replicas, false);
    }

    /**
     * With {@code tune}: jsq, BR-H from the poor pair twice, and BR-H after the self-tuner applied
     * its winner. The tuned phase is compared with the second replay of the poor pair, which the
     * tuner searched over: the first BR-H phase runs while the runtime still warms up (its
     * imbalance measured 19-23% above the next phase's whatever the tuner did), the second is as
     * warm as the tuned one.
     */
    static List<Phase> phases(int replicas, boolean tune) {
        return phases(replicas, tune, 1);
    }

    /**
     * With {@code instances} > 1: jsq and group-aware br0 given the instances as they are, flat br0
     * given every rank as one instance.
     */
    static List<Phase> phases(int replicas, boolean tune, int instances) {
        if (instances > 1) {
            return List.of(Phase.ofInstances(JoinShortestQueuePolicy.NAME, instances),
                    Phase.ofInstances(BalancePolicy.BR0, 1), Phase.ofInstances(BalancePolicy.BR0, instances));
        }
        if (tune) {
            return List.of(new Phase(JoinShortestQueuePolicy.NAME, 1, false),
                    new Phase(BalancePolicy.BRH_SURVIVAL, 1, false, POOR),
                    new Phase(BalancePolicy.BRH_SURVIVAL, 1, false, POOR_AGAIN),
                    new Phase(BalancePolicy.BRH_SURVIVAL, 1, false, TUNED));
        }
        if (replicas < 2) {
            return POLICIES.stream().map(p -> new Phase(p, 1, false)).toList();
        }
        return List.of(new Phase(JoinShortestQueuePolicy.NAME, 1, false), new Phase(BalancePolicy.BR0, 1, false),
                new Phase(BalancePolicy.BR0, replicas, false), new Phase(BalancePolicy.BR0, replicas, true));
    }

    private int demo() throws Exception {
        if (given("--replicas") != null && (replicas < 2 || replicas > MAX_REPLICAS)) {
            throw new UsageException("--replicas must be 2.." + MAX_REPLICAS + ", got " + replicas);
        }
        if (tuneParts < 1 || tuneParts > RobustChoice.MAX_PARTS) {
            throw new UsageException("--tune-parts must be in [1, " + RobustChoice.MAX_PARTS + "], got " + tuneParts);
        }
        if (tuneHorizon < 0 || tuneHorizon > BalanceSettings.MAX_HORIZON) {
            throw new UsageException("--tune-horizon must be in [0, " + BalanceSettings.MAX_HORIZON + "], got " + tuneHorizon);
        }
        if (tune && replicas > 1) {
            throw new UsageException("--tune runs on one replica, not with --replicas");
        }
        checkInstances(given("--instances") != null, instances, replicas, tune);
        timeFactor = timeFactor(given("--time-factor") != null, timeFactor, instances);
        if (given("--sim-port-base") != null && (instances < 2 || simPortBase < 1
                || simPortBase + INSTANCE_PORT_STRIDE * (instances - 1) + 100 + RANKS_PER_INSTANCE > 65535)) {
            throw new UsageException(instances < 2 ? "--sim-port-base needs --instances (the runtime's own pool file"
                    + " names the default ports)" : "--sim-port-base must leave room for every instance's ports"
                    + " below 65536, got " + simPortBase);
        }
        if (requests < 1 || !(rate > 0) || !(timeFactor > 0) || streamInterval < 1 || port < 1
                || port + replicas - 1 > 65535) {
            throw new UsageException("--requests >= 1, --rate > 0, --time-factor > 0, "
                    + "--stream-interval >= 1, --port 1..65535 (and the replicas' ports after it)");
        }

        // the workload: the same requests for every phase
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
        for (int p : ports(replicas, port, instances, simPortBase)) {
            if (listening(p)) {
                throw new DemoException(1, "port " + p + " is already in use"
                        + (p >= port && p < port + replicas ? " (another ./balanceroute run?); choose another with --port N"
                                : p >= CLUSTER_PORT_BASE && p < CLUSTER_PORT_BASE + replicas
                                        ? " (another cluster member?); stop it first"
                                        : " (another ./balanceroute sim-cluster or demo?); stop it first"));
            }
        }

        Path logs = root.resolve("bundles/replay/target/demo");
        Files.createDirectories(logs);
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        Runtime.getRuntime().addShutdownHook(new Thread(this::stopChildren, "demo-stop"));
        // the cluster (with --instances: one per decode instance) from this command line's own classpath
        List<List<String>> simArgs = simClusterArgs(instances, timeFactor, streamInterval, simPortBase);
        List<String> sims = new ArrayList<>();
        for (int i = 0; i < simArgs.size(); i++) {
            List<String> command = new ArrayList<>(List.of(java, "-cp", System.getProperty("java.class.path"),
                    Main.class.getName()));
            command.addAll(simArgs.get(i));
            start(i == 0 ? "sim-cluster" : "sim-cluster-" + i, logs, command);
            sims.add(simUrl(simPortBase, i));
        }
        // --instances: a fresh home of its own, whose pool file the demo rewrites (the distribution's stays as it is)
        Path instancesHome = instances > 1 ? logs.resolve("instances-home") : null;
        if (instancesHome != null) {
            // its config/ from the distribution's, the pool file listing every instance as it is: the runtime
            // starts on this topology (and never health-checks the default ports, where something else may run)
            deleteTree(instancesHome);
            copyTree(root.resolve("distribution/target/balanceroute/config"), instancesHome.resolve("config"));
            writePool(instancesHome, instances, instances, simPortBase);
        }
        List<String> bases = new ArrayList<>();
        List<Path> homes = new ArrayList<>();
        for (int i = 0; i < replicas; i++) {
            int p = port + i;
            List<String> command = new ArrayList<>(List.of(root.resolve("balanceroute").toString(), "run", "--port",
                    Integer.toString(p)));
            if (replicas > 1) {
                // a home of its own, fresh: no cluster configuration left from an earlier run
                Path home = logs.resolve("replica-" + i);
                deleteTree(home);
                homes.add(home);
                command.addAll(List.of("--home", home.toString()));
            } else if (instancesHome != null) {
                command.addAll(List.of("--home", instancesHome.toString()));
            }
            start(replicas > 1 ? "runtime-" + i : "runtime", logs, command);
            bases.add("http://127.0.0.1:" + p);
        }
        String base = bases.get(0);
        String sim = sims.get(0);

        long deadline = System.nanoTime() + Duration.ofSeconds(120).toNanos();
        for (String u : sims) {
            await("the simulated cluster (" + u + "/health)", () -> get(u + "/health", false).statusCode() == 200,
                    deadline, logs);
        }
        int listed = 0;
        for (String b : bases) {
            await("the admin API (" + b + "/admin/policies)", () -> get(b + "/admin/policies", true).statusCode() == 200,
                    deadline, logs);
            if (instancesHome != null) { // --instances: every instance in the pool file, as they are
                listed = awaitLayout(b, instances, instances, logs);
            }
            await("the proxy (" + b + "/health)", () -> get(b + "/health", false).statusCode() == 200, deadline, logs);
        }
        err.println("balanceroute demo: cluster and runtime" + (replicas > 1 ? "s" : "") + " up; logs in "
                + logs.toAbsolutePath().normalize());

        // warm-up, not measured: the JVMs compile the hot paths (otherwise the first policy pays)
        warmUp(List.of(base), workload);

        // the policy in force before the demo, put back afterwards (PUT /admin/policy persists)
        JsonNode initial = JSON.readTree(get(base + "/admin/policies", true).body());
        String initialPolicy = initial.path("active").asText();
        if (tune) {
            configureTuner(root, base, timeFactor, logs);
        }
        List<Map<String, Object>> results = new ArrayList<>();
        List<Path> charts = new ArrayList<>();
        boolean othersWarm = false;
        boolean joined = false;
        for (Phase phase : phases(replicas, tune, instances)) {
            if (phase.instances() > 0 && phase.instances() != listed) {
                listed = applyLayout(instancesHome, base, phase.instances(), instances, simPortBase,
                        logs);
            }
            List<String> targets = phase.replicas() == 1 ? List.of(base) : bases;
            if (phase.replicas() > 1 && !othersWarm) {
                warmUp(bases, workload); // the other replicas are cold
                othersWarm = true;
            }
            if (phase.shared() && !joined) {
                joinCluster(homes, bases, root, logs);
                joined = true;
                warmUp(bases, workload);
            }
            if (TUNED.equals(phase.tuning())) {
                phase = tuneNow(base); // what the tuner put in force
            } else if (!POOR_AGAIN.equals(phase.tuning())) { // the poor pair again: nothing to switch
                for (String b : targets) {
                    switchPolicy(b, phase.policy(), POOR.equals(phase.tuning()) ? poorParameters(tuneHorizon) : null, logs);
                }
            }
            for (String u : sims) {
                HttpResponse<String> reset = send(HttpRequest.newBuilder(URI.create(u + "/sim/stats/reset"))
                        .POST(HttpRequest.BodyPublishers.noBody()));
                if (reset.statusCode() / 100 != 2) {
                    throw new DemoException(1, "POST " + u + "/sim/stats/reset: HTTP " + reset.statusCode());
                }
            }
            String label = label(phase);
            err.println("balanceroute demo: " + label + ": replaying " + workload.size() + " requests through "
                    + String.join(", ", targets));
            Replayer replayer = new Replayer(targets, "balanceroute-sim", 1, 4096, err).continuousUsage(true);
            ReplayResult replay = replayer.run(workload);
            List<JsonNode> allStats = new ArrayList<>();
            for (int i = 0; i < sims.size(); i++) {
                String u = sims.get(i);
                allStats.add(JSON.readTree(get(u + "/sim/stats", false).body()));
                HttpResponse<String> series = get(u + "/sim/series", false);
                if (series.statusCode() == 200) {
                    Path png = writeChart(logs, phase, JSON.readTree(series.body()), workload.size(),
                            sims.size() > 1 ? i : -1);
                    charts.add(png);
                    err.println("balanceroute demo: " + label + ": engine-measured KV load per rank in " + png);
                } else {
                    err.println("balanceroute demo: " + label + ": no load chart (GET " + u + "/sim/series: HTTP "
                            + series.statusCode() + ")");
                }
            }
            results.add(row(phase, allStats, replay.completed(), replay.failed(), replay.retried()));
            for (int i = 0; i < allStats.size(); i++) {
                JsonNode stats = allStats.get(i);
                double running = 0;
                for (JsonNode rank : stats.path("ranks")) {
                    running += rank.path("meanRunning").asDouble();
                }
                err.printf(Locale.ROOT, "balanceroute demo: %s: %d/%d completed, %d failed, %.1f s; engine%s: avg imbalance"
                        + " %.0f, %.0f tok/s, %d steps, %.1f running per rank on average%n", label, replay.completed(),
                        replay.requests(), replay.failed(), replay.wallSeconds(),
                        allStats.size() > 1 ? " of instance " + i : "", stats.path("avgImbalance").asDouble(),
                        stats.path("throughputTokPerS").asDouble(), stats.path("steps").asLong(),
                        running / Math.max(1, stats.path("ranks").size()));
            }
            replay.errors().forEach((m, c) -> err.println("  error x" + c + ": " + m));
            if (phase.shared()) {
                for (String b : bases) {
                    JsonNode cluster = JSON.readTree(get(b + "/admin/snapshot", true).body()).path("cluster");
                    err.printf(Locale.ROOT, "balanceroute demo: %s: view staleness on %s (%s): p50 %.1f ms, p99 %.1f ms"
                            + " over the last %d samples%n", label, b,
                            cluster.path("dispatcher").asText().equals(cluster.path("localMember").asText())
                                    ? "the dispatcher: followers' events until applied" : "a follower: until in its view",
                            cluster.path("staleness").path("p50Millis").asDouble(),
                            cluster.path("staleness").path("p99Millis").asDouble(),
                            cluster.path("staleness").path("samples").asInt());
                }
            }
        }

        if (tune) {
            restoreBalanceParameters(base, initial);
        }
        String last = phases(replicas, tune).get(phases(replicas, tune).size() - 1).policy();
        if (!initialPolicy.isEmpty() && (tune || !initialPolicy.equals(last)) && replicas == 1
                && instances == 1) { // replicas, instances: fresh homes
            HttpResponse<String> back = putPolicy(base, initialPolicy, null);
            err.println("balanceroute demo: policy " + initialPolicy + " restored (HTTP " + back.statusCode() + ")");
        }
        String workloadName = trace == null ? "the built-in generator (seed " + seed + ")" : trace;
        if (json) {
            System.out.println(resultsJson(results));
        } else if (instances > 1) {
            System.out.print(instancesTable(results, workload.size(), workloadName, instances));
        } else {
            System.out.print(table(results, workload.size(), workloadName));
        }
        System.out.flush();
        if (!charts.isEmpty()) {
            err.println("balanceroute demo: per-rank KV load charts (engine-measured) in "
                    + logs.toAbsolutePath().normalize() + ": "
                    + String.join(", ", charts.stream().map(p -> p.getFileName().toString()).toList()));
        }
        if (exit) {
            return 0;
        }
        err.println("balanceroute demo: still serving for exploration (Ctrl-C stops every process):");
        err.println("  proxy        " + base + "/v1/completions, " + base + "/v1/chat/completions"
                + (replicas > 1 ? " (and the other replicas' ports)" : ""));
        err.println("  admin        curl -u admin:admin " + base + "/admin/snapshot");
        err.println("  web console  " + base + "/system/console (admin/admin)");
        for (String u : sims) {
            err.println("  cluster      " + u + "/sim/stats");
        }
        for (Process p : children()) {
            p.waitFor();
        }
        return 0;
    }

    /**
     * The chart file of a phase: {@code POLICY.png} on one replica, {@code POLICY-N-replicas-local.png}
     * / {@code -shared.png} on N.
     */
    static String chartName(Phase p) {
        if (p.instances() > 0) {
            return p.policy() + (p.policy().equals(BalancePolicy.BR0) ? p.instances() == 1 ? "-flat" : "-grouped" : "")
                    + ".png";
        }
        if (p.tuning() != null) {
            return "tune-" + p.tuning() + ".png";
        }
        return p.replicas() == 1 ? p.policy() + ".png"
                : p.policy() + "-" + p.replicas() + "-replicas-" + (p.shared() ? "shared" : "local") + ".png";
    }

    /**
     * Draws the engine's series ({@code GET /sim/series}: {@code ranks}, {@code step}, {@code loads})
     * as {@code dir/}{@link #chartName}; returns the file.
     */
    static Path writeChart(Path dir, Phase phase, JsonNode series, int requests) throws IOException {
        return writeChart(dir, phase, series, requests, -1);
    }

    /**
     * @param instance the simulated decode instance the series is of ({@code --instances}: the file is
     *     {@code NAME-instance-I.png}), or -1
     */
    static Path writeChart(Path dir, Phase phase, JsonNode series, int requests, int instance) throws IOException {
        int ranks = series.path("ranks").asInt();
        JsonNode steps = series.path("step");
        JsonNode loads = series.path("loads");
        LoadSeries s = new LoadSeries() {
            @Override public int workers() { return ranks; }
            @Override public int samples() { return Math.min(steps.size(), loads.size()); }
            @Override public long step(int i) { return steps.get(i).asLong(); }
            @Override public long load(int i, int g) { return loads.get(i).get(g).asLong(); }
        };
        String name = chartName(phase);
        if (instance >= 0) {
            name = name.substring(0, name.length() - ".png".length()) + "-instance-" + instance + ".png";
        }
        Path png = dir.resolve(name);
        LoadChart.write(png, String.format(Locale.ROOT, "%s: KV load per rank%s, measured by the engine (%d requests,"
                + " %d steps)", label(phase), instance >= 0 ? " of instance " + instance : "", requests,
                series.path("steps").asLong()), s);
        return png.toAbsolutePath().normalize();
    }

    static String label(Phase p) {
        if (p.instances() > 0) {
            return p.policy().equals(BalancePolicy.BR0) ? p.instances() == 1 ? "br0 flat" : "br0 group-aware" : p.policy();
        }
        if (POOR.equals(p.tuning())) {
            return p.policy() + " (43, 0.86)";
        }
        if (POOR_AGAIN.equals(p.tuning())) {
            return p.policy() + " (43, 0.86) again";
        }
        if (TUNED.equals(p.tuning())) {
            return p.policy() + " tuned";
        }
        if (KEPT.equals(p.tuning())) {
            return p.policy() + " (43, 0.86) kept";
        }
        return p.replicas() == 1 ? p.policy() : p.policy() + " on " + p.replicas() + " replicas, "
                + (p.shared() ? "shared snapshot" : "local views");
    }

    /**
     * The self-tuner set up for the demo's run, through its configuration file (FileInstall): the
     * last phase (its 10 s of arrivals) as its window, the engine's step model at its time factor
     * (the router's clock is the wall clock), margin 0 so that a winner of every one of the
     * {@code --tune-parts} parts is applied when asked.
     */
    private void configureTuner(Path root, String base, double timeFactor, Path logs) throws Exception {
        Path cfg = root.resolve("distribution/target/balanceroute/config/org.balanceroute.tuner.cfg");
        Files.writeString(cfg, "# written by ./balanceroute demo --tune\n"
                + "windowMinutes = 0.2\nbudgetSeconds = 120\nmargin = 0.0\nautoApply = false\n"
                + "parts = " + tuneParts + "\nquorum = 1\n"
                + "stepA = " + 2e-7 * timeFactor + "\nstepB = " + 0.020 * timeFactor + "\n");
        long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
        await("the tuner's configuration (" + base + "/admin/tune)", () -> tunerConfigured(get(base + "/admin/tune", true)
                .body()), deadline, logs);
    }

    /** Whether GET /admin/tune's answer shows the demo's tuner configuration in force. */
    private boolean tunerConfigured(String status) throws IOException {
        JsonNode s = JSON.readTree(status);
        return s.path("margin").asDouble(-1) == 0.0 && s.path("parts").asInt(-1) == tuneParts;
    }

    /**
     * POST /admin/tune?wait&apply: the search over what the last phase sent; the phase that
     * follows: the policy in force after it, tuned or the poor pair kept.
     */
    private Phase tuneNow(String base) throws Exception {
        err.println("balanceroute demo: self-tuning: replaying the last phase's requests for a grid of (beta, gamma, H)"
                + " and br0 (POST /admin/tune?wait=300&apply=true)");
        HttpResponse<String> r = send(HttpRequest.newBuilder(URI.create(base + "/admin/tune?wait=300&apply=true"))
                .header("Authorization", AUTH).POST(HttpRequest.BodyPublishers.noBody()));
        if (r.statusCode() != 200) {
            throw new DemoException(1, "POST " + base + "/admin/tune: HTTP " + r.statusCode() + " " + r.body());
        }
        JsonNode last = JSON.readTree(r.body()).path("last");
        err.printf(Locale.ROOT, "balanceroute demo: self-tuning: %d requests, %d of %d candidates in %.1f s; best %s "
                + "(replayed imbalance %.0f vs %.0f now, mean over %d replays whose halves agree at %.2f: predicted gain"
                + " %.0f%%, better on %d of %d parts); %s%n",
                last.path("requests").asInt(),
                last.path("evaluated").asInt(), last.path("candidates").asInt(), last.path("elapsedMillis").asLong() / 1e3,
                // the mean the choice and its predicted gain are made on, not the first replay's figure alone
                last.path("best").path("label").asText(), last.path("best").path("meanImbalance").asDouble(),
                last.path("current").path("meanImbalance").asDouble(), last.path("replays").asInt(1),
                last.path("agreement").asDouble(Double.NaN), 100 * last.path("predictedGain").asDouble(),
                last.path("wins").asInt(), last.path("parts").asInt(), last.path("applied").asBoolean() ? "applied: " + last.path("applyMessage").asText()
                        : "not applied: " + last.path("applyMessage").asText());
        String active = JSON.readTree(get(base + "/admin/policies", true).body()).path("active").asText();
        return new Phase(active, 1, false, last.path("applied").asBoolean() ? TUNED : KEPT);
    }

    /** Puts the BR parameters the demo changed back to what they were (or their defaults). */
    private void restoreBalanceParameters(String base, JsonNode initial) throws Exception {
        boolean wasBr = initial.path("active").asText().startsWith("br");
        ObjectNode params = JSON.createObjectNode();
        for (String key : List.of("horizon", "beta", "gamma")) {
            JsonNode v = wasBr ? initial.path("parameters").path(key) : null;
            if (v == null || v.isMissingNode()) {
                for (JsonNode p : initial.path("schema").path(BalancePolicy.BRH_SURVIVAL)) {
                    if (p.path("id").asText().equals(key)) {
                        v = p.path("default");
                    }
                }
            }
            if (v != null && !v.isMissingNode()) {
                params.set(key, v);
            }
        }
        HttpResponse<String> back = putPolicy(base, BalancePolicy.BRH_SURVIVAL, params);
        err.println("balanceroute demo: BR parameters restored (HTTP " + back.statusCode() + ")");
    }

    private void warmUp(List<String> targets, List<TraceRequest> workload) throws Exception {
        List<TraceRequest> warmup = workload.subList(0, Math.min(WARMUP_REQUESTS * targets.size(), workload.size()));
        err.println("balanceroute demo: warm-up: " + warmup.size() + " requests over " + targets.size()
                + " runtime(s), not measured");
        ReplayResult warm = new Replayer(targets, "balanceroute-sim", 1, 4096, null).continuousUsage(true).run(warmup);
        err.printf(Locale.ROOT, "balanceroute demo: warm-up: %d/%d completed in %.1f s%n", warm.completed(),
                warm.requests(), warm.wallSeconds());
    }

    private void switchPolicy(String base, String policy, Path logs) throws Exception {
        switchPolicy(base, policy, null, logs);
    }

    /** {@code PUT /admin/policy {"policy": policy, "parameters": parameters}}; without parameters when null. */
    private HttpResponse<String> putPolicy(String base, String policy, ObjectNode parameters) throws Exception {
        ObjectNode body = JSON.createObjectNode().put("policy", policy);
        if (parameters != null) {
            body.set("parameters", parameters);
        }
        return send(HttpRequest.newBuilder(URI.create(base + "/admin/policy"))
                .header("Authorization", AUTH).header("Content-Type", "application/json")
                .PUT(HttpRequest.BodyPublishers.ofString(JSON.writeValueAsString(body))));
    }

    /** @param parameters the parameters to set with the switch, or null */
    private void switchPolicy(String base, String policy, ObjectNode parameters, Path logs) throws Exception {
        HttpResponse<String> put = putPolicy(base, policy, parameters);
        if (put.statusCode() != 200 && put.statusCode() != 202) { // 202: written, not in force within the wait
            throw new DemoException(1, "PUT " + base + "/admin/policy " + policy + ": HTTP " + put.statusCode() + " "
                    + Replayer.errorMessage(put.body()));
        }
        long switchDeadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
        await("policy " + policy + " active at " + base, () -> policy.equals(
                JSON.readTree(get(base + "/admin/policies", true).body()).path("active").asText()), switchDeadline, logs);
    }

    /**
     * Makes the running replicas one cluster, as an operator would without a restart: the cluster
     * feature's bundles into each one's deploy/ and its configuration (member port 5701 + i, every
     * member's address) into its config/; then waits until each one's snapshot shows all N members
     * with one dispatcher.
     */
    private void joinCluster(List<Path> homes, List<String> bases, Path root, Path logs) throws Exception {
        Path feature = root.resolve("distribution/target/balanceroute/features/cluster");
        Path jars = feature.resolve("bundle");
        Path cfg = feature.resolve("config/org.balanceroute.cluster.cfg");
        if (!Files.isDirectory(jars) || !Files.isRegularFile(cfg)) {
            throw new DemoException(1, "the cluster feature is not in the distribution (" + feature
                    + "): build it with ./balanceroute run once, or mvn -B install");
        }
        StringBuilder members = new StringBuilder();
        for (int i = 0; i < homes.size(); i++) {
            members.append(i == 0 ? "" : ", ").append("127.0.0.1:").append(CLUSTER_PORT_BASE + i);
        }
        String defaults = Files.readString(cfg);
        for (int i = 0; i < homes.size(); i++) {
            Path home = homes.get(i);
            Files.createDirectories(home.resolve("config"));
            Files.writeString(home.resolve("config/org.balanceroute.cluster.cfg"), defaults
                    + "\n# written by ./balanceroute demo --replicas\nport = " + (CLUSTER_PORT_BASE + i)
                    + "\nmembers = " + members + "\n");
            Files.createDirectories(home.resolve("deploy"));
            try (var list = Files.list(jars)) {
                for (Path jar : (Iterable<Path>) list::iterator) {
                    Files.copy(jar, home.resolve("deploy").resolve(jar.getFileName()),
                            java.nio.file.StandardCopyOption.REPLACE_EXISTING);
                }
            }
        }
        err.println("balanceroute demo: the cluster feature dropped into the " + homes.size()
                + " replicas' deploy/ and config/; waiting for one membership");
        long deadline = System.nanoTime() + Duration.ofSeconds(90).toNanos();
        String[] dispatcher = new String[1];
        for (String b : bases) {
            await(b + " to see " + bases.size() + " members", () -> {
                JsonNode cluster = JSON.readTree(get(b + "/admin/snapshot", true).body()).path("cluster");
                String d = cluster.path("dispatcher").asText();
                boolean one = cluster.path("members").size() == bases.size()
                        && (dispatcher[0] == null || dispatcher[0].equals(d));
                if (one) {
                    dispatcher[0] = d;
                }
                return one;
            }, deadline, logs);
        }
        err.println("balanceroute demo: one cluster of " + bases.size() + " replicas, dispatcher " + dispatcher[0]);
    }

    private static void copyTree(Path from, Path to) throws IOException {
        if (!Files.isDirectory(from)) {
            throw new IOException("no " + from + ": build the distribution first (./balanceroute run once, or mvn -B install)");
        }
        try (var walk = Files.walk(from)) {
            for (Path p : (Iterable<Path>) walk::iterator) {
                Path target = to.resolve(from.relativize(p).toString());
                if (Files.isDirectory(p)) {
                    Files.createDirectories(target);
                } else {
                    Files.copy(p, target, java.nio.file.StandardCopyOption.REPLACE_EXISTING);
                }
            }
        }
    }

    private static void deleteTree(Path dir) throws IOException {
        if (!Files.exists(dir)) {
            return;
        }
        try (var walk = Files.walk(dir)) {
            for (Path p : (Iterable<Path>) walk.sorted(java.util.Comparator.reverseOrder())::iterator) {
                Files.delete(p);
            }
        }
    }

    /** {@code --instances}: 2..{@value #MAX_INSTANCES} when given, and not with --replicas or --tune. */
    static void checkInstances(boolean given, int instances, int replicas, boolean tune) throws UsageException {
        if (!given) {
            return;
        }
        if (instances < 2 || instances > MAX_INSTANCES) {
            throw new UsageException("--instances must be 2.." + MAX_INSTANCES + ", got " + instances);
        }
        if (replicas > 1 || tune) {
            throw new UsageException("--instances runs on one replica, not with " + (tune ? "--tune" : "--replicas"));
        }
    }

    /**
     * The time factor in force: as given, or with {@code --instances N} and none given N times the
     * default, so that the same arrivals load each of the N * 8 ranks as the default loads 8 (about
     * three times what they serve).
     */
    static double timeFactor(boolean given, double timeFactor, int instances) {
        return given || instances < 2 ? timeFactor : DEFAULT_TIME_FACTOR * instances;
    }

    /** The first port of simulated decode instance i: prefill servers there, all ranks at +99, rank g at +100+g. */
    static int simPortBase(int simBase, int instance) {
        return simBase + INSTANCE_PORT_STRIDE * instance;
    }

    /** The all-ranks endpoint of simulated decode instance i (its /health and /sim/ endpoints). */
    static String simUrl(int simBase, int instance) {
        return "http://127.0.0.1:" + (simPortBase(simBase, instance) + 99);
    }

    /**
     * The ports checked free before anything starts: the simulated cluster's (each instance's),
     * the runtimes' and, with replicas, their cluster members'.
     */
    static List<Integer> ports(int replicas, int port, int instances, int simBase) {
        List<Integer> ports = new ArrayList<>(List.of(simBase, simBase + 1, simBase + 99, simBase + 100));
        for (int i = 1; i < instances; i++) {
            ports.addAll(List.of(simPortBase(simBase, i) + 99, simPortBase(simBase, i) + 100));
        }
        for (int i = 0; i < replicas; i++) {
            ports.add(port + i);
            if (replicas > 1) {
                ports.add(CLUSTER_PORT_BASE + i);
            }
        }
        return ports;
    }

    /**
     * The {@code sim-cluster} command lines (after java and the class path), one per simulated
     * decode instance: the first with the 2 prefill servers at the default ports; each other one
     * with none, its ports {@link #INSTANCE_PORT_STRIDE} further on, taking the first one's KV
     * handles ({@code --handles-from}): one prefill tier shared by every instance.
     */
    static List<List<String>> simClusterArgs(int instances, double timeFactor, int streamInterval, int simBase) {
        List<List<String>> all = new ArrayList<>();
        for (int i = 0; i < instances; i++) {
            List<String> a = new ArrayList<>(List.of("sim-cluster", "--prefill", i == 0 ? "2" : "0", "--decode",
                    Integer.toString(RANKS_PER_INSTANCE)));
            if (i > 0 || simBase != SIM_PORT_BASE) {
                a.addAll(List.of("--port-base", Integer.toString(simPortBase(simBase, i))));
            }
            if (i > 0) {
                a.addAll(List.of("--handles-from", simUrl(simBase, 0)));
            }
            a.addAll(List.of("--time-factor", Double.toString(timeFactor), "--stream-interval",
                    Integer.toString(streamInterval)));
            all.add(a);
        }
        return all;
    }

    /**
     * The pool file of {@code --instances}: the model, the first instance's prefill servers, and
     * the {@code simInstances} * 8 decode ranks listed as {@code listed} instances: as many as
     * there are (group-aware), or 1 (flat: what a router blind to the groups sees).
     */
    static String poolFile(int listed, int simInstances, int simBase) {
        StringBuilder b = new StringBuilder();
        b.append("# written by ./balanceroute demo --instances ").append(simInstances).append(": ")
                .append(listed == 1 ? "flat, every rank as one instance" : "group-aware, one instance per barrier")
                .append("\nmodel = balanceroute-sim\naliases =\nprefillUrls = http://127.0.0.1:").append(simBase)
                .append(", http://127.0.0.1:").append(simBase + 1).append('\n');
        List<String> names = new ArrayList<>();
        for (int i = 0; i < listed; i++) {
            names.add(listed == 1 ? "flat" : "decode" + i);
        }
        b.append("instances = ").append(String.join(", ", names)).append('\n');
        int perListed = simInstances * RANKS_PER_INSTANCE / listed;
        for (int i = 0; i < listed; i++) {
            List<String> urls = new ArrayList<>();
            for (int w = i * perListed; w < (i + 1) * perListed; w++) {
                int instance = w / RANKS_PER_INSTANCE;
                urls.add("http://127.0.0.1:" + (simPortBase(simBase, instance) + 100 + w % RANKS_PER_INSTANCE));
            }
            b.append("instance.").append(names.get(i)).append(".workers = ").append(String.join(", ", urls)).append('\n');
            b.append("instance.").append(names.get(i)).append(".capacity = ").append(CAPACITY).append('\n');
        }
        return b.toString();
    }

    /**
     * Writes the pool file of {@code listed} instances into the home's config/ (whole: written
     * beside it, then moved over it; FileInstall applies it live) and waits until it is in force:
     * {@code /admin/snapshot} shows every rank as a worker of the expected instance. @return listed
     */
    private int applyLayout(Path home, String base, int listed, int simInstances, int simBase, Path logs)
            throws Exception {
        writePool(home, listed, simInstances, simBase);
        return awaitLayout(base, listed, simInstances, logs);
    }

    /** The pool file of {@code listed} instances into the home's config/, whole (written beside it, then moved). */
    private static void writePool(Path home, int listed, int simInstances, int simBase) throws IOException {
        Path next = home.resolve(POOL_FILE + ".next");
        Files.writeString(next, poolFile(listed, simInstances, simBase));
        Files.move(next, home.resolve("config").resolve(POOL_FILE), java.nio.file.StandardCopyOption.REPLACE_EXISTING,
                java.nio.file.StandardCopyOption.ATOMIC_MOVE);
    }

    /** Waits until the layout of {@code listed} instances is in force: see {@link #applyLayout}. @return listed */
    private int awaitLayout(String base, int listed, int simInstances, Path logs)
            throws Exception {
        int workers = simInstances * RANKS_PER_INSTANCE;
        String what = listed == 1 ? "flat (one instance of " + workers + ")" : listed + " instances of " + workers / listed;
        err.println("balanceroute demo: pool file: " + what + "; waiting until it is in force");
        long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
        await("the pool of " + what + " in force at " + base + " (/admin/snapshot: " + workers + " workers in "
                + listed + " instance(s))", () -> {
                    JsonNode rows = JSON.readTree(get(base + "/admin/snapshot", true).body()).path("workers");
                    if (rows.size() != workers) {
                        return false;
                    }
                    for (JsonNode w : rows) {
                        if (w.path("instance").asInt(-1) != w.path("worker").asInt() / (workers / listed)) {
                            return false;
                        }
                    }
                    return true;
                }, deadline, logs);
        err.println("balanceroute demo: pool file: " + what + " in force");
        return listed;
    }

    /**
     * One row of the comparison from the engine's ground truth ({@code GET /sim/stats}) of each
     * simulated instance: today's keys; with several instances, the imbalances and throughputs
     * summed, the p95 latencies the largest instance's, and {@code instances} (those the pool file
     * listed) and {@code groupImbalance} (each instance's) added.
     */
    static Map<String, Object> row(Phase phase, List<JsonNode> stats, int completed, int failed, int retried) {
        Map<String, Object> row = new LinkedHashMap<>();
        row.put("policy", phase.tuning() == null ? phase.policy() : label(phase));
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
                RANKS_PER_INSTANCE));
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
                    listed == 1 ? "1 x " + simInstances * RANKS_PER_INSTANCE : listed + " x " + RANKS_PER_INSTANCE));
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

    interface Check {
        boolean ok() throws Exception;
    }

    private void await(String what, Check check, long deadline, Path logs) throws Exception {
        long pause = 100;
        while (true) {
            for (Process p : children()) {
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
        pb.environment().put("BALANCEROUTE_NO_BUILD", "1"); // ./balanceroute demo built what they run
        Process p = pb.start();
        synchronized (children) {
            children.add(p);
        }
        err.println("balanceroute demo: started " + name + " (pid " + p.pid() + ", log " + log + ")");
    }

    /** A copy: Ctrl-C's shutdown hook empties the list ({@link #stopChildren}) while a loop may go through it. */
    private List<Process> children() {
        synchronized (children) {
            return List.copyOf(children);
        }
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
}
