package org.balanceroute.cli;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.net.http.HttpClient;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.balanceroute.policy.balance.BalanceSettings;
import org.balanceroute.replay.ReplayResult;
import org.balanceroute.replay.Replayer;
import org.balanceroute.simulator.RobustChoice;
import org.balanceroute.trace.Trace;
import org.balanceroute.trace.TraceFormatException;
import org.balanceroute.trace.TraceLoader;
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
 * phase ({@link DemoPhase#chartName}).
 *
 * <p>With {@code --instances N} it starts N simulated decode instances (N sim-cluster processes,
 * the first one's prefill servers shared: {@link DemoTopology#simClusterArgs}) and one runtime in a home of its
 * own, and compares jsq, br0 given every rank as one instance (flat) and br0 given the N instances
 * (group-aware), switching between them by rewriting the pool file ({@link DemoTopology#poolFile}) and waiting
 * until it is in force; each instance's engine measures its own imbalance ({@link DemoReport#row}).
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

    static final int MAX_REPLICAS = 8;
    static final int MAX_INSTANCES = 4;
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


    private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(2)).build();

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
                    + DemoTopology.INSTANCE_PORT_STRIDE + " * i); without it the runtime's pool file names 18100..; default:"
                    + " ${DEFAULT-VALUE}")
    int simPortBase = DemoTopology.SIM_PORT_BASE;

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

    /** This run's child processes and the HTTP calls to them: made when it starts, once err is set. */
    private DemoProcesses processes;
    private DemoAdmin admin;
    /** Where the processes of this run log, and their endpoints and homes, filled in as they start. */
    private Path logs;
    private final List<String> sims = new ArrayList<>();
    private final List<String> bases = new ArrayList<>();
    private final List<Path> homes = new ArrayList<>();
    /** {@code --instances}: the runtime's home of its own, whose pool file the demo rewrites; else null. */
    private Path instancesHome;

    @Override
    Hint usageHint() {
        return Hint.USAGE;
    }

    @Override
    int run() throws Exception {
        processes = new DemoProcesses(err);
        admin = new DemoAdmin(http, processes, err);
        try {
            return demo();
        } catch (DemoException e) {
            err.println("balanceroute demo: " + e.getMessage());
            return e.status;
        } finally {
            processes.stop();
        }
    }

    private int demo() throws Exception {
        checkOptions();
        List<TraceRequest> workload = workload(); // the same requests for every phase
        checkPortsFree(); // say what is in the way before starting anything

        logs = root.resolve("bundles/replay/target/demo");
        Files.createDirectories(logs);
        Runtime.getRuntime().addShutdownHook(new Thread(processes::stop, "demo-stop"));
        startSimulatedClusters();
        prepareInstancesHome();
        startRuntimes();
        int listed = awaitUp();
        err.println("balanceroute demo: cluster and runtime" + (replicas > 1 ? "s" : "") + " up; logs in "
                + logs.toAbsolutePath().normalize());
        String base = bases.get(0);

        // warm-up, not measured: the JVMs compile the hot paths (otherwise the first policy pays)
        warmUp(List.of(base), workload);

        // the policy in force before the demo, put back afterwards (PUT /admin/policy persists)
        JsonNode initial = DemoAdmin.JSON.readTree(admin.get(base + "/admin/policies", true).body());
        DemoTuning tuning = new DemoTuning(admin, processes, err, tuneParts);
        if (tune) {
            tuning.configure(root, base, timeFactor, logs);
        }
        List<Map<String, Object>> results = new ArrayList<>();
        List<Path> charts = new ArrayList<>();
        boolean othersWarm = false;
        boolean joined = false;
        for (DemoPhase phase : DemoPhase.phases(replicas, tune, instances)) {
            if (phase.instances() > 0 && phase.instances() != listed) {
                listed = admin.applyLayout(instancesHome, base, phase.instances(), instances, simPortBase, logs);
            }
            List<String> targets = phase.replicas() == 1 ? List.of(base) : bases;
            if (phase.replicas() > 1 && !othersWarm) {
                warmUp(bases, workload); // the other replicas are cold
                othersWarm = true;
            }
            if (phase.shared() && !joined) {
                admin.joinCluster(homes, bases, root, logs);
                joined = true;
                warmUp(bases, workload);
            }
            if (DemoPhase.TUNED.equals(phase.tuning())) {
                phase = tuning.tuneNow(base); // what the tuner put in force
            } else if (!DemoPhase.POOR_AGAIN.equals(phase.tuning())) { // the poor pair again: nothing to switch
                for (String b : targets) {
                    admin.switchPolicy(b, phase.policy(), DemoPhase.POOR.equals(phase.tuning())
                            ? DemoTuning.poorParameters(tuneHorizon) : null, logs);
                }
            }
            results.add(measure(phase, targets, workload, charts));
        }

        if (tune) {
            tuning.restoreBalanceParameters(base, initial);
        }
        restorePolicy(base, initial.path("active").asText());
        printReport(results, workload.size(), charts);
        if (exit) {
            return 0;
        }
        serve(base);
        return 0;
    }

    /** The checks of the options together; sets the time factor in force. */
    private void checkOptions() throws UsageException {
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
                || simPortBase + DemoTopology.INSTANCE_PORT_STRIDE * (instances - 1) + 100
                        + DemoTopology.RANKS_PER_INSTANCE > 65535)) {
            throw new UsageException(instances < 2 ? "--sim-port-base needs --instances (the runtime's own pool file"
                    + " names the default ports)" : "--sim-port-base must leave room for every instance's ports"
                    + " below 65536, got " + simPortBase);
        }
        if (requests < 1 || !(rate > 0) || !(timeFactor > 0) || streamInterval < 1 || port < 1
                || port + replicas - 1 > 65535) {
            throw new UsageException("--requests >= 1, --rate > 0, --time-factor > 0, "
                    + "--stream-interval >= 1, --port 1..65535 (and the replicas' ports after it)");
        }
    }

    /** The generator's requests, or the trace's first ones with their arrivals compressed to the same rate. */
    private List<TraceRequest> workload() throws DemoException {
        if (trace == null) {
            Trace t = new WorkloadGenerator(seed, rate).generate(requests);
            err.println("balanceroute demo: workload " + t);
            return t.requests();
        }
        Trace t;
        try {
            t = TraceLoader.load(Path.of(trace), new TraceOptions(requests, -1, 1, 4));
        } catch (TraceFormatException e) {
            throw new DemoException(1, e.getMessage());
        }
        double span = (t.size() - 1) / rate; // the same arrival rate as the generator's
        double scale = t.durationSeconds() > 0 ? t.durationSeconds() / span : 1;
        List<TraceRequest> workload = new ArrayList<>(t.size());
        for (TraceRequest r : t.requests()) {
            workload.add(new TraceRequest(r.arrivalSeconds() / scale, r.inputTokens(), r.outputTokens(), r.promptKey()));
        }
        err.printf(Locale.ROOT, "balanceroute demo: workload %s, arrivals compressed %.1fx%n", t, scale);
        return workload;
    }

    private void checkPortsFree() throws DemoException {
        for (int p : DemoTopology.ports(replicas, port, instances, simPortBase)) {
            if (DemoProcesses.listening(p)) {
                throw new DemoException(1, "port " + p + " is already in use"
                        + (p >= port && p < port + replicas ? " (another ./balanceroute run?); choose another with --port N"
                                : p >= DemoTopology.CLUSTER_PORT_BASE && p < DemoTopology.CLUSTER_PORT_BASE + replicas
                                        ? " (another cluster member?); stop it first"
                                        : " (another ./balanceroute sim-cluster or demo?); stop it first"));
            }
        }
    }

    /** The cluster (with --instances: one per decode instance) from this command line's own classpath. */
    private void startSimulatedClusters() throws IOException {
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        List<List<String>> simArgs = DemoTopology.simClusterArgs(instances, timeFactor, streamInterval, simPortBase);
        for (int i = 0; i < simArgs.size(); i++) {
            List<String> command = new ArrayList<>(List.of(java, "-cp", System.getProperty("java.class.path"),
                    Main.class.getName()));
            command.addAll(simArgs.get(i));
            processes.start(i == 0 ? "sim-cluster" : "sim-cluster-" + i, logs, command);
            sims.add(DemoTopology.simUrl(simPortBase, i));
        }
    }

    /**
     * {@code --instances}: a fresh home of its own, whose pool file the demo rewrites (the
     * distribution's stays as it is): its config/ from the distribution's, the pool file listing
     * every instance as it is, so the runtime starts on this topology (and never health-checks the
     * default ports, where something else may run).
     */
    private void prepareInstancesHome() throws IOException {
        instancesHome = instances > 1 ? logs.resolve("instances-home") : null;
        if (instancesHome != null) {
            deleteTree(instancesHome);
            copyTree(root.resolve("distribution/target/balanceroute/config"), instancesHome.resolve("config"));
            DemoAdmin.writePool(instancesHome, instances, instances, simPortBase);
        }
    }

    private void startRuntimes() throws IOException {
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
            processes.start(replicas > 1 ? "runtime-" + i : "runtime", logs, command);
            bases.add("http://127.0.0.1:" + p);
        }
    }

    /** Waits until every cluster and runtime answers. @return the instances the pool file lists (0 without --instances) */
    private int awaitUp() throws Exception {
        long deadline = System.nanoTime() + Duration.ofSeconds(120).toNanos();
        for (String u : sims) {
            processes.await("the simulated cluster (" + u + "/health)",
                    () -> admin.get(u + "/health", false).statusCode() == 200, deadline, logs);
        }
        int listed = 0;
        for (String b : bases) {
            processes.await("the admin API (" + b + "/admin/policies)",
                    () -> admin.get(b + "/admin/policies", true).statusCode() == 200, deadline, logs);
            if (instancesHome != null) { // --instances: every instance in the pool file, as they are
                listed = admin.awaitLayout(b, instances, instances, logs);
            }
            processes.await("the proxy (" + b + "/health)", () -> admin.get(b + "/health", false).statusCode() == 200,
                    deadline, logs);
        }
        return listed;
    }

    /**
     * One phase measured: the engines' stats reset, the workload replayed through the targets,
     * each engine's ground truth and load series read (a chart each). @return the phase's row
     */
    private Map<String, Object> measure(DemoPhase phase, List<String> targets, List<TraceRequest> workload,
            List<Path> charts) throws Exception {
        for (String u : sims) {
            admin.resetStats(u);
        }
        String label = phase.label();
        err.println("balanceroute demo: " + label + ": replaying " + workload.size() + " requests through "
                + String.join(", ", targets));
        Replayer replayer = new Replayer(targets, "balanceroute-sim", 1, 4096, err).continuousUsage(true);
        ReplayResult replay = replayer.run(workload);
        List<JsonNode> allStats = new ArrayList<>();
        for (int i = 0; i < sims.size(); i++) {
            String u = sims.get(i);
            allStats.add(DemoAdmin.JSON.readTree(admin.get(u + "/sim/stats", false).body()));
            HttpResponse<String> series = admin.get(u + "/sim/series", false);
            if (series.statusCode() == 200) {
                Path png = DemoReport.writeChart(logs, phase, DemoAdmin.JSON.readTree(series.body()), workload.size(),
                        sims.size() > 1 ? i : -1);
                charts.add(png);
                err.println("balanceroute demo: " + label + ": engine-measured KV load per rank in " + png);
            } else {
                err.println("balanceroute demo: " + label + ": no load chart (GET " + u + "/sim/series: HTTP "
                        + series.statusCode() + ")");
            }
        }
        Map<String, Object> row = DemoReport.row(phase, allStats, replay.completed(), replay.failed(), replay.retried());
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
            printStaleness(label);
        }
        return row;
    }

    /** Each replica's view staleness, as its snapshot reports it. */
    private void printStaleness(String label) throws Exception {
        for (String b : bases) {
            JsonNode cluster = DemoAdmin.JSON.readTree(admin.get(b + "/admin/snapshot", true).body()).path("cluster");
            err.printf(Locale.ROOT, "balanceroute demo: %s: view staleness on %s (%s): p50 %.1f ms, p99 %.1f ms"
                    + " over the last %d samples%n", label, b,
                    cluster.path("dispatcher").asText().equals(cluster.path("localMember").asText())
                            ? "the dispatcher: followers' events until applied" : "a follower: until in its view",
                    cluster.path("staleness").path("p50Millis").asDouble(),
                    cluster.path("staleness").path("p99Millis").asDouble(),
                    cluster.path("staleness").path("samples").asInt());
        }
    }

    /** The policy in force before the demo, when the demo left another one (fresh homes need nothing). */
    private void restorePolicy(String base, String initialPolicy) throws Exception {
        String last = DemoPhase.phases(replicas, tune).get(DemoPhase.phases(replicas, tune).size() - 1).policy();
        if (!initialPolicy.isEmpty() && (tune || !initialPolicy.equals(last)) && replicas == 1
                && instances == 1) { // replicas, instances: fresh homes
            HttpResponse<String> back = admin.putPolicy(base, initialPolicy, null);
            err.println("balanceroute demo: policy " + initialPolicy + " restored (HTTP " + back.statusCode() + ")");
        }
    }

    private void printReport(List<Map<String, Object>> results, int n, List<Path> charts) throws IOException {
        String workloadName = trace == null ? "the built-in generator (seed " + seed + ")" : trace;
        if (json) {
            System.out.println(DemoReport.resultsJson(results));
        } else if (instances > 1) {
            System.out.print(DemoReport.instancesTable(results, n, workloadName, instances));
        } else {
            System.out.print(DemoReport.table(results, n, workloadName));
        }
        System.out.flush();
        if (!charts.isEmpty()) {
            err.println("balanceroute demo: per-rank KV load charts (engine-measured) in "
                    + logs.toAbsolutePath().normalize() + ": "
                    + String.join(", ", charts.stream().map(p -> p.getFileName().toString()).toList()));
        }
    }

    /** Keeps every process serving until Ctrl-C. */
    private void serve(String base) throws InterruptedException {
        err.println("balanceroute demo: still serving for exploration (Ctrl-C stops every process):");
        err.println("  proxy        " + base + "/v1/completions, " + base + "/v1/chat/completions"
                + (replicas > 1 ? " (and the other replicas' ports)" : ""));
        err.println("  admin        curl -u admin:admin " + base + "/admin/snapshot");
        err.println("  web console  " + base + "/system/console (admin/admin)");
        for (String u : sims) {
            err.println("  cluster      " + u + "/sim/stats");
        }
        processes.waitForAll();
    }

    private void warmUp(List<String> targets, List<TraceRequest> workload) throws Exception {
        List<TraceRequest> warmup = workload.subList(0, Math.min(WARMUP_REQUESTS * targets.size(), workload.size()));
        err.println("balanceroute demo: warm-up: " + warmup.size() + " requests over " + targets.size()
                + " runtime(s), not measured");
        ReplayResult warm = new Replayer(targets, "balanceroute-sim", 1, 4096, null).continuousUsage(true).run(warmup);
        err.printf(Locale.ROOT, "balanceroute demo: warm-up: %d/%d completed in %.1f s%n", warm.completed(),
                warm.requests(), warm.wallSeconds());
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
}
