package org.balanceroute.admin.internal;

import com.fasterxml.jackson.databind.JsonNode;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.PUT;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import java.io.IOException;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.balanceroute.router.RouterService;
import org.osgi.service.cm.ConfigurationAdmin;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Reference;
import org.osgi.service.jakartars.whiteboard.propertytypes.JakartarsExtensionSelect;
import org.osgi.service.jakartars.whiteboard.propertytypes.JakartarsName;
import org.osgi.service.jakartars.whiteboard.propertytypes.JakartarsResource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code GET /admin/policies} and {@code PUT /admin/policy}: which policy is active, its
 * parameters, which are available; switch or retune through ConfigAdmin (router PID
 * {@code org.balanceroute.router} property {@code policy}; BR parameters in PID
 * {@code org.balanceroute.policy.balance}; seeds in {@code org.balanceroute.policy.baseline.random}
 * / {@code .p2c}), so a change persists like a configuration file edit and takes effect when
 * the components receive it. Hosted only with the JSON and authentication extensions present.
 * A singleton and stateless, so safe for concurrent requests: prototype scope cost an SCR component
 * instance per request, made under a lock every request thread contends for.
 */
@Component(service = PoliciesResource.class)
@JakartarsResource
@JakartarsName("balanceroute.admin.policies")
@JakartarsExtensionSelect({JsonProvider.SELECT, BasicAuthFilter.SELECT})
@Path("admin")
@Produces(MediaType.APPLICATION_JSON)
public final class PoliciesResource {

    /** The router's configuration PID and its property naming the active policy. */
    static final String ROUTER_PID = RouterService.PID;
    static final String ROUTER_POLICY = "policy";

    private static final Logger LOG = LoggerFactory.getLogger(PoliciesResource.class);

    private final RouterService router;
    private final ConfigStore configs;

    @Activate
    public PoliciesResource(@Reference(name = "router") RouterService router,
            @Reference(name = "configurationAdmin") ConfigurationAdmin configurationAdmin) {
        this.router = router;
        this.configs = new ConfigStore(configurationAdmin);
    }

    /** {@code {"active": NAME, "parameters": {...}, "available": [NAME, ...]}}, as in force now. */
    @GET
    @Path("policies")
    public Map<String, Object> policies() {
        String active = router.activePolicy();
        return state(active, router.policyParameters(active), router.availablePolicies());
    }

    /**
     * Body {@code {"policy": NAME, "parameters": {...}}} (parameters optional). Answers 200 with
     * the new state ({@code active} is the policy now configured, {@code parameters} its values
     * as written), or 400 naming the invalid field, with nothing written.
     */
    @PUT
    @Path("policy")
    @Consumes(MediaType.APPLICATION_JSON)
    public Response update(JsonNode body) {
        List<String> available = router.availablePolicies();
        PolicyChange change;
        try {
            change = PolicyChange.parse(body, available, configs::read);
        } catch (InvalidRequestException e) {
            return ErrorResponses.invalid(e.getMessage(), e.param());
        }
        try {
            for (Map.Entry<String, Map<String, Object>> w : change.writes().entrySet()) {
                configs.write(w.getKey(), w.getValue());
            }
            configs.write(ROUTER_PID, Map.of(ROUTER_POLICY, change.policy()));
        } catch (IOException | RuntimeException e) {
            LOG.error("admin API: writing the configuration failed", e);
            return ErrorResponses.of(Response.Status.INTERNAL_SERVER_ERROR,
                    "the configuration could not be written: " + e.getMessage(), ErrorResponses.SERVER, null);
        }
        LOG.info("admin API: policy {} configured, parameters {}", change.policy(), change.parameters());
        return Response.ok(state(change.policy(), change.parameters(), available), MediaType.APPLICATION_JSON_TYPE)
                .build();
    }

    static Map<String, Object> state(String active, Map<String, Object> parameters, List<String> available) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("active", active);
        m.put("parameters", parameters);
        m.put("available", available);
        return m;
    }
}
