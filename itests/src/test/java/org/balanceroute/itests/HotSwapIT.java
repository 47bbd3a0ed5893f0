package org.balanceroute.itests;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.balanceroute.enginesim.SimCluster;
import org.balanceroute.enginesim.SimConfig;
import org.balanceroute.replay.ReplayResult;
import org.balanceroute.replay.RequestOutcome;
import org.balanceroute.replay.Replayer;
import org.balanceroute.trace.TraceRequest;
import org.balanceroute.trace.WorkloadGenerator;
import org.junit.AfterClass;
import org.junit.BeforeClass;
import org.junit.FixMethodOrder;
import org.junit.Test;
import org.junit.runners.MethodSorters;

/**
 * Hot swaps under load against a real runtime process: while a replay of 3,000 requests streams
 * through the proxy, the policy is switched 20 times between br0, brh-survival and jsq (with BR
 * parameter changes), a policy bundle is installed, updated, uninstalled and reinstalled through
 * {@code deploy/}, and the survival predictor's bundle is updated (the web console's bundle
 * update, {@code Bundle.update()} from its location): every request must complete with its full
 * token count. Then the connector, router and proxy bundles are updated the same way, each during
 * a shorter replay, and what happens is measured and printed: nothing may hang and the runtime must
 * serve again afterwards. During a connector or router update no request may be refused (the proxy
 * holds new ones, and the old router's pool is submitted to the new one): each completes with its
 * full token count, or, a stream in flight that outlived the connector's drain, ends with an in-band
 * error. The proxy bundle holds the door itself: during its update a failure must be a clear HTTP
 * error (404 while the servlet is away), an in-band error or a refused connection.
 */
@FixMethodOrder(MethodSorters.NAME_ASCENDING)
public class HotSwapIT {

    static final String MODEL = "balanceroute-sim";
    static final String AUTH = "Basic " + Base64.getEncoder().encodeToString("admin:admin".getBytes(StandardCharsets.UTF_8));
    private static final HttpClient HTTP = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();

    private static SimCluster engines;
    private static RuntimeProcess runtime;

    @BeforeClass
    public static void start() throws Exception {
        engines = SimCluster.start(SimConfig.builder().prefill(2).decode(8).portBase(0).timeFactor(0.01).build());
        Path work = Files.createTempDirectory(Path.of(System.getProperty("java.io.tmpdir")), "balanceroute-hotswap");
        String pool = RuntimeProcess.poolConfig(engines, 2, 8);
        // changes follow each other quickly: FileInstall's write-back off (docs/runtime.md: Configuration)
        runtime = new RuntimeProcess("hotswap", work, pool)
                .javaOpts("-Xmx768m -Dfelix.fileinstall.enableConfigSave=false").start(null).awaitUp();
    }

    @AfterClass
    public static void stop() throws Exception {
        if (runtime != null) {
            runtime.close();
        }
        if (engines != null) {
            engines.close();
        }
    }

    /** The built-in workload, shortened to keep the test within a minute: prompts up to 2,000, outputs up to 40 tokens. */
    static List<TraceRequest> workload(int n, double rate, long seed) {
        return new WorkloadGenerator(seed, rate).generate(n).requests().stream()
                .map(t -> new TraceRequest(t.arrivalSeconds(), Math.min(t.inputTokens(), 2000),
                        Math.min(t.outputTokens(), 40), t.promptKey())).toList();
    }

    static CompletableFuture<ReplayResult> replay(List<TraceRequest> requests) {
        return CompletableFuture.supplyAsync(() -> {
            try {
                return new Replayer(runtime.base(), MODEL, 1, 256, null).continuousUsage(true).run(requests);
            } catch (InterruptedException e) {
                throw new IllegalStateException(e);
            }
        });
    }

