package org.balanceroute.itests;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

import java.io.FileInputStream;
import java.io.InputStream;
import java.util.concurrent.TimeUnit;
import org.balanceroute.router.Placement;
import org.balanceroute.router.RouterService;
import org.junit.Test;
import org.osgi.framework.Bundle;

/**
 * A policy bundle installed at runtime becomes selectable; uninstalling the active one makes the
 * router fall back, with no request lost; uninstalling a shipped policy bundle works the same.
 */
public class HotDeployIT extends BalanceRouteTestSupport {

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

        configure(RouterService.PID, "policy", "least-running");
        awaitEquals("least-running active", "least-running", () -> router.activePolicy());
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
