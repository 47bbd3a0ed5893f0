package org.balanceroute.itests;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

import java.util.ArrayList;
import java.util.List;
import org.junit.Test;
import org.osgi.framework.Bundle;
import org.osgi.framework.Constants;

/** The distribution's bundle set comes up whole, and what needs credentials asks for them. */
public class RuntimeIT extends BalanceRouteTestSupport {

    @Test
    public void everyBundleResolvesAndIsActive() throws Exception {
        await("every bundle active", () -> inactive().isEmpty());
        assertTrue(context.getBundles().length > 50);
    }

    private List<String> inactive() {
        List<String> out = new ArrayList<>();
        for (Bundle b : context.getBundles()) {
            boolean fragment = b.getHeaders().get(Constants.FRAGMENT_HOST) != null;
            if (!fragment && b.getState() != Bundle.ACTIVE) {
                out.add(b.getSymbolicName() + " state " + b.getState());
            }
        }
        return out;
    }

    @Test
    public void everyPolicyOfTheDistributionIsSelectable() throws Exception {
        List<String> expected = List.of("br0", "br0-bypass", "brh-exact", "brh-survival", "jsq", "least-tokens",
                "p2c", "random", "round-robin", "vllm-ascend");
        awaitEquals("the registered policies", expected, () -> router.availablePolicies());
        awaitEquals("the default policy", "br0", () -> router.activePolicy());
    }

    @Test
    public void adminApiAndConsoleRequireCredentials() throws Exception {
        awaitAdminApi();
        assertEquals(401, http("GET", "/admin/policies", null, false).statusCode());
        assertEquals(401, http("GET", "/admin/snapshot", null, false).statusCode());
        assertEquals(200, http("GET", "/admin/snapshot", null, true).statusCode());
        await("the web console to be served", () -> status("/system/console", false) == 401);
        assertTrue(status("/system/console/bundles", true) == 200);
    }

    private int status(String path, boolean authenticate) {
        try {
            return http("GET", path, null, authenticate).statusCode();
        } catch (Exception e) {
            return -1;
        }
    }
}
