package org.balanceroute.admin.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.balanceroute.admin.PolicyAdmin.ChangeResult;
import org.balanceroute.admin.PolicyAdmin.InvalidChangeException;
import org.balanceroute.admin.PolicyAdmin.PolicyDescription;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The PolicyAdmin service as the web console uses it, over the shipped metatype and a fake runtime. */
class PolicyAdminServiceTest {

    private final FakeRuntime runtime = new FakeRuntime();

    @AfterEach
    void stop() {
        runtime.close();
    }

    @Test
    void everyAvailablePolicyWithItsSchemaAndValuesInForce() {
        runtime.router.available = List.of("br0", "jsq", "least-running", "not-described");
        List<PolicyDescription> all = runtime.admin.policies();
        assertEquals(List.of("br0", "jsq", "least-running", "not-described"), all.stream().map(PolicyDescription::name).toList());
        PolicyDescription br0 = all.get(0);
        assertEquals("org.balanceroute.policy.balance", br0.pid());
        assertEquals("sGreedy", br0.parameters().get(0).id());
        assertEquals(runtime.router.policyParameters("br0"), br0.values());
        assertEquals(List.of(), all.get(1).parameters());
        assertNull(all.get(1).pid());
        assertEquals(0, all.get(2).parameters().get(0).defaultValue());
        assertEquals(List.of(), all.get(3).parameters(), "registered with the router, unknown to the schemas");
        assertEquals("br0", runtime.admin.activePolicy());
    }

    @Test
    void aChangeIsAnsweredWhenTheRouterHasItInForce() throws Exception {
        runtime.delayMillis = 100;
        long start = System.nanoTime();
        ChangeResult r = runtime.admin.change("brh-survival", Map.of("rMax", 4L, "gamma", 0.5), Duration.ofSeconds(5));
        assertTrue(System.nanoTime() - start >= 100_000_000L, "it waited for the router");
        assertTrue(r.applied(), r.message());
        assertEquals("brh-survival", r.active());
        assertEquals(4, r.parameters().get("rMax"));
        assertEquals(0.5, r.parameters().get("gamma"));
        assertEquals("policy brh-survival is in force with {rMax=4, gamma=0.5}", r.message());
        assertEquals("brh-survival", runtime.admin.activePolicy(), "and read right after, it shows");
    }

    @Test
    void aParameterNotYetInForceIsWaitedForToo() {
        runtime.applying = false;
        runtime.router.active = "br0";
        ChangeResult r = assertDoesNotThrowChange(() -> runtime.admin.change("br0", Map.of("rMax", 4L), Duration.ofMillis(30)));
        assertFalse(r.applied());
        assertTrue(r.message().contains("not yet in force after 30 ms: br0 reports rMax = 8, not 4"), r.message());
    }

    @Test
    void anInvalidChangeNamesTheFieldAndWritesNothing() {
        InvalidChangeException e = assertThrows(InvalidChangeException.class,
                () -> runtime.admin.change("br0", Map.of("rMax", 0L), Duration.ofSeconds(1)));
        assertEquals("rMax", e.field());
        assertEquals("rMax must be an integer in [1, 16], got 0", e.getMessage());
        e = assertThrows(InvalidChangeException.class, () -> runtime.admin.change(null, Map.of(), Duration.ZERO));
        assertEquals("policy", e.field());
        e = assertThrows(InvalidChangeException.class,
                () -> runtime.admin.change("least-running", Map.of("queuedWeight", "2"), Duration.ZERO));
        assertEquals("queuedWeight must be an integer in [0, 16], got \"2\"", e.getMessage());
        assertTrue(runtime.configs.updates.isEmpty());
    }

    @Test
    void valuesCompareAcrossJavaTypes() {
        assertTrue(PolicyAdminService.same(4, 4L));
        assertTrue(PolicyAdminService.same(2.0, 2L));
        assertFalse(PolicyAdminService.same(2.5, 2L));
        assertTrue(PolicyAdminService.same("x", "x"));
        assertTrue(PolicyAdminService.same(true, Boolean.TRUE));
    }

    interface Change {
        ChangeResult run() throws Exception;
    }

    private static ChangeResult assertDoesNotThrowChange(Change c) {
        try {
            return c.run();
        } catch (Exception e) {
            throw new AssertionError(e);
        }
    }
}
