package org.balanceroute.itests;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertNotEquals;
import static org.junit.Assert.assertTrue;

import java.net.http.HttpResponse;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.balanceroute.router.Placement;
import org.balanceroute.router.RouterService;
import org.junit.Before;
import org.junit.Test;

/**
 * A policy switch, through ConfigAdmin or the admin API, changes the decisions of the next
 * dispatch step; parameters change live; invalid values are refused and the old ones stay. The
 * admin API answers a change once it is in force: what the router reports right after the
 * answer (and a {@code GET /admin/policies}) is the new policy, with no waiting.
 *
 * <p>The probe scenario, on G=2 workers of B=4: r1 (10,000 prompt tokens) is placed first; then
 * r2 (100) and r3 (9,000) arrive together. jsq puts r3 on r1's worker (both workers then hold one
 * request, the tie goes to worker 0); br0 puts r3 on the other worker, filling it up to the
 * barrier r1 set.
 */
public class PolicySwitchIT extends BalanceRouteTestSupport {

    private static final AtomicLong IDS = new AtomicLong(1);

    @Before
    public void smallCluster() throws Exception {
        configureDecodeWorkers(2, 4);
        configure(RouterService.PID, "fallbackPolicy", "jsq");
        await("a cluster of 2 workers", () -> router.snapshot().workers() == 2);
    }

    /** Runs the scenario under the active policy; true if r3 landed on r1's worker. */
    private boolean r3JoinsR1() throws Exception {
        long r1 = IDS.getAndIncrement(), r2 = IDS.getAndIncrement(), r3 = IDS.getAndIncrement();
        var f1 = router.submit(r1, 10_000, 0, 100);
        router.dispatchStep().get(10, TimeUnit.SECONDS);
        Placement p1 = f1.get(10, TimeUnit.SECONDS);
        var f2 = router.submit(r2, 100, 0, 100);
        var f3 = router.submit(r3, 9_000, 0, 100);
        router.dispatchStep().get(10, TimeUnit.SECONDS);
        Placement p3 = f3.get(10, TimeUnit.SECONDS);
        f2.get(10, TimeUnit.SECONDS);
        for (long id : new long[] {r1, r2, r3}) {
            assertTrue(router.complete(id).get(10, TimeUnit.SECONDS));
        }
        assertEquals("loads return to zero", 0, router.snapshot().maxLoad());
        return p3.worker() == p1.worker();
    }

    @Test
    public void switchingThroughConfigAdminChangesTheNextStep() throws Exception {
        configure(RouterService.PID, "policy", "jsq");
        awaitEquals("jsq active", "jsq", () -> router.activePolicy());
        assertTrue("jsq balances counts: r3 joins r1", r3JoinsR1());
        configure(RouterService.PID, "policy", "br0");
        awaitEquals("br0 active", "br0", () -> router.activePolicy());
        assertTrue("br0 fills the other worker up to the barrier", !r3JoinsR1());
    }

    @Test
    public void switchingThroughTheAdminApiChangesTheNextStepAndPersists() throws Exception {
        awaitAdminApi();
        HttpResponse<String> r = http("PUT", "/admin/policy", "{\"policy\": \"jsq\"}", true);
        assertEquals(r.body(), 200, r.statusCode());
        assertTrue(r.body(), r.body().contains("\"active\":\"jsq\"") && r.body().contains("\"applied\":true"));
        // answered once in force: a GET right after shows it, and the next step uses it
        String policies = http("GET", "/admin/policies", null, true).body();
        assertTrue(policies, policies.contains("\"active\":\"jsq\""));
        assertEquals("jsq", router.activePolicy());
        assertTrue(r3JoinsR1());
        r = http("PUT", "/admin/policy", "{\"policy\": \"br0\", \"parameters\": {}}", true);
        assertEquals(r.body(), 200, r.statusCode());
        policies = http("GET", "/admin/policies", null, true).body();
        assertTrue(policies, policies.contains("\"active\":\"br0\""));
        assertTrue(!r3JoinsR1());
        assertEquals("written through ConfigAdmin", "br0",
                configurationAdmin.getConfiguration(RouterService.PID, "?").getProperties().get("policy"));
    }

    @Test
    public void parametersChangeLiveAndInvalidOnesAreRefused() throws Exception {
        awaitAdminApi();
        HttpResponse<String> r = http("PUT", "/admin/policy",
                "{\"policy\": \"brh-survival\", \"parameters\": {\"rMax\": 4, \"horizon\": 40}}", true);
        assertEquals(r.body(), 200, r.statusCode());
        // in force when answered
        assertEquals(4, router.policyParameters("brh-survival").get("rMax"));
        assertEquals(40, router.policyParameters("brh-survival").get("horizon"));
        assertEquals("brh-survival", router.activePolicy());

        r = http("PUT", "/admin/policy", "{\"policy\": \"br0\", \"parameters\": {\"rMax\": 99}}", true);
        assertEquals(400, r.statusCode());
        assertTrue(r.body(), r.body().contains("rMax") && r.body().contains("[1, 16]")
                && r.body().contains("invalid_request_error"));
        assertEquals("the old configuration stays", "brh-survival", router.activePolicy());
        assertEquals(4, router.policyParameters("br0").get("rMax"));
        assertEquals("nothing written", "4", String.valueOf(configurationAdmin
                .getConfiguration("org.balanceroute.policy.balance", "?").getProperties().get("rMax")));

        r = http("PUT", "/admin/policy", "{\"policy\": \"fastest\"}", true);
        assertEquals(400, r.statusCode());
        assertTrue(r.body(), r.body().contains("\"param\":\"policy\""));

        // An invalid file edit: ConfigAdmin delivers updates in order on one thread, so once the
        // router has seen the later fallback change, the policies have seen the bad rMax.
        configure("org.balanceroute.policy.balance", "rMax", 99);
        configure(RouterService.PID, "fallbackPolicy", "p2c");
        awaitEquals("the later update applied", "p2c", () -> router.fallbackPolicy());
        assertEquals("the rejected value never took effect", 4, router.policyParameters("br0").get("rMax"));
        configure("org.balanceroute.policy.balance", "rMax", 8, "horizon", 80);
        awaitEquals("a valid value applies again", 8, () -> router.policyParameters("br0").get("rMax"));
        assertNotEquals(null, router.policyParameters("br0").get("beta"));
    }
}
