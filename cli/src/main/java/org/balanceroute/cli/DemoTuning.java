package org.balanceroute.cli;

import org.balanceroute.policy.balance.BalancePolicy;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.io.PrintStream;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Locale;

/**
 * {@code ./balanceroute demo --tune}: the runtime's self-tuner configured for the demo's run, its
 * search asked for after the poor pair's second replay, and the BR parameters put back afterwards.
 */
final class DemoTuning {

    private final DemoAdmin admin;
    private final DemoProcesses processes;
    private final PrintStream err;
    /** {@code --tune-parts}: the parts of the window the tuner's choice must win. */
    private final int parts;

    DemoTuning(DemoAdmin admin, DemoProcesses processes, PrintStream err, int parts) {
        this.admin = admin;
        this.processes = processes;
        this.err = err;
        this.parts = parts;
    }

    /**
     * The pair the issue starts the tuner from, the paper's second setting, at {@code --tune-horizon}:
     * measurably poor on Azure at H=20 or 200, the best there at H=80, within noise of the best on
     * Mooncake-like traffic (docs/self-tuning.md).
     */
    static ObjectNode poorParameters(int horizon) {
        return DemoAdmin.JSON.createObjectNode().put("horizon", horizon).put("beta", 43).put("gamma", 0.86);
    }

    /**
     * The self-tuner set up for the demo's run, through its configuration file (FileInstall): the
     * last phase (its 10 s of arrivals) as its window, the engine's step model at its time factor
     * (the router's clock is the wall clock), margin 0 so that a winner of every one of the
     * {@code --tune-parts} parts is applied when asked.
     */
    void configure(Path root, String base, double timeFactor, Path logs) throws Exception {
        Path cfg = root.resolve("distribution/target/balanceroute/config/org.balanceroute.tuner.cfg");
        Files.writeString(cfg, "# written by ./balanceroute demo --tune\n"
                + "windowMinutes = 0.2\nbudgetSeconds = 120\nmargin = 0.0\nautoApply = false\n"
                + "parts = " + parts + "\nquorum = 1\n"
                + "stepA = " + 2e-7 * timeFactor + "\nstepB = " + 0.020 * timeFactor + "\n");
        long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
        processes.await("the tuner's configuration (" + base + "/admin/tune)",
                () -> tunerConfigured(admin.get(base + "/admin/tune", true).body()), deadline, logs);
    }

    /** Whether GET /admin/tune's answer shows the demo's tuner configuration in force. */
    private boolean tunerConfigured(String status) throws IOException {
        JsonNode s = DemoAdmin.JSON.readTree(status);
        return s.path("margin").asDouble(-1) == 0.0 && s.path("parts").asInt(-1) == parts;
    }

    /**
     * POST /admin/tune?wait&apply: the search over what the last phase sent; the phase that
     * follows: the policy in force after it, tuned or the poor pair kept.
     */
    DemoPhase tuneNow(String base) throws Exception {
        err.println("balanceroute demo: self-tuning: replaying the last phase's requests for a grid of (beta, gamma, H)"
                + " and br0 (POST /admin/tune?wait=300&apply=true)");
        HttpResponse<String> r = admin.send(HttpRequest.newBuilder(URI.create(base + "/admin/tune?wait=300&apply=true"))
                .header("Authorization", DemoAdmin.AUTH).POST(HttpRequest.BodyPublishers.noBody()));
        if (r.statusCode() != 200) {
            throw new DemoException(1, "POST " + base + "/admin/tune: HTTP " + r.statusCode() + " " + r.body());
        }
        JsonNode last = DemoAdmin.JSON.readTree(r.body()).path("last");
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
        String active = DemoAdmin.JSON.readTree(admin.get(base + "/admin/policies", true).body()).path("active").asText();
        return new DemoPhase(active, 1, false, last.path("applied").asBoolean() ? DemoPhase.TUNED : DemoPhase.KEPT);
    }

    /** Puts the BR parameters the demo changed back to what they were (or their defaults). */
    void restoreBalanceParameters(String base, JsonNode initial) throws Exception {
        boolean wasBr = initial.path("active").asText().startsWith("br");
        ObjectNode params = DemoAdmin.JSON.createObjectNode();
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
        HttpResponse<String> back = admin.putPolicy(base, BalancePolicy.BRH_SURVIVAL, params);
        err.println("balanceroute demo: BR parameters restored (HTTP " + back.statusCode() + ")");
    }
}
