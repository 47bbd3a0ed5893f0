package org.balanceroute.admin.internal;

import com.fasterxml.jackson.databind.JsonNode;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.PUT;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.balanceroute.admin.PolicyAdmin;
import org.balanceroute.api.PoolSnapshot;
import org.balanceroute.fleet.DecodeInstance;
import org.balanceroute.fleet.FleetService;
import org.balanceroute.fleet.PoolTopology;
import org.balanceroute.router.RouterService;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Reference;
import org.osgi.service.jakartars.whiteboard.propertytypes.JakartarsExtensionSelect;
import org.osgi.service.jakartars.whiteboard.propertytypes.JakartarsName;
import org.osgi.service.jakartars.whiteboard.propertytypes.JakartarsResource;

/**
 * The fleet as an operator sees it, drains and each pool's policy, every pool from its own router
 * ({@link RouterService#pool}):
 * <ul>
 *   <li>{@code GET /admin/pools}: every pool, its policy (active and configured), its instances and
 *       workers, each worker's state ({@code serving}, {@code draining}, {@code drained},
 *       {@code down}), running, queued and KV load, each instance's imbalance now;</li>
 *   <li>{@code GET} and {@code PUT /admin/pools/{pool}/policy}: the pool's policy, read and changed
 *       as {@code PUT /admin/policy} changes the primary pool's ({@link PolicyAnswers});</li>
 *   <li>{@code POST /admin/pools/{pool}/workers/{worker}/drain} and {@code /undrain}: a worker by
 *       its index in its pool (as in the metrics and {@code /admin/snapshot});</li>
 *   <li>{@code POST /admin/pools/{pool}/instances/{instance}/drain} and {@code /undrain}: every
 *       worker of an instance, by the instance's name.</li>
 * </ul>
 * A drain answers once the router applies it (no placement on the worker after the answer),
 * with the worker's state; a draining worker's running requests finish, then it is
 * {@code drained}. In a cluster of proxies the dispatcher applies it, so it holds on every
 * replica. Drains last while the runtime runs (a restart starts every worker serving).
 */
@Component(service = PoolsResource.class)
@JakartarsResource
@JakartarsName("balanceroute.admin.pools")
@JakartarsExtensionSelect({JsonProvider.SELECT, BasicAuthFilter.SELECT})
@Path("admin/pools")
@Produces(MediaType.APPLICATION_JSON)
public final class PoolsResource {

    /** How long a drain waits to see itself in force before it answers 202. */
    static final long APPLY_MILLIS = 10_000;
    private static final long POLL_MILLIS = 10;
    private static final String DRAIN = "drain";

    private final RouterService router;
    private final FleetService fleet;
    private final PolicyAnswers policies;

    @Activate
    public PoolsResource(@Reference(name = "router") RouterService router, @Reference(name = "fleet") FleetService fleet,
            @Reference(name = "policyAdmin") PolicyAdmin policyAdmin) {
        this(router, fleet, new PolicyAnswers(policyAdmin, PoliciesResource.WAIT));
    }

    PoolsResource(RouterService router, FleetService fleet, PolicyAnswers policies) {
        this.router = router;
        this.fleet = fleet;
        this.policies = policies;
    }

    /**
     * {@code {"pools": [{"pool", "model", "aliases", "prefillUrls", "activePolicy", "configuredPolicy",
     * "poolDepth", "imbalance", "instances": [...]}]}}; a pool whose router is not there yet without
     * the router's figures.
     */
    @GET
    public Map<String, Object> pools() {
        List<Map<String, Object>> pools = new ArrayList<>();
        for (PoolTopology pool : fleet.fleet().pools()) {
            RouterService r = router.pool(pool.name());
            pools.add(r == null ? render(pool, null, null, null)
                    : render(pool, r.snapshot(), r.activePolicy(), r.configuredPolicy()));
        }
        return Map.of("pools", pools);
    }

    /** {@code GET /admin/pools/{pool}/policy}. */
    @GET
    @Path("{pool}/policy")
    public Response policy(@PathParam("pool") String pool) {
        return policies.get(pool);
    }

    /** {@code PUT /admin/pools/{pool}/policy} with {@code {"policy": NAME, "parameters": {...}}}. */
    @PUT
    @Path("{pool}/policy")
    @Consumes(MediaType.APPLICATION_JSON)
    public Response changePolicy(@PathParam("pool") String pool, JsonNode body) {
        return policies.put(pool, body);
    }

    /** {@code POST /admin/pools/{pool}/workers/{worker}/drain} or {@code /undrain}. */
    @POST
    @Path("{pool}/workers/{worker}/{action: drain|undrain}")
    public Response worker(@PathParam("pool") String pool, @PathParam("worker") String worker,
            @PathParam("action") String action) {
        return drainWorker(pool, worker, DRAIN.equals(action));
    }

