package org.balanceroute.proxy.internal;

import java.util.List;
import org.balanceroute.connector.vllm.DecodeAvailabilityListener;
import org.balanceroute.router.RouterService;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Reference;

/**
 * The connector's decode layout and health marks, applied to the router: the workers and the
 * instances they form come from the pool's topology (through the connector, which tells them in
 * order with the marks), and a worker that fails its health checks is ejected. The connector does
 * not depend on the router (it publishes to whiteboard listeners); the proxy holds both, so it
 * bridges them. Decode worker g is router worker g. After a worker comes back,
 * with manual stepping, one dispatch step places whatever waited in the pool meanwhile.
 * Non-blocking: both calls only enqueue for the dispatch thread.
 */
@Component(service = DecodeAvailabilityListener.class)
public final class DecodeAvailabilityBridge implements DecodeAvailabilityListener {

    private final RouterService router;

    @Activate
    public DecodeAvailabilityBridge(@Reference(name = "router") RouterService router) {
        this.router = router;
    }

    @Override
    public void decodeLayout(String pool, List<String> workers, int[] groupSizes, int[] capacities) {
        RouterService r = router.pool(pool);
        if (r != null && !workers.isEmpty()) {
            r.setLayout(workers, groupSizes, capacities);
        }
    }

    @Override
    public void decodeWorkerAvailable(String pool, int worker, boolean available) {
        RouterService r = router.pool(pool);
        if (r == null) {
            return;
        }
        r.setWorkerAvailable(worker, available);
        if (available && !r.automaticStepping()) {
            r.dispatchStep();
        }
    }
}
