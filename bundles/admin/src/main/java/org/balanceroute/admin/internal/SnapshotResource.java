package org.balanceroute.admin.internal;

import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.balanceroute.api.PoolSnapshot;
import org.balanceroute.router.ReplicaShare;
import org.balanceroute.router.ReplicasStatus;
import org.balanceroute.router.RouterService;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Reference;
import org.osgi.service.jakartars.whiteboard.propertytypes.JakartarsExtensionSelect;
import org.osgi.service.jakartars.whiteboard.propertytypes.JakartarsName;
import org.osgi.service.jakartars.whiteboard.propertytypes.JakartarsResource;

/**
 * {@code GET /admin/snapshot}: the router's view of the decode cluster, taken on its dispatch
 * thread; on any replica of a cluster of proxies, the whole cluster's (the sum over every
 * replica's requests) with each member's share. Hosted only with the JSON and authentication
 * extensions present. Keeps no state.
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
     * "running", "queued", "available", "instance", "draining"}], "totals": {"load", "running",
     * "queued", "maxLoad", "imbalance", "available", "groupImbalance"}, "cluster": {...}}}: loads in
     * KV tokens; step = dispatch steps run so far; instance = the worker's decode instance (its
     * barrier), by index; groupImbalance = per instance, max - min load over its workers not
     * draining; imbalance = their sum (max - min with one instance); available = the worker's
     * health checks pass; draining = an operator drains it; cluster: see {@link #render(ReplicasStatus)}.
     * The primary pool's; {@code ?pool=NAME} another pool's (404 naming an unknown one), its staleness
     * that pool's own.
     */
    @GET
    public Response snapshot(@QueryParam("pool") String pool) {
        RouterService r = pool == null ? router : router.pool(pool);
        if (r == null) {
            return ErrorResponses.of(Response.Status.NOT_FOUND, "pool '" + pool + "' is not routed here (GET /admin/pools"
                    + " lists the pools)", ErrorResponses.INVALID_REQUEST, "pool");
        }
        Map<String, Object> m = render(r.snapshot(), r.activePolicy());
        m.put("cluster", render(r.replicas()));
        return Response.ok(m).build();
    }

    /**
     * {@code {"store", "localMember", "dispatcher", "viewAgeMillis", "staleness": {"samples",
     * "p50Millis", "p99Millis", "maxMillis"}, "members": [{"member", "address", "dispatcher",
     * "pooled", "load", "running", "queued", "workers": [{"worker", "load", "running",
     * "queued"}]}]}}: the proxy replicas oldest first, each with its share of the load (a cluster
     * of one: store {@code local}, one member).
     */
    static Map<String, Object> render(ReplicasStatus c) {
        List<Map<String, Object>> members = new ArrayList<>(c.members().size());
        for (ReplicaShare s : c.members()) {
            int[] running = s.running();
            int[] queued = s.queued();
            List<Map<String, Object>> workers = workerRows(s.loads(), running, queued, null);
            int run = java.util.Arrays.stream(running).sum();
            int queue = java.util.Arrays.stream(queued).sum();
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("member", s.member());
            m.put("address", s.address());
            m.put("dispatcher", s.dispatcher());
            m.put("pooled", s.pooled());
            m.put("load", s.totalLoad());
            m.put("running", run);
            m.put("queued", queue);
            m.put("workers", workers);
            members.add(m);
        }
        Map<String, Object> staleness = new LinkedHashMap<>();
        staleness.put("samples", c.staleness().samples());
        staleness.put("p50Millis", c.staleness().p50Millis());
        staleness.put("p99Millis", c.staleness().p99Millis());
        staleness.put("maxMillis", c.staleness().maxMillis());
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("store", c.store());
        m.put("localMember", c.localMember());
        m.put("dispatcher", c.dispatcher());
        m.put("viewAgeMillis", c.viewAgeMillis());
        m.put("staleness", staleness);
        m.put("members", members);
        return m;
    }

    static Map<String, Object> render(PoolSnapshot s, String activePolicy) {
        long[] loads = s.loads();
        int[] running = s.running();
        int[] queued = s.queued();
        boolean[] available = s.available();
        List<Map<String, Object>> workers = workerRows(loads, running, queued, available);
        for (int g = 0; g < workers.size(); g++) {
            workers.get(g).put("instance", s.group(g));
            workers.get(g).put("draining", s.draining(g));
        }
        long[] groupImbalance = new long[loads.length == 0 ? 0 : s.groupCount()];
        for (int i = 0; i < groupImbalance.length; i++) {
            groupImbalance[i] = s.groupImbalance(i);
        }
        long imbalance = s.imbalance();
        long load = 0, max = 0;
        int run = 0, queue = 0, up = 0;
        for (int g = 0; g < loads.length; g++) {
            up += available[g] ? 1 : 0;
            load += loads[g];
            max = Math.max(max, loads[g]);
            run += running[g];
            queue += queued[g];
        }
        Map<String, Object> totals = new LinkedHashMap<>();
        totals.put("load", load);
        totals.put("running", run);
        totals.put("queued", queue);
        totals.put("maxLoad", max);
        totals.put("imbalance", imbalance);
        totals.put("available", up);
        totals.put("groupImbalance", groupImbalance);
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("activePolicy", activePolicy);
        m.put("step", s.step());
        m.put("poolDepth", s.poolDepth());
        m.put("capacity", s.capacity());
        m.put("workers", workers);
        m.put("totals", totals);
        return m;
    }

    /** One {@code {"worker", "load", "running", "queued"[, "available"]}} per worker. */
    private static List<Map<String, Object>> workerRows(long[] loads, int[] running, int[] queued, boolean[] available) {
        List<Map<String, Object>> workers = new ArrayList<>(loads.length);
        for (int g = 0; g < loads.length; g++) {
            Map<String, Object> w = new LinkedHashMap<>();
            w.put("worker", g);
            w.put("load", loads[g]);
            w.put("running", running[g]);
            w.put("queued", queued[g]);
            if (available != null) {
                w.put("available", available[g]);
            }
            workers.add(w);
        }
        return workers;
    }
}
