package org.balanceroute.metrics.internal;

import io.prometheus.client.exporter.common.TextFormat;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.core.Response;
import java.util.ArrayList;
import java.util.List;
import org.balanceroute.api.PoolSnapshot;
import org.balanceroute.connector.vllm.VllmConnector;
import org.balanceroute.fleet.Fleet;
import org.balanceroute.fleet.FleetService;
import org.balanceroute.router.ReplicasStatus;
import org.balanceroute.router.RouterService;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Reference;
import org.osgi.service.component.annotations.ReferenceCardinality;
import org.osgi.service.component.annotations.ReferencePolicy;
import org.osgi.service.jakartars.whiteboard.propertytypes.JakartarsName;
import org.osgi.service.jakartars.whiteboard.propertytypes.JakartarsResource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code GET /metrics}: the Prometheus text exposition, on the runtime's port, without
 * credentials (like vLLM's own {@code /metrics}). Every pool's router snapshot is read at scrape
 * time from its own router ({@link RouterService#pool}), the primary pool first.
 * A singleton and stateless, so safe for concurrent requests: prototype scope cost an SCR component
 * instance per request, made under a lock every request thread contends for.
 */
@Component(service = MetricsResource.class)
@JakartarsResource
@JakartarsName("balanceroute.metrics")
@Path("metrics")
public final class MetricsResource {

    private static final Logger LOG = LoggerFactory.getLogger(MetricsResource.class);

    private final BalanceRouteMetrics metrics;
    private final RouterService router;
    /** The engine connector, when one is installed: its prefill tier's gauges. */
    @Reference(cardinality = ReferenceCardinality.OPTIONAL, policy = ReferencePolicy.DYNAMIC)
    private volatile VllmConnector connector;
    /**
     * The fleet's topology, when the fleet bundle is there: the names in the {@code pool} and
     * {@code instance} labels (without it, {@code pool="default"} and each instance's index).
     */
    @Reference(cardinality = ReferenceCardinality.OPTIONAL, policy = ReferencePolicy.DYNAMIC)
    private volatile FleetService fleet;

    @Activate
    public MetricsResource(@Reference(name = "metrics") BalanceRouteMetrics metrics,
            @Reference(name = "router") RouterService router) {
        this.metrics = metrics;
        this.router = router;
    }

    @GET
    public Response scrape() {
        Fleet f = fleet == null ? null : fleet.fleet();
        VllmConnector c = connector;
        List<BalanceRouteMetrics.PoolState> pools = new ArrayList<>();
        String primary = router.poolName();
        pools.add(state(primary, router, f, c));
        for (String name : router.pools()) {
            RouterService r = router.pool(name);
            if (r != null && !name.equals(primary)) {
                pools.add(state(name, r, f, c));
            }
        }
        return Response.ok(metrics.scrape(pools), TextFormat.CONTENT_TYPE_004).build();
    }

    /** One pool from its own router and connector; what its router cannot answer is left null. */
    static BalanceRouteMetrics.PoolState state(String name, RouterService r, Fleet f, VllmConnector c) {
        PoolSnapshot snapshot = null;
        ReplicasStatus replicas = null;
        String policy = null;
        try {
            snapshot = r.snapshot();
            replicas = r.replicas();
            policy = r.activePolicy();
        } catch (IllegalStateException e) {
            LOG.debug("metrics: no router snapshot of pool {}: {}", name, e.toString());
        }
        VllmConnector poolConnector = c == null ? null : c.pool(name);
        return new BalanceRouteMetrics.PoolState(name, f == null ? null : f.pool(name), snapshot, replicas, policy,
                r.observedStepNanos(), prefillTier(poolConnector));
    }

    private static BalanceRouteMetrics.PrefillTier prefillTier(VllmConnector c) {
        if (c == null) {
            return null;
        }
        int[] inFlight = new int[c.prefillInstances()];
        for (int i = 0; i < inFlight.length; i++) {
            inFlight[i] = c.prefillInFlight(i);
        }
        return new BalanceRouteMetrics.PrefillTier(inFlight, c.prefillQueued());
    }
}
