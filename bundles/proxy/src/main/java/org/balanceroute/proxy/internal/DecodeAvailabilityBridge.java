package org.balanceroute.proxy.internal;

import org.balanceroute.connector.vllm.DecodeAvailabilityListener;
import org.balanceroute.router.RouterService;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Reference;

/**
 * The connector's decode worker set and health marks, applied to the router: G comes from the
 * connector's {@code decodeWorkers} (configured there only), and a worker that fails its health
 * checks is ejected. The connector does not depend on the router (it publishes to whiteboard
 * listeners); the proxy holds both, so it bridges them. Decode worker g is router worker g. After a worker comes back,
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
    public void decodeWorkers(int count) {
        // interim, until the topology reaches the router: one instance of every worker
        java.util.List<String> ids = new java.util.ArrayList<>();
        for (int g = 0; g < count; g++) {
            ids.add("worker-" + g);
        }
        router.setLayout(ids, new int[] {count}, new int[] {1});
    }

    @Override
    public void decodeWorkerAvailable(int worker, boolean available) {
        router.setWorkerAvailable(worker, available);
        if (available && !router.automaticStepping()) {
            router.dispatchStep();
        }
    }
}
