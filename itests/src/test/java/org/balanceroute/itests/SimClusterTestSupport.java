package org.balanceroute.itests;

import static org.ops4j.pax.exam.CoreOptions.bundle;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.balanceroute.api.PoolSnapshot;
import org.ops4j.pax.exam.Configuration;
import org.ops4j.pax.exam.Option;

/**
 * For tests that drive the proxy against a simulated vLLM cluster started in the framework: the
 * engine-sim bundle provisioned, and a wait for the router to be idle again.
 */
public abstract class SimClusterTestSupport extends BalanceRouteTestSupport {

    @Override
    @Configuration
    public Option[] configuration() throws IOException {
        List<Option> options = new ArrayList<>(Arrays.asList(super.configuration()));
        options.add(bundle(new java.io.File(System.getProperty("balanceroute.enginesim.bundle")).toURI().toString())
                .startLevel(2));
        return options.toArray(Option[]::new);
    }

    /** Waits until the router holds nothing: no load, nothing running or queued, an empty pool. */
    protected void awaitRouterIdle() throws InterruptedException {
        await("the router's snapshot back to zero load", () -> {
            PoolSnapshot s = router.snapshot();
            return Arrays.stream(s.loads()).sum() == 0 && Arrays.stream(s.running()).sum() == 0
                    && Arrays.stream(s.queued()).sum() == 0 && s.poolDepth() == 0;
        });
    }
}
