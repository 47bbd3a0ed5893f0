package org.balanceroute.itests;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.FileInputStream;
import java.io.InputStream;
import java.net.http.HttpResponse;
import java.util.concurrent.TimeUnit;
import org.balanceroute.router.Placement;
import org.balanceroute.router.RouterService;
import org.junit.Before;
import org.junit.Test;
import org.osgi.framework.Bundle;
import org.osgi.service.cm.Configuration;

/**
 * A policy bundle installed at runtime becomes selectable and brings its own tunable (its
 * metatype, shown in {@code GET /admin/policies} and validated by {@code PUT /admin/policy});
 * uninstalling the active one makes the router fall back, with no request lost; uninstalling a
 * shipped policy bundle works the same.
 */
public class HotDeployIT extends BalanceRouteTestSupport {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String EXAMPLE_PID = "org.balanceroute.policy.example";

    /** Decode workers whose health checks pass: with every worker down requests wait in the pool. */
    @Before
    public void healthyWorkers() throws Exception {
        configureDecodeWorkers(2, 64);
        await("a cluster of 2 workers", () -> router.snapshot().workers() == 2);
    }

    @Test
    public void anInstalledPolicyIsSelectableAndItsRemovalFallsBack() throws Exception {
        configure(RouterService.PID, "fallbackPolicy", "jsq");
        String jar = context.getProperty("balanceroute.example.bundle");
        Bundle example;
        try (InputStream in = new FileInputStream(jar)) {
            example = context.installBundle("file:" + jar, in);
        }
        example.start();
        await("least-running to register", () -> router.availablePolicies().contains("least-running"));

        // its tunable, from its own metatype, with nothing changed elsewhere
        awaitAdminApi();
        JsonNode schema = JSON.readTree(http("GET", "/admin/policies", null, true).body()).path("schema");
        JsonNode weight = schema.path("least-running").path(0);
        assertEquals(schema.toString(), "queuedWeight", weight.path("id").asText());
        assertEquals("integer", weight.path("type").asText());
        assertEquals("0", weight.path("min").asText());
        assertEquals("16", weight.path("max").asText());
        assertEquals(0, weight.path("default").asInt());
        assertTrue(weight.path("description").asText().contains("Integer in [0, 16]"));

        // out of its range: 400 naming it, nothing written, the old values in force
        String before = router.configuredPolicy();
        HttpResponse<String> r = http("PUT", "/admin/policy",
                "{\"policy\": \"least-running\", \"parameters\": {\"queuedWeight\": 17}}", true);
        assertEquals(r.body(), 400, r.statusCode());
        JsonNode error = JSON.readTree(r.body()).path("error");
        assertEquals("queuedWeight", error.path("param").asText());
        assertEquals("queuedWeight must be an integer in [0, 16], got 17", error.path("message").asText());
        Configuration[] written = configurationAdmin.listConfigurations("(service.pid=" + EXAMPLE_PID + ")");
        assertTrue("nothing written", written == null || written[0].getProperties() == null
                || written[0].getProperties().get("queuedWeight") == null);
        assertEquals(before, router.configuredPolicy());
        assertEquals(0, router.policyParameters("least-running").get("queuedWeight"));

        // in range: answered once in force, so the router shows it at once
        r = http("PUT", "/admin/policy", "{\"policy\": \"least-running\", \"parameters\": {\"queuedWeight\": 2}}",
                true);
        assertEquals(r.body(), 200, r.statusCode());
        assertTrue(r.body(), JSON.readTree(r.body()).path("applied").asBoolean());
        assertEquals("least-running", router.activePolicy());
        assertEquals(2, router.policyParameters("least-running").get("queuedWeight"));
        Placement placed = router.submit(1001, 500, 0, 100).get(10, TimeUnit.SECONDS);
        assertTrue(placed.worker() >= 0);

        // A request waits in the pool under br0 while the active policy's bundle goes away.
        example.uninstall();
        awaitEquals("fallback to jsq", "jsq", () -> router.activePolicy());
        assertEquals("least-running", router.configuredPolicy());
        Placement next = router.submit(1002, 700, 0, 100).get(10, TimeUnit.SECONDS);
        assertTrue("the fallback keeps placing requests", next.worker() >= 0);
        assertTrue(router.complete(1001).get(10, TimeUnit.SECONDS));
        assertTrue(router.complete(1002).get(10, TimeUnit.SECONDS));
    }

    @Test
    public void uninstallingAShippedPolicyBundleWhileActiveFallsBackToo() throws Exception {
        configure(RouterService.PID, "policy", "br0", "fallbackPolicy", "jsq");
        awaitEquals("br0 active", "br0", () -> router.activePolicy());
        var waiting = router.submit(2001, 3_000, 0, 100); // br0 keeps it in the pool until a step
        Bundle balance = null;
        for (Bundle b : context.getBundles()) {
            if ("org.balanceroute.policy.balance".equals(b.getSymbolicName())) {
                balance = b;
            }
        }
        assertTrue(balance != null);
        balance.stop();
        awaitEquals("fallback to jsq", "jsq", () -> router.activePolicy());
        assertTrue("the pooled request is placed by the fallback, not dropped",
                waiting.get(10, TimeUnit.SECONDS).worker() >= 0);
        balance.start();
        awaitEquals("br0 back", "br0", () -> router.activePolicy());
        assertTrue(router.complete(2001).get(10, TimeUnit.SECONDS));
    }
}
