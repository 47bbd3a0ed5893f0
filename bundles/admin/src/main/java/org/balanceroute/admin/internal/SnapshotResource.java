package org.balanceroute.admin.internal;

import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.balanceroute.api.ClusterSnapshot;
import org.balanceroute.router.RouterService;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Reference;
import org.osgi.service.jakartars.whiteboard.propertytypes.JakartarsExtensionSelect;
import org.osgi.service.jakartars.whiteboard.propertytypes.JakartarsName;
import org.osgi.service.jakartars.whiteboard.propertytypes.JakartarsResource;

/**
 * {@code GET /admin/snapshot}: the router's view of the decode cluster, taken on its dispatch
 * thread. Hosted only with the JSON and authentication extensions present. Keeps no state.
 */
@Component(service = SnapshotResource.class)
@JakartarsResource
@JakartarsName("balanceroute.admin.snapshot")
@JakartarsExtensionSelect({JsonProvider.SELECT, BasicAuthFilter.SELECT})
@Path("admin/snapshot")
@Produces(MediaType.APPLICATION_JSON)
public final class SnapshotResource {

    private final RouterService router;

    @Activate
    public SnapshotResource(@Reference(name = "router") RouterService router) {
        this.router = router;
    }

    /**
     * {@code {"activePolicy", "step", "poolDepth", "capacity", "workers": [{"worker", "load",
     * "running", "queued", "available"}], "totals": {"load", "running", "queued", "maxLoad",
     * "imbalance", "available"}}}: loads in KV tokens; step = dispatch steps run so far; imbalance =
     * max - min worker load; available = the worker takes new requests (its health checks pass).
     */
    @GET
    public Map<String, Object> snapshot() {
        String active = router.activePolicy();
        return render(router.snapshot(), active);
    }

    static Map<String, Object> render(ClusterSnapshot s, String activePolicy) {
        long[] loads = s.loads();
        int[] running = s.running();
        int[] queued = s.queued();
        boolean[] available = s.available();
        List<Map<String, Object>> workers = new ArrayList<>(loads.length);
        long load = 0, max = 0, min = loads.length == 0 ? 0 : Long.MAX_VALUE;
        int run = 0, queue = 0, up = 0;
        for (int g = 0; g < loads.length; g++) {
            Map<String, Object> w = new LinkedHashMap<>();
            w.put("worker", g);
            w.put("load", loads[g]);
            w.put("running", running[g]);
            w.put("queued", queued[g]);
            w.put("available", available[g]);
            workers.add(w);
            up += available[g] ? 1 : 0;
            load += loads[g];
            max = Math.max(max, loads[g]);
            min = Math.min(min, loads[g]);
            run += running[g];
            queue += queued[g];
        }
        Map<String, Object> totals = new LinkedHashMap<>();
        totals.put("load", load);
        totals.put("running", run);
        totals.put("queued", queue);
        totals.put("maxLoad", max);
        totals.put("imbalance", max - min);
        totals.put("available", up);
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("activePolicy", activePolicy);
        m.put("step", s.step());
        m.put("poolDepth", s.poolDepth());
        m.put("capacity", s.capacity());
        m.put("workers", workers);
        m.put("totals", totals);
        return m;
    }
}
