package org.balanceroute.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.io.PrintStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Base64;
import java.util.List;
import org.balanceroute.replay.Replayer;

/**
 * The runtimes and the simulated clusters as {@code ./balanceroute demo} drives them over HTTP:
 * the admin API (policy switches, the snapshot), the engine's stats, and the live changes an
 * operator would make (the pool file of {@code --instances}, the cluster feature dropped in).
 */
final class DemoAdmin {

    static final ObjectMapper JSON = new ObjectMapper();
    static final String AUTH = "Basic " + Base64.getEncoder()
            .encodeToString("admin:admin".getBytes(StandardCharsets.UTF_8));

    private final HttpClient http;
    private final DemoProcesses processes;
    private final PrintStream err;

    DemoAdmin(HttpClient http, DemoProcesses processes, PrintStream err) {
        this.http = http;
        this.processes = processes;
        this.err = err;
    }

    HttpResponse<String> get(String url, boolean auth) throws IOException, InterruptedException {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(10)).GET();
        if (auth) {
            b.header("Authorization", AUTH);
        }
        return http.send(b.build(), HttpResponse.BodyHandlers.ofString());
    }

    HttpResponse<String> send(HttpRequest.Builder b) throws IOException, InterruptedException {
        return http.send(b.timeout(Duration.ofSeconds(30)).build(), HttpResponse.BodyHandlers.ofString());
    }

    /** {@code PUT /admin/policy {"policy": policy, "parameters": parameters}}; without parameters when null. */
    HttpResponse<String> putPolicy(String base, String policy, ObjectNode parameters) throws Exception {
        ObjectNode body = JSON.createObjectNode().put("policy", policy);
        if (parameters != null) {
            body.set("parameters", parameters);
        }
        return send(HttpRequest.newBuilder(URI.create(base + "/admin/policy"))
                .header("Authorization", AUTH).header("Content-Type", "application/json")
                .PUT(HttpRequest.BodyPublishers.ofString(JSON.writeValueAsString(body))));
    }

    /** @param parameters the parameters to set with the switch, or null */
    void switchPolicy(String base, String policy, ObjectNode parameters, Path logs) throws Exception {
        HttpResponse<String> put = putPolicy(base, policy, parameters);
        if (put.statusCode() != 200 && put.statusCode() != 202) { // 202: written, not in force within the wait
            throw new DemoException(1, "PUT " + base + "/admin/policy " + policy + ": HTTP " + put.statusCode() + " "
                    + Replayer.errorMessage(put.body()));
        }
        long switchDeadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
        processes.await("policy " + policy + " active at " + base, () -> policy.equals(
                JSON.readTree(get(base + "/admin/policies", true).body()).path("active").asText()), switchDeadline, logs);
    }

    /** {@code POST /sim/stats/reset}: the engine's ground truth from now on. */
    void resetStats(String sim) throws Exception {
        HttpResponse<String> reset = send(HttpRequest.newBuilder(URI.create(sim + "/sim/stats/reset"))
                .POST(HttpRequest.BodyPublishers.noBody()));
        if (reset.statusCode() / 100 != 2) {
            throw new DemoException(1, "POST " + sim + "/sim/stats/reset: HTTP " + reset.statusCode());
        }
    }

    /**
     * Makes the running replicas one cluster, as an operator would without a restart: the cluster
     * feature's bundles into each one's deploy/ and its configuration (member port 5701 + i, every
     * member's address) into its config/; then waits until each one's snapshot shows all N members
     * with one dispatcher.
     */
    void joinCluster(List<Path> homes, List<String> bases, Path root, Path logs) throws Exception {
        Path feature = root.resolve("distribution/target/balanceroute/features/cluster");
        Path jars = feature.resolve("bundle");
        Path cfg = feature.resolve("config/org.balanceroute.cluster.cfg");
        if (!Files.isDirectory(jars) || !Files.isRegularFile(cfg)) {
            throw new DemoException(1, "the cluster feature is not in the distribution (" + feature
                    + "): build it with ./balanceroute run once, or mvn -B install");
        }
        StringBuilder members = new StringBuilder();
        for (int i = 0; i < homes.size(); i++) {
            members.append(i == 0 ? "" : ", ").append("127.0.0.1:").append(DemoTopology.CLUSTER_PORT_BASE + i);
        }
        String defaults = Files.readString(cfg);
        for (int i = 0; i < homes.size(); i++) {
            Path home = homes.get(i);
            Files.createDirectories(home.resolve("config"));
            Files.writeString(home.resolve("config/org.balanceroute.cluster.cfg"), defaults
                    + "\n# written by ./balanceroute demo --replicas\nport = " + (DemoTopology.CLUSTER_PORT_BASE + i)
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
            processes.await(b + " to see " + bases.size() + " members", () -> {
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

    /**
     * Writes the pool file of {@code listed} instances into the home's config/ (whole: written
     * beside it, then moved over it; FileInstall applies it live) and waits until it is in force:
     * {@code /admin/snapshot} shows every rank as a worker of the expected instance. @return listed
     */
    int applyLayout(Path home, String base, int listed, int simInstances, int simBase, Path logs)
            throws Exception {
        writePool(home, listed, simInstances, simBase);
        return awaitLayout(base, listed, simInstances, logs);
    }

    /** The pool file of {@code listed} instances into the home's config/, whole (written beside it, then moved). */
    static void writePool(Path home, int listed, int simInstances, int simBase) throws IOException {
        Path next = home.resolve(DemoTopology.POOL_FILE + ".next");
        Files.writeString(next, DemoTopology.poolFile(listed, simInstances, simBase));
        Files.move(next, home.resolve("config").resolve(DemoTopology.POOL_FILE),
                java.nio.file.StandardCopyOption.REPLACE_EXISTING, java.nio.file.StandardCopyOption.ATOMIC_MOVE);
    }

    /** Waits until the layout of {@code listed} instances is in force: see {@link #applyLayout}. @return listed */
    int awaitLayout(String base, int listed, int simInstances, Path logs)
            throws Exception {
        int workers = simInstances * DemoTopology.RANKS_PER_INSTANCE;
        String what = listed == 1 ? "flat (one instance of " + workers + ")" : listed + " instances of " + workers / listed;
        err.println("balanceroute demo: pool file: " + what + "; waiting until it is in force");
        long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
        processes.await("the pool of " + what + " in force at " + base + " (/admin/snapshot: " + workers + " workers in "
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
}