    @Test
    public void a_switchesRetunesAndBundleChurnDuringA3000RequestReplayLoseNothing() throws Exception {
        List<TraceRequest> requests = workload(3000, 100, 12);
        CompletableFuture<ReplayResult> replay = replay(requests);
        RuntimeProcess.await("the replay streaming", Duration.ofSeconds(30), () -> running() > 0);
        Path deploy = runtime.home.resolve("deploy");
        Path example = Path.of(System.getProperty("balanceroute.example.bundle"));
        Path deployed = deploy.resolve(example.getFileName());
        String[] policies = {"br0", "brh-survival", "jsq"};
        List<String> log = new ArrayList<>();
        int switches = 0;
        long t0 = System.nanoTime();
        for (int i = 0; i < 20; i++) {
            String policy = policies[i % 3];
            String params = policy.equals("jsq") ? "{}" : "{\"rMax\": " + (i % 2 == 0 ? 4 : 8) + ", \"beta\": "
                    + (i % 2 == 0 ? 20 : 14.67) + "}";
            HttpResponse<String> r = runtime.put("/admin/policy", "{\"policy\": \"" + policy + "\", \"parameters\": "
                    + params + "}");
            assertEquals(r.body(), 200, r.statusCode());
            switches++;
            log.add(String.format("%.1fs %s %s", (System.nanoTime() - t0) / 1e9, policy, params));
            switch (i) {
                case 3 -> {
                    Files.copy(example, deployed, StandardCopyOption.REPLACE_EXISTING);
                    awaitAvailable("least-running", true);
                    assertEquals(200, runtime.put("/admin/policy", "{\"policy\": \"least-running\"}").statusCode());
                    log.add("policy bundle installed through deploy/, least-running active");
                }
                case 5 -> {
                    long id = bundleId("org.balanceroute.policy.example");
                    List<String> before = serviceIds(id);
                    assertTrue("the example bundle's services " + before, !before.isEmpty());
                    Path tmp = deploy.resolve(".tmp-example");
                    Files.copy(example, tmp, StandardCopyOption.REPLACE_EXISTING);
                    Files.move(tmp, deployed, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
                    // updated in place: the same bundle, its services registered anew by the restart
                    RuntimeProcess.await("the policy bundle updated in place, active", Duration.ofSeconds(20), () -> {
                        List<String> now = serviceIds(id);
                        return id == bundleId("org.balanceroute.policy.example")
                                && state("org.balanceroute.policy.example").equals("Active")
                                && !now.isEmpty() && now.stream().noneMatch(before::contains);
                    });
                    awaitAvailable("least-running", true);
                    log.add("policy bundle overwritten in deploy/ (updated)");
                }
                case 8 -> {
                    assertEquals(200, runtime.put("/admin/policy", "{\"policy\": \"least-running\"}").statusCode());
                    Files.delete(deployed);
                    awaitAvailable("least-running", false);
                    RuntimeProcess.await("the fallback in force", Duration.ofSeconds(10),
                            () -> runtime.activePolicy().equals("jsq"));
                    log.add("active policy bundle deleted from deploy/ (uninstalled): fallback jsq");
                    Files.copy(example, deployed, StandardCopyOption.REPLACE_EXISTING);
                    awaitAvailable("least-running", true);
                    RuntimeProcess.await("the configured policy back", Duration.ofSeconds(10),
                            () -> runtime.activePolicy().equals("least-running"));
                    log.add("policy bundle copied back (reinstalled): least-running active again");
                }
                case 13, 16 -> {
                    updateBundle("org.balanceroute.predictor.survival");
                    // the bundle is active before its components are: brh-survival (which needs the
                    // predictor) is registered again a moment later, and a switch to it before that is 400
                    awaitAvailable("brh-survival", true);
                    log.add("predictor bundle org.balanceroute.predictor.survival updated while " + policy + " active");
                }
                default -> {
                }
            }
        }
        assertEquals(200, runtime.put("/admin/policy", "{\"policy\": \"br0\", \"parameters\": {\"rMax\": 8, \"beta\": 14.67}}")
                .statusCode());
        ReplayResult result = replay.get(240, TimeUnit.SECONDS);
        System.out.printf("HotSwapIT: %d switches and the bundle churn during a replay of %d: %d completed, %d failed,"
                + " %d of %d tokens, %.1f s%n  %s%n", switches, result.requests(), result.completed(), result.failed(),
                result.outputTokens(), result.expectedOutputTokens(), result.wallSeconds(), String.join("\n  ", log));
        assertEquals("failed: " + result.errors(), 0, result.failed());
        assertEquals(3000, result.completed());
        assertEquals("every request with its full token count", result.expectedOutputTokens(), result.outputTokens());
        awaitIdle();
    }

    @Test
    public void b_updatingTheConnectorOrRouterBundleUnderLoadRefusesNothingAndTheProxyBundleEndsEveryRequestClearly() throws Exception {
        for (String bundle : new String[] {"org.balanceroute.connector.vllm", "org.balanceroute.router", "org.balanceroute.proxy"}) {
            List<TraceRequest> requests = workload(400, 80, bundle.hashCode());
            CompletableFuture<ReplayResult> replay = replay(requests);
            RuntimeProcess.await("the replay streaming", Duration.ofSeconds(30), () -> running() > 0);
            long t0 = System.nanoTime();
            updateBundle(bundle);
            RuntimeProcess.await(bundle + " serving again", Duration.ofSeconds(60), HotSwapIT::serves);
            double back = (System.nanoTime() - t0) / 1e9;
            ReplayResult result = replay.get(180, TimeUnit.SECONDS); // nothing hangs
            double longestTtft = result.outcomes().stream().filter(o -> o.error() == null)
                    .mapToDouble(RequestOutcome::ttftSeconds).filter(t -> !Double.isNaN(t)).max().orElse(0);
            System.out.printf("HotSwapIT: %s updated during a replay of %d: serving again after %.1f s; %d completed,"
                    + " %d failed, longest time to first token %.2f s: %s%n", bundle, result.requests(), back,
                    result.completed(), result.failed(), longestTtft, result.errors());
            boolean held = !bundle.equals("org.balanceroute.proxy"); // the door is in the proxy bundle
            for (String error : result.errors().keySet()) {
                if (held) {
                    // held, never refused: only a stream in flight past the connector's drainMillis may fail, in-band
                    assertTrue("a request refused or cut during the " + bundle + " update: " + error,
                            error.startsWith("in-band error"));
                } else {
                    assertTrue("a failure that is not a clear error: " + error, error.startsWith("HTTP ")
                            || error.startsWith("in-band error") || error.startsWith("connection refused"));
                }
            }
            if (held) {
                for (RequestOutcome o : result.outcomes()) {
                    if (o.error() == null) {
                        assertEquals("a completed request with its full token count", o.request().outputTokens(),
                                o.outputTokens());
                    }
                }
            }
            awaitIdle();
        }
    }

    // ------------------------------------------------------------------------------------ helpers

    static boolean serves() {
        try {
            HttpResponse<String> r = HTTP.send(HttpRequest.newBuilder(URI.create(runtime.base() + "/v1/completions"))
                    .header("Content-Type", "application/json").timeout(Duration.ofSeconds(10))
                    .POST(HttpRequest.BodyPublishers.ofString("{\"model\": \"" + MODEL + "\", \"prompt\": \"hi\","
                            + " \"max_tokens\": 2, \"ignore_eos\": true}")).build(), HttpResponse.BodyHandlers.ofString());
            return r.statusCode() == 200;
        } catch (Exception e) {
            return false;
        }
    }

    /** The web console's bundle update: {@code Bundle.update()} from the bundle's location, as an operator clicks it. */
    static void updateBundle(String symbolicName) throws Exception {
        long id = bundleId(symbolicName);
        HttpResponse<String> r = HTTP.send(HttpRequest.newBuilder(URI.create(runtime.base() + "/system/console/bundles/" + id))
                .header("Authorization", AUTH).header("Content-Type", "application/x-www-form-urlencoded")
                .POST(HttpRequest.BodyPublishers.ofString("action=update")).build(), HttpResponse.BodyHandlers.ofString());
        assertTrue(r.statusCode() + " " + r.body(), r.statusCode() < 400);
        RuntimeProcess.await(symbolicName + " active again after its update", Duration.ofSeconds(60),
                () -> state(symbolicName).equals("Active"));
    }

    static JsonNode bundle(String symbolicName) {
        try {
            JsonNode all = RuntimeProcess.JSON.readTree(runtime.get("/system/console/bundles.json").body());
            for (JsonNode b : all.path("data")) {
                if (b.path("symbolicName").asText().equals(symbolicName)) {
                    return b;
                }
            }
        } catch (Exception e) {
            // not answering now
        }
        return RuntimeProcess.JSON.missingNode();
    }

    /** The ids of the services the bundle registered (the web console's view). */
    static List<String> serviceIds(long bundleId) {
        List<String> ids = new ArrayList<>();
        try {
            JsonNode all = RuntimeProcess.JSON.readTree(runtime.get("/system/console/services.json").body());
            for (JsonNode s : all.path("data")) {
                if (s.path("bundleId").asLong(-1) == bundleId) {
                    ids.add(s.path("id").asText());
                }
            }
        } catch (Exception e) {
            // not answering now
        }
        return ids;
    }

    static long bundleId(String symbolicName) {
        return bundle(symbolicName).path("id").asLong(-1);
    }

    static String state(String symbolicName) {
        return bundle(symbolicName).path("state").asText("");
    }

    static void awaitAvailable(String policy, boolean available) throws InterruptedException {
        RuntimeProcess.await(policy + (available ? " available" : " gone"), Duration.ofSeconds(30), () -> {
            try {
                JsonNode p = RuntimeProcess.JSON.readTree(runtime.get("/admin/policies").body());
                boolean has = false;
                for (JsonNode n : p.path("available")) {
                    has |= n.asText().equals(policy);
                }
                return has == available;
            } catch (Exception e) {
                return false;
            }
        });
    }

    static int running() {
        JsonNode s = runtime.snapshot();
        return s == null ? -1 : s.path("totals").path("running").asInt();
    }

    static void awaitIdle() throws InterruptedException {
        runtime.awaitIdle(Duration.ofSeconds(60));
    }
}
