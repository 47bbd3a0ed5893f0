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
 * {@code GET /health}: 200 when at least one prefill instance (none in co-located mode) and every
 * decode worker passed their last health check, else 503; the body {@code {"status": "ok" | "unavailable",
 * "prefill": [bool...], "decode": [bool...]}} says which.
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
        ArrayNode prefill = MAPPER.createArrayNode();
        ArrayNode decode = MAPPER.createArrayNode();
        boolean anyPrefill = false;
        boolean allDecode = true;
        for (int i = 0; i < connector.prefillInstances(); i++) {
            boolean up = connector.prefillHealthy(i);
            prefill.add(up);
            anyPrefill |= up;
        }
        for (int g = 0; g < connector.decodeWorkers(); g++) {
            boolean up = connector.decodeHealthy(g);
            decode.add(up);
            allDecode &= up;
        }
        boolean ok = (anyPrefill || connector.prefillInstances() == 0) && allDecode; // 0: co-located mode
        ObjectNode answer = MAPPER.createObjectNode();
        answer.put("status", ok ? "ok" : "unavailable");
        answer.set("prefill", prefill);
        answer.set("decode", decode);
        // the body goes out as bytes: no JSON provider involved
        return Response.status(ok ? 200 : 503).type(MediaType.APPLICATION_JSON_TYPE)
                .entity(answer.toString().getBytes(StandardCharsets.UTF_8)).build();
    }
}
