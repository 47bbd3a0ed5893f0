package org.balanceroute.proxy.internal;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import java.nio.charset.StandardCharsets;
import org.balanceroute.connector.vllm.VllmConnector;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Reference;
import org.osgi.service.jakartars.whiteboard.propertytypes.JakartarsName;
import org.osgi.service.jakartars.whiteboard.propertytypes.JakartarsResource;

/**
 * {@code GET /health}: 200 when every pool has at least one prefill instance (none in co-located
 * mode) and all its decode workers passed their last health check, else 503. The body
 * {@code {"status": "ok" | "unavailable", "prefill": [bool...], "decode": [bool...], "pools":
 * {NAME: {"status", "prefill", "decode"}...}}} says which: {@code prefill} and {@code decode} are
 * the primary pool's (as before pools), {@code pools} every pool's.
 */
@Component(service = HealthResource.class)
@JakartarsResource
@JakartarsName("balanceroute.proxy.health")
@Path("health")
public final class HealthResource {

    private static final ObjectMapper MAPPER = new ObjectMapper();
    private final VllmConnector connector;

    @Activate
    public HealthResource(@Reference(name = "connector") VllmConnector connector) {
        this.connector = connector;
    }

    @GET
    public Response health() {
        String primaryName = connector.poolName();
        PoolHealth primary = null;
        boolean ok = true;
        ObjectNode pools = MAPPER.createObjectNode();
        for (String name : connector.pools()) {
            VllmConnector pool = connector.pool(name);
            if (pool != null) { // else removed since pools() was read
                PoolHealth h = PoolHealth.of(pool);
                ok &= h.ok();
                pools.set(name, h.json());
                if (name.equals(primaryName)) {
                    primary = h;
                }
            }
        }
        if (primary == null) { // no pool connected (yet): the connector's own, no engine
            primary = PoolHealth.of(connector);
            ok &= primary.ok();
        }
        ObjectNode answer = MAPPER.createObjectNode();
        answer.put("status", status(ok));
        answer.set("prefill", primary.prefill());
        answer.set("decode", primary.decode());
        answer.set("pools", pools);
        // the body goes out as bytes: no JSON provider involved
        return Response.status(ok ? 200 : 503).type(MediaType.APPLICATION_JSON_TYPE)
                .entity(answer.toString().getBytes(StandardCharsets.UTF_8)).build();
    }

    private static String status(boolean ok) {
        return ok ? "ok" : "unavailable";
    }

    /** One pool's marks and whether it can serve. */
    private record PoolHealth(boolean ok, ArrayNode prefill, ArrayNode decode) {

        static PoolHealth of(VllmConnector pool) {
            ArrayNode prefill = MAPPER.createArrayNode();
            ArrayNode decode = MAPPER.createArrayNode();
            boolean anyPrefill = false;
            boolean allDecode = true;
            for (int i = 0; i < pool.prefillInstances(); i++) {
                boolean up = pool.prefillHealthy(i);
                prefill.add(up);
                anyPrefill |= up;
            }
            for (int g = 0; g < pool.decodeWorkers(); g++) {
                boolean up = pool.decodeHealthy(g);
                decode.add(up);
                allDecode &= up;
            }
            // no prefill instance: co-located mode
            return new PoolHealth((anyPrefill || prefill.isEmpty()) && allDecode, prefill, decode);
        }

        ObjectNode json() {
            ObjectNode o = MAPPER.createObjectNode();
            o.put("status", status(ok));
            o.set("prefill", prefill);
            o.set("decode", decode);
            return o;
        }
    }
}
