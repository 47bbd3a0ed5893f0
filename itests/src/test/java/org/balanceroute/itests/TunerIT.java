package org.balanceroute.itests;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.balanceroute.router.Placement;
import org.balanceroute.router.RouterService;
import org.junit.Before;
import org.junit.Test;

/**
 * The self-tuner over real HTTP: traffic through the router fills its rolling record; {@code POST
 * /admin/tune?wait=S} replays it through the simulator for a grid and answers the report; with
 * {@code autoApply} the winner is in force afterwards, written through ConfigAdmin; {@code GET
 * /admin/tune} reports the last search, behind the admin credentials.
 */
public class TunerIT extends BalanceRouteTestSupport {

    private static final ObjectMapper JSON = new ObjectMapper();

    @Before
    public void smallCluster() throws Exception {
        configureDecodeWorkers(2, 4);
        configure(RouterService.PID, "fallbackPolicy", "jsq", "policy", "brh-survival");
        configure("org.balanceroute.policy.balance", "horizon", 80, "beta", 43.0, "gamma", 0.86);
        await("a cluster of 2 workers", () -> router.snapshot().workers() == 2);
        awaitEquals("brh-survival active", "brh-survival", () -> router.activePolicy());
    }

    /**
     * n requests through the router, all submitted at once, then served as their places come: each
     * placed one decodes its tokens and completes, which frees its slot for the next. At once, so that
     * the record the tuner replays is the same on any machine: sent one after another, their arrival
     * times were the machine's speed (36 ms for all under load, when jsq came out best and nothing
     * was applied).
     */
    private void traffic(int n) throws Exception {
        SplittableRandom random = new SplittableRandom(5);
        List<CompletableFuture<Placement>> placed = new ArrayList<>();
        int[] outputTokens = new int[n];
        for (int i = 0; i < n; i++) {
            placed.add(router.submit(10_000 + i, 1 + random.nextInt(8000), 0, 100));
            outputTokens[i] = 1 + random.nextInt(200);
        }
        boolean[] done = new boolean[n];
        int completed = 0;
        long hang = System.nanoTime() + TimeUnit.MINUTES.toNanos(2);
        while (completed < n) {
            assertTrue(completed + " of " + n + " completed within 2 minutes", System.nanoTime() < hang);
            router.dispatchStep().get(10, TimeUnit.SECONDS);
            for (int i = 0; i < n; i++) {
                if (!done[i] && placed.get(i).isDone()) {
                    placed.get(i).get();
                    long id = 10_000 + i;
                    router.tokens(id, outputTokens[i]);
                    assertTrue(router.complete(id).get(10, TimeUnit.SECONDS));
                    done[i] = true;
                    completed++;
                }
            }
        }
    }

    @Test
    public void postTunesOverHttpAndAutoApplyPutsTheWinnerInForceThroughConfigAdmin() throws Exception {
        awaitAdminApi();
        assertEquals(401, http("GET", "/admin/tune", null, false).statusCode());
        // no agreement gate: this tests the path a winner takes into force, not whether 60 requests show one;
        // jsq in force (every BR-H variant places requests sent one at a time alike, jsq does not: a winner)
        configure("org.balanceroute.tuner", "autoApply", true, "margin", 0.0, "budgetSeconds", 60.0, "agreement", -1.0,
                "betas", "8,43", "gammas", "0.64,0.86", "horizons", "20,80", "withBr0", true);
        configure(RouterService.PID, "policy", "jsq");
        awaitEquals("jsq active", "jsq", () -> router.activePolicy());
        traffic(60);
        HttpResponse<String> r = http("POST", "/admin/tune?wait=120", null, true);
        assertEquals(r.body(), 200, r.statusCode());
        String body = r.body();
        assertTrue(body, body.contains("\"state\":\"idle\"") && body.contains("\"best\"")
                && body.contains("\"predictedGain\"") && body.contains("\"requests\":60"));
        // the gate's setting, and the replays' measured agreement (null when every candidate ran alike)
        assertTrue(body, body.contains("\"agreement\":-1.0")
                && body.matches("(?s).*\"last\":\\{.*\"agreement\":(null|-?[0-9]).*"));
        String get = http("GET", "/admin/tune", null, true).body();
        assertTrue(get, get.contains("\"runs\":1") && get.contains("\"last\""));
        // the winner is in force, and written where every change goes
        assertTrue(body, body.contains("\"applied\":true"));
        JsonNode last = JSON.readTree(body).path("last");
        JsonNode best = last.path("best");
        System.out.printf("TunerIT: %d requests over %.4f s; best %s (mean imbalance %.0f, %.0f for %s in force)%n",
                last.path("requests").asInt(), last.path("spanSeconds").asDouble(), best.path("label").asText(),
                best.path("meanImbalance").asDouble(), last.path("current").path("meanImbalance").asDouble(),
                last.path("current").path("label").asText());
        String winner = best.path("policy").asText();
        awaitEquals("the winner in force", winner, () -> router.activePolicy());
        assertEquals(winner, configurationAdmin.getConfiguration(RouterService.PID, "?").getProperties().get("policy"));
        if (!winner.equals("br0")) {
            Object beta = configurationAdmin.getConfiguration("org.balanceroute.policy.balance", "?").getProperties()
                    .get("beta");
            assertEquals(best.path("beta").asDouble(), Double.parseDouble(String.valueOf(beta)), 1e-9);
        }
    }
}
