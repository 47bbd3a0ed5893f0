package org.balanceroute.itests;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

import java.io.IOException;
import java.net.http.HttpResponse;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.balanceroute.router.Placement;
import org.balanceroute.router.RouterService;
import org.junit.Before;
import org.junit.Test;

/**
 * {@code GET /metrics} over HTTP, without credentials, in the Prometheus text format: the
 * per-worker gauges and the pool depth follow what {@link RouterService#submit},
 * {@link RouterService#tokens} and {@link RouterService#dispatchStep} do, and the dispatch step
 * histogram counts the steps.
 */
public class MetricsIT extends BalanceRouteTestSupport {

    @Before
    public void smallCluster() throws Exception {
        configureDecodeWorkers(2, 4);
        configure(RouterService.PID, "policy", "br0", "fallbackPolicy", "jsq");
        await("a cluster of 2 workers", () -> router.snapshot().workers() == 2);
        awaitEquals("br0 active", "br0", () -> router.activePolicy());
    }

    private HttpResponse<String> scrapeResponse() throws IOException, InterruptedException {
        return http("GET", "/metrics", null, false);
    }

    /** The samples of one scrape: name with labels to value; empty while /metrics does not answer 200. */
    private Map<String, Double> scrape() {
        return scrape(this);
    }

    /** The samples of one scrape of the runtime that test runs against. */
    static Map<String, Double> scrape(BalanceRouteTestSupport test) {
        try {
            HttpResponse<String> r = test.http("GET", "/metrics", null, false);
            return r.statusCode() == 200 ? parse(r.body()) : Map.of();
        } catch (IOException e) {
            return Map.of();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return Map.of();
        }
    }

    /** Prometheus text format: sample (name with labels) to value, comments left out. */
    static Map<String, Double> parse(String text) {
        Map<String, Double> m = new HashMap<>();
        for (String line : text.split("\n")) {
            if (!line.isBlank() && !line.startsWith("#")) {
                int sp = line.lastIndexOf(' ');
                m.put(line.substring(0, sp), Double.parseDouble(line.substring(sp + 1)));
            }
        }
        return m;
    }

    private static String load(int worker) {
        return "balanceroute_worker_kv_load_tokens{pool=\"default\",instance=\"decode\",worker=\"" + worker + "\",}";
    }

    private static String running(int worker) {
        return "balanceroute_worker_running_requests{pool=\"default\",instance=\"decode\",worker=\"" + worker + "\",}";
    }

    @Test
    public void gaugesAndPoolDepthFollowTheRouter() throws Exception {
        await("GET /metrics to answer 200 without credentials", () -> scrape().containsKey(load(0)));
        HttpResponse<String> first = scrapeResponse();
        assertTrue(first.headers().firstValue("Content-Type").orElse(""),
                first.headers().firstValue("Content-Type").orElse("").startsWith("text/plain"));
        assertTrue(first.body(), first.body().contains("# TYPE balanceroute_worker_kv_load_tokens gauge"));
        assertTrue(first.body(), first.body().contains("# TYPE balanceroute_dispatch_step_duration_seconds histogram"));
        assertTrue(first.body(), first.body().contains("balanceroute_requests_total{outcome=\"ok\",}"));
        // the engine connector is installed and idle: its prefill gauges read 0
        await("the prefill tier's gauges", () -> Double.valueOf(0).equals(scrape().get("balanceroute_prefill_queued_requests{pool=\"default\",}"))
                && Double.valueOf(0).equals(scrape().get("balanceroute_prefill_in_flight_requests{pool=\"default\",instance=\"0\",}")));
        assertEquals(0.0, scrape().get(load(0)), 0);
        assertEquals(0.0, scrape().get(load(1)), 0);
        double stepsBefore = scrape().get("balanceroute_dispatch_step_duration_seconds_count{pool=\"default\",}");

        // two requests in the prompt pool: br0 waits for a dispatch step
        long r1 = 910_001, r2 = 910_002;
        CompletableFuture<Placement> f1 = router.submit(r1, 1000, 0, 100);
        CompletableFuture<Placement> f2 = router.submit(r2, 300, 0, 100);
        await("pool depth 2", () -> Double.valueOf(2).equals(scrape().get("balanceroute_pool_depth{pool=\"default\",}")));
        assertEquals(0.0, scrape().get(running(0)) + scrape().get(running(1)), 0);

        router.dispatchStep().get(10, TimeUnit.SECONDS);
        int w1 = f1.get(10, TimeUnit.SECONDS).worker();
        int w2 = f2.get(10, TimeUnit.SECONDS).worker();
        Map<String, Double> s = scrape();
        assertEquals(0.0, s.get("balanceroute_pool_depth{pool=\"default\",}"), 0);
        assertEquals(1300.0, s.get(load(0)) + s.get(load(1)), 0);
        assertEquals(2.0, s.get(running(0)) + s.get(running(1)), 0);
        assertEquals("br0 fills the other worker", Set.of(0, 1), Set.of(w1, w2));
        assertEquals(1000.0, s.get(load(w1)), 0);
        assertEquals(300.0, s.get(load(w2)), 0);
        assertEquals(700.0, s.get("balanceroute_imbalance_tokens{pool=\"default\",}"), 0);
        assertTrue("the dispatch step was timed",
                s.get("balanceroute_dispatch_step_duration_seconds_count{pool=\"default\",}") >= stepsBefore + 1);
        String decode = "{pool=\"default\",instance=\"decode\",}";
        assertEquals("the barrier's idle capacity: 2 * 1000 - 1300", 700.0, s.get("balanceroute_instance_barrier_idle_tokens" + decode), 0);
        assertEquals(0.35, s.get("balanceroute_instance_barrier_waste_ratio" + decode), 1e-12);
        assertTrue("the worker with 1000 straggled at the step",
                s.get("balanceroute_straggler_steps_total{pool=\"default\",instance=\"decode\",worker=\"" + w1 + "\",}") >= 1);
        assertTrue(s.get("balanceroute_instance_steps_total" + decode) >= 1);

        router.tokens(r1, 5);
        await("decoded tokens grow the load", () -> Double.valueOf(1005).equals(scrape().get(load(w1))));

        assertTrue(router.complete(r1).get(10, TimeUnit.SECONDS));
        assertTrue(router.complete(r2).get(10, TimeUnit.SECONDS));
        s = scrape();
        assertEquals(0.0, s.get(load(0)) + s.get(load(1)), 0);
        assertEquals(0.0, s.get(running(0)) + s.get(running(1)), 0);
        assertEquals(0.0, s.get("balanceroute_imbalance_tokens{pool=\"default\",}"), 0);
    }
}