    /** {@code POST /admin/pools/{pool}/instances/{instance}/drain} or {@code /undrain}. */
    @POST
    @Path("{pool}/instances/{instance}/{action: drain|undrain}")
    public Response instance(@PathParam("pool") String pool, @PathParam("instance") String instance,
            @PathParam("action") String action) {
        return drainInstance(pool, instance, DRAIN.equals(action));
    }

    private Response drainWorker(String poolName, String worker, boolean drain) {
        PoolTopology pool = fleet.fleet().pool(poolName);
        if (pool == null) {
            return notFound("no pool '" + poolName + "' (GET /admin/pools lists them)", "pool");
        }
        int g;
        try {
            g = Integer.parseInt(worker);
        } catch (NumberFormatException e) {
            g = -1;
        }
        int workers = pool.workers().size();
        if (g < 0 || g >= workers) {
            return notFound("pool '" + poolName + "' has workers 0.." + (workers - 1) + ", not '" + worker + "'", "worker");
        }
        return apply(pool, g, g + 1, drain);
    }

    private Response drainInstance(String poolName, String instance, boolean drain) {
        PoolTopology pool = fleet.fleet().pool(poolName);
        if (pool == null) {
            return notFound("no pool '" + poolName + "' (GET /admin/pools lists them)", "pool");
        }
        int i = pool.instanceIndex(instance);
        if (i < 0) {
            return notFound("pool '" + poolName + "' has no instance '" + instance + "'", "instance");
        }
        int first = pool.firstWorker(i);
        return apply(pool, first, first + pool.instances().get(i).workers().size(), drain);
    }

    /**
     * Drains (or undrains) workers [from, to) on the pool's router and answers once it shows it,
     * with the pool's state; 503 while the pool has no router.
     */
    private Response apply(PoolTopology pool, int from, int to, boolean drain) {
        RouterService r = router.pool(pool.name());
        if (r == null) {
            return ErrorResponses.of(Response.Status.SERVICE_UNAVAILABLE, "pool '" + pool.name()
                    + "' has no router in this runtime yet", ErrorResponses.SERVER, "pool");
        }
        for (int g = from; g < to; g++) {
            r.setWorkerDraining(g, drain);
        }
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(APPLY_MILLIS);
        PoolSnapshot s = r.snapshot();
        while (!inForce(s, from, to, drain)) {
            if (System.nanoTime() - deadline > 0) {
                return Response.status(Response.Status.ACCEPTED)
                        .entity(render(pool, s, r.activePolicy(), r.configuredPolicy())).build();
            }
            try {
                TimeUnit.MILLISECONDS.sleep(POLL_MILLIS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                break;
            }
            s = r.snapshot();
        }
        return Response.ok(render(pool, s, r.activePolicy(), r.configuredPolicy())).build();
    }

    private static boolean inForce(PoolSnapshot s, int from, int to, boolean drain) {
        if (s.workers() < to) {
            return false;
        }
        for (int g = from; g < to; g++) {
            if (s.draining(g) != drain) {
                return false;
            }
        }
        return true;
    }

    /**
     * One pool: its policy, its instances and workers with their state; without a router (policies
     * null, no snapshot) or while the router's layout is not the topology's, without the figures.
     */
    static Map<String, Object> render(PoolTopology pool, PoolSnapshot s, String activePolicy,
            String configuredPolicy) {
        boolean known = s != null && s.workers() == pool.workers().size();
        int[] running = known ? s.running() : null;
        int[] queued = known ? s.queued() : null;
        List<Map<String, Object>> instances = new ArrayList<>();
        int g = 0;
        for (int i = 0; i < pool.instances().size(); i++) {
            DecodeInstance instance = pool.instances().get(i);
            List<Map<String, Object>> workers = new ArrayList<>();
            for (var endpoint : instance.workers()) {
                Map<String, Object> w = new LinkedHashMap<>();
                w.put("worker", g);
                w.put("endpoint", endpoint.id());
                if (known) {
                    w.put("state", s.state(g));
                    w.put("running", running[g]);
                    w.put("queued", queued[g]);
                    w.put("load", s.load(g));
                }
                workers.add(w);
                g++;
            }
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("instance", instance.name());
            m.put("capacity", instance.capacity());
            if (known) {
                m.put("imbalance", s.groupImbalance(i));
            }
            m.put("workers", workers);
            instances.add(m);
        }
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("pool", pool.name());
        m.put("model", pool.model());
        m.put("aliases", pool.aliases());
        m.put("prefillUrls", pool.prefillUrls());
        if (activePolicy != null) {
            m.put("activePolicy", activePolicy);
            m.put("configuredPolicy", configuredPolicy);
        }
        if (known) {
            m.put("poolDepth", s.poolDepth());
            m.put("imbalance", s.imbalance());
        }
        m.put("instances", instances);
        return m;
    }

    private static Response notFound(String message, String param) {
        return ErrorResponses.of(Response.Status.NOT_FOUND, message, ErrorResponses.INVALID_REQUEST, param);
    }
}
