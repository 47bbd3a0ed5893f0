package org.balanceroute.itests;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.stream.Stream;

/**
 * One BalanceRoute runtime as an operator runs it: a real process started with
 * {@code ./balanceroute run --port N --home DIR [--cluster-port M --cluster-members LIST]} from the
 * built distribution (or with an unpacked release's {@code bin/balanceroute-runtime}), its home prepared with a connector configuration that points at the test's
 * simulated cluster. Talks to it over HTTP only.
 */
final class RuntimeProcess implements AutoCloseable {

    static final ObjectMapper JSON = new ObjectMapper();
    private static final String AUTH = "Basic " + Base64.getEncoder()
            .encodeToString("admin:admin".getBytes(StandardCharsets.UTF_8));
    private static final HttpClient HTTP = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(2)).build();

    final String name;
    final int httpPort;
    final int clusterPort;
    final Path home;
    /** The installed release it runs from; null: the source tree's distribution. */
    private final Path installation;
    /** The environment of an installed release's start: PATH and JAVA_HOME only (see {@link #hostTools}). */
    private Map<String, String> hostEnvironment;
    private Process process;
    private volatile boolean stopped;
    private String javaOpts = "-Xmx512m";

    /**
     * @param poolConfig the home's {@code org.balanceroute.pool-default.cfg} (the engines: {@link #poolConfig})
     */
    RuntimeProcess(String name, Path work, String poolConfig) throws IOException {
        this(null, name, work, poolConfig);
    }

    /**
     * A runtime of an installed release ({@code installation}, an unpacked archive), started with its
     * own {@code bin/balanceroute-runtime} as a host with only a Java runtime runs it; null: the
     * source tree's {@code ./balanceroute run}.
     */
    RuntimeProcess(Path installation, String name, Path work, String poolConfig) throws IOException {
        this.installation = installation;
        this.name = name;
        this.httpPort = freePort();
        this.clusterPort = freePort();
        this.home = work.resolve(name);
        Path config = home.resolve("config");
        Files.createDirectories(config);
        try (Stream<Path> files = Files.list((installation == null ? distribution() : installation).resolve("config"))) {
            for (Path f : (Iterable<Path>) files::iterator) {
                Files.copy(f, config.resolve(f.getFileName()), StandardCopyOption.REPLACE_EXISTING);
            }
        }
        Files.writeString(config.resolve(POOL_FILE), poolConfig);
    }

    /**
     * Writes a file that a running runtime's FileInstall watches in one step (a new file beside its
     * home, then moved over it): written in place, a poll could fall between the truncation and the
     * write and apply an empty or half configuration.
     */
    static void writeWatched(Path file, String text) throws IOException {
        Path tmp = Files.createTempFile(file.getParent().getParent(), file.getFileName().toString(), ".tmp");
        Files.writeString(tmp, text);
        Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
    }

    /**
     * A property of a configuration as ConfigAdmin holds it (the web console's view), null while it
     * holds none.
     */
    String configValue(String pid, String property) {
        try {
            HttpResponse<String> r = get("/system/console/configMgr/" + pid + ".json");
            JsonNode p = r.statusCode() == 200 ? JSON.readTree(r.body()).path(0).path("properties").path(property) : null;
            return p == null || !p.path("is_set").asBoolean() ? null : p.path("value").asText(null);
        } catch (IOException e) {
            return null;
        }
    }

    /** The pool {@code default}'s file in a home's config/. */
    static final String POOL_FILE = "org.balanceroute.pool-default.cfg";

    /** Sets connector properties (e.g. {@code healthIntervalMillis = 200}) in the home's connector file before the start. */
    RuntimeProcess connector(String lines) throws IOException {
        Path cfg = home.resolve("config").resolve("org.balanceroute.connector.vllm.cfg");
        Files.writeString(cfg, Files.readString(cfg) + "\n" + lines + "\n");
        return this;
    }

    static Path distribution() {
        return Path.of(System.getProperty("balanceroute.dist.dir"));
    }

    static Path root() {
        return Path.of(System.getProperty("balanceroute.root"));
    }

    static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        }
    }

    /** JVM options of the next {@link #start} ({@code BALANCEROUTE_JAVA_OPTS}; default {@code -Xmx512m}). */
    RuntimeProcess javaOpts(String opts) {
        this.javaOpts = opts;
        return this;
    }

    /** Starts it; with {@code members} non-null as a cluster member on {@link #clusterPort}. */
    RuntimeProcess start(String members) throws IOException {
        List<String> command = new ArrayList<>(installation == null
                ? List.of(root().resolve("balanceroute").toString(), "run")
                : List.of(installation.resolve("bin/balanceroute-runtime").toString()));
        command.addAll(List.of("--port", Integer.toString(httpPort), "--home", home.toString()));
        if (members != null) {
            command.addAll(List.of("--cluster-port", Integer.toString(clusterPort), "--cluster-members", members));
        }
        ProcessBuilder pb = new ProcessBuilder(command).redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(home.resolve("runtime.log").toFile()));
        if (installation == null) {
            pb.environment().put("BALANCEROUTE_NO_BUILD", "1"); // the build that runs this test built it
        } else {
            if (hostEnvironment == null) {
                hostEnvironment = hostEnvironment(home.resolveSibling(name + "-host-tools"));
            }
            pb.environment().clear();
            pb.environment().putAll(hostEnvironment);
        }
        pb.environment().put("BALANCEROUTE_JAVA_OPTS", javaOpts);
        process = pb.start();
        return this;
    }

    /**
     * The tools a host needs to run an installed release, besides a Java runtime: its start script's
     * (bash and a few coreutils). No Maven, no git, no network tool.
     */
    static final List<String> HOST_TOOLS = List.of("bash", "awk", "cat", "cmp", "cp", "dirname", "mkdir", "mktemp", "mv",
            "sed", "tail");

    /**
     * An environment with nothing but PATH, a folder {@code tools} of links to {@link #HOST_TOOLS}, and
     * JAVA_HOME, this test's own Java runtime: what the start script may use, and all of it.
     */
    static Map<String, String> hostEnvironment(Path tools) throws IOException {
        Files.createDirectories(tools);
        for (String tool : HOST_TOOLS) {
            Path target = Stream.of("/usr/bin", "/bin").map(d -> Path.of(d, tool)).filter(Files::isExecutable).findFirst()
                    .orElseThrow(() -> new IOException(tool + " not found in /usr/bin or /bin"));
            Path link = tools.resolve(tool);
            if (!Files.exists(link, LinkOption.NOFOLLOW_LINKS)) {
                Files.createSymbolicLink(link, target);
            }
        }
        return Map.of("PATH", tools.toString(), "JAVA_HOME", System.getProperty("java.home"));
    }

    /**
     * Waits until the admin API and the proxy answer. A runtime that does not come up is stopped
     * before the failure is thrown: callers write {@code x = new RuntimeProcess(...).start(m).awaitUp()},
     * so x stays null and their clean-up cannot stop it, and a runtime left running would take the
     * CPU of every later test (a tally run under load: one start too slow, then the next class too).
     */
    RuntimeProcess awaitUp() throws InterruptedException {
        try {
            await(name + " up", Duration.ofSeconds(90), () -> {
                try {
                    return get("/admin/policies").statusCode() == 200;
                } catch (IOException e) {
                    return false;
                }
            });
        } catch (AssertionError notUp) {
            String log = logTail();
            close();
            throw new AssertionError(notUp.getMessage() + "; its log's tail:\n" + log, notUp);
        }
        return this;
    }

    boolean alive() {
        return process != null && process.isAlive();
    }

    long pid() {
        return process.pid();
    }

    /**
     * {@code kill -STOP}: the JVM is frozen where it is, every thread at once. Its sockets stay
     * open but nothing reads or writes them, so to the other replicas it is a member cut off by a
     * partition (no heartbeat, no answer, no closed connection), and to itself, once resumed, the
     * whole cluster went silent: what a host behind a broken link sees. ({@code ./balanceroute run}
     * execs the JVM, so this process is the JVM itself.) Unlike a cut link it also stops serving its
     * own clients until {@link #resume()}.
     */
    void suspend() throws IOException, InterruptedException {
        signal("STOP");
        stopped = true;
    }

    /** {@code kill -CONT}: the frozen JVM runs on from where it stood. */
    void resume() throws IOException, InterruptedException {
        signal("CONT");
        stopped = false;
    }

    private void signal(String name) throws IOException, InterruptedException {
        // ProcessHandle can only terminate a process; kill(1) sends any signal
        Process kill = new ProcessBuilder("kill", "-" + name, Long.toString(process.pid())).redirectErrorStream(true).start();
        String out = new String(kill.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!kill.waitFor(10, TimeUnit.SECONDS) || kill.exitValue() != 0) {
            throw new IOException("kill -" + name + " " + process.pid() + " failed: " + out);
        }
    }

    /** SIGTERM, as systemd stops a service: waits for the exit (a 30 s hang bound) and returns its status. */
    int terminate() throws InterruptedException {
        process.destroy();
        if (!process.waitFor(30, TimeUnit.SECONDS)) {
            throw new AssertionError(name + " still running 30 s after SIGTERM:\n" + logTail());
        }
        return process.exitValue();
    }

    /** {@code kill -9}: no shutdown hook, no goodbye to the cluster. */
    void kill9() throws InterruptedException {
        process.destroyForcibly();
        process.waitFor(20, TimeUnit.SECONDS);
    }

    @Override
    public void close() throws InterruptedException {
        if (process != null && process.isAlive()) {
            if (stopped) {
                try {
                    resume(); // a stopped JVM would hold SIGTERM until it runs again
                } catch (IOException e) {
                    process.destroyForcibly();
                }
            }
            process.destroy();
            if (!process.waitFor(20, TimeUnit.SECONDS)) {
                process.destroyForcibly();
            }
        }
    }

    String base() {
        return "http://127.0.0.1:" + httpPort;
    }

    HttpResponse<String> get(String path) throws IOException {
        return send(HttpRequest.newBuilder(URI.create(base() + path)).header("Authorization", AUTH).GET());
    }

    HttpResponse<String> put(String path, String json) throws IOException {
        return send(HttpRequest.newBuilder(URI.create(base() + path)).header("Authorization", AUTH)
                .header("Content-Type", "application/json").PUT(HttpRequest.BodyPublishers.ofString(json)));
    }

    /**
     * Reads a streamed completion's events to the end: the completion tokens of its final usage,
     * -1 when it did not end with [DONE], -2 when an event was an error or not JSON.
     */
    static int completionTokens(java.util.stream.Stream<String> lines) {
        int[] tokens = {-1};
        boolean[] done = {false};
        lines.forEach(line -> {
            if (line.equals("data: [DONE]")) {
                done[0] = true;
            } else if (line.startsWith("data: ")) {
                try {
                    JsonNode chunk = JSON.readTree(line.substring(6));
                    if (chunk.has("error")) {
                        tokens[0] = -2;
                    } else if (chunk.path("usage").has("completion_tokens") && tokens[0] != -2) {
                        tokens[0] = chunk.path("usage").path("completion_tokens").asInt();
                    }
                } catch (IOException e) {
                    tokens[0] = -2;
                }
            }
        });
        return done[0] ? tokens[0] : -1;
    }

    /** An admin POST without a body (e.g. a drain). */
    HttpResponse<String> post(String path) throws IOException {
        return send(HttpRequest.newBuilder(URI.create(base() + path)).header("Authorization", AUTH)
                .POST(HttpRequest.BodyPublishers.noBody()));
    }

    private static HttpResponse<String> send(HttpRequest.Builder b) throws IOException {
        try {
            return HTTP.send(b.timeout(Duration.ofSeconds(10)).build(), HttpResponse.BodyHandlers.ofString());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted", e);
        }
    }

    /** {@code GET /admin/snapshot}, parsed; null while it does not answer. */
    JsonNode snapshot() {
        try {
            HttpResponse<String> r = get("/admin/snapshot");
            return r.statusCode() == 200 ? JSON.readTree(r.body()) : null;
        } catch (IOException e) {
            return null;
        }
    }

    /** The snapshot shows no load: nothing running, queued, holding KV or waiting in the pool. */
    boolean idle() {
        JsonNode s = snapshot();
        return s != null && s.path("totals").path("running").asLong() == 0 && s.path("totals").path("queued").asLong() == 0
                && s.path("totals").path("load").asLong() == 0 && s.path("poolDepth").asLong() == 0;
    }

    void awaitIdle(Duration timeout) throws InterruptedException {
        await(name + "'s snapshot back to no load (" + (snapshot() == null ? "no snapshot" : snapshot().path("totals"))
                + ")", timeout, this::idle);
    }

    /** The pool {@code default} over the first {@code prefill} prefill servers and {@code decode} ranks of a cluster, as one instance. */
    static String poolConfig(org.balanceroute.enginesim.SimCluster engines, int prefill, int decode) {
        return poolConfig(java.util.stream.IntStream.range(0, prefill).mapToObj(engines::prefillUrl)
                .collect(java.util.stream.Collectors.joining(", ")),
                java.util.stream.IntStream.range(0, decode).mapToObj(engines::decodeUrl)
                .collect(java.util.stream.Collectors.joining(", ")));
    }

    /** The pool {@code default} (model {@code balanceroute-sim}) of these prefill instances and one decode instance of these workers, B 64. */
    static String poolConfig(String prefillUrls, String decodeWorkers) {
        return "model = balanceroute-sim\nprefillUrls = " + prefillUrls + "\ninstances = decode\n"
                + "instance.decode.workers = " + decodeWorkers + "\ninstance.decode.capacity = 64\n";
    }

    /** The replicas' status, the snapshot's "cluster" section; a missing node while it does not answer. */
    JsonNode replicasStatus() {
        JsonNode s = snapshot();
        return s == null ? JSON.missingNode() : s.path("cluster");
    }

    String activePolicy() {
        try {
            return JSON.readTree(get("/admin/policies").body()).path("active").asText();
        } catch (IOException e) {
            return "";
        }
    }

    /** The tail of its log, for a failure message. */
    String logTail() {
        try {
            List<String> lines = Files.readAllLines(home.resolve("runtime.log"));
            return String.join("\n", lines.subList(Math.max(0, lines.size() - 40), lines.size()));
        } catch (IOException e) {
            return "(no log: " + e + ")";
        }
    }

    static void await(String what, Duration timeout, BooleanSupplier condition) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("timed out waiting for " + what);
            }
            Thread.sleep(50);
        }
    }
}
