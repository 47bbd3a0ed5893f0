package org.balanceroute.admin.internal;

import com.fasterxml.jackson.databind.JsonNode;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.PUT;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import java.time.Duration;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.balanceroute.admin.PolicyAdmin;
import org.balanceroute.admin.PolicyAdmin.ParameterDescription;
import org.balanceroute.admin.PolicyAdmin.PolicyDescription;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Reference;
import org.osgi.service.jakartars.whiteboard.propertytypes.JakartarsExtensionSelect;
import org.osgi.service.jakartars.whiteboard.propertytypes.JakartarsName;
import org.osgi.service.jakartars.whiteboard.propertytypes.JakartarsResource;

/**
 * {@code GET /admin/policies} and {@code PUT /admin/policy}, over the {@link PolicyAdmin}
 * service: which policy is active, its parameters in force, which are available, and each
 * one's schema as its metatype describes it; switch or retune, answered once the change is in
 * force or after {@link #WAIT} at most. Hosted only with the JSON and authentication extensions
 * present. A singleton and stateless, so safe for concurrent requests: prototype scope cost an
 * SCR component instance per request, made under a lock every request thread contends for.
 */
@Component(service = PoliciesResource.class)
@JakartarsResource
@JakartarsName("balanceroute.admin.policies")
@JakartarsExtensionSelect({JsonProvider.SELECT, BasicAuthFilter.SELECT})
@Path("admin")
@Produces(MediaType.APPLICATION_JSON)
public final class PoliciesResource {

    /** The longest a {@code PUT /admin/policy} waits for its change to be in force. */
    static final Duration WAIT = Duration.ofSeconds(5);

    static final String POLICY = "policy";
    static final String PARAMETERS = "parameters";

    private final PolicyAdmin admin;
    private final PolicyAnswers answers;

    @Activate
    public PoliciesResource(@Reference(name = "policyAdmin") PolicyAdmin admin) {
        this(admin, WAIT);
    }

    PoliciesResource(PolicyAdmin admin, Duration wait) {
        this.admin = admin;
        this.answers = new PolicyAnswers(admin, wait);
    }

    /**
     * {@code {"active": NAME, "parameters": {...}, "available": [NAME, ...], "schema": {NAME:
     * [{"id", "name", "description", "type", "default", "min", "max", "options"}, ...], ...}}}, as
     * in force now: {@code parameters} are the active policy's values in force, {@code schema}
     * every available policy's tunables as its metatype describes them ({@code []} if none).
     */
    @GET
    @Path("policies")
    public Map<String, Object> policies() {
        String active = admin.activePolicy();
        List<PolicyDescription> policies = admin.policies();
        Map<String, Object> parameters = Map.of();
        Map<String, Object> schema = new LinkedHashMap<>();
        for (PolicyDescription p : policies) {
            if (p.name().equals(active)) {
                parameters = p.values();
            }
            schema.put(p.name(), p.parameters().stream().map(PoliciesResource::render).toList());
        }
        Map<String, Object> m = state(active, parameters, policies.stream().map(PolicyDescription::name).toList());
        m.put("schema", schema);
        return m;
    }

    /**
     * Body {@code {"policy": NAME, "parameters": {...}}} (parameters optional; those not given
     * keep their values), for the primary pool ({@code default}): as {@code PUT
     * /admin/pools/{pool}/policy} ({@link PolicyAnswers#put}). Answers once the router has the
     * change in force: 200 with the pool, the state in force ({@code active}, its
     * {@code parameters}, {@code available}) and {@code "applied": true}. If it is not in force
     * after {@link #WAIT}: 202 with the state as it is then, {@code "applied": false} and a
     * {@code message} saying what is not applied yet (the change is written and applies when the
     * router receives it). 400 naming the invalid field and what it allows, with nothing written.
     */
    @PUT
    @Path("policy")
    @Consumes(MediaType.APPLICATION_JSON)
    public Response update(JsonNode body) {
        return answers.putRouterWide(body);
    }

    /** The body's shape: the policy (null if missing or not text), its parameters into {@code parameters}. */
    static String read(JsonNode body, Map<String, Object> parameters) throws InvalidRequestException {
        if (body == null || !body.isObject()) {
            throw new InvalidRequestException("the request body must be a JSON object: "
                    + "{\"policy\": NAME, \"parameters\": {...}}", null);
        }
        for (Iterator<String> it = body.fieldNames(); it.hasNext(); ) {
            String field = it.next();
            if (!field.equals(POLICY) && !field.equals(PARAMETERS)) {
                throw new InvalidRequestException("unknown field '" + field + "'; expected 'policy' and 'parameters'",
                        field);
            }
        }
        JsonNode sent = body.get(PARAMETERS);
        if (sent != null && !sent.isNull() && !sent.isObject()) {
            throw new InvalidRequestException("parameters must be a JSON object of the policy's parameters", PARAMETERS);
        }
        if (sent != null && sent.isObject()) {
            sent.fields().forEachRemaining(e -> parameters.put(e.getKey(), value(e.getValue())));
        }
        JsonNode name = body.get(POLICY);
        return name != null && name.isTextual() ? name.textValue() : null;
    }

    /** A JSON value as Java types it: Long (or BigInteger), Double, Boolean, String, null; else the node. */
    static Object value(JsonNode n) {
        if (n.isNull()) {
            return null;
        }
        if (n.isBoolean()) {
            return n.booleanValue();
        }
        if (n.isTextual()) {
            return n.textValue();
        }
        if (n.isIntegralNumber()) {
            return n.canConvertToLong() ? (Object) n.longValue() : n.bigIntegerValue();
        }
        if (n.isNumber()) {
            return n.doubleValue();
        }
        return n; // an object or an array: refused by the parameter's type, shown as JSON
    }

    /** One parameter as {@code GET /admin/policies} shows it, with exactly these keys. */
    static Map<String, Object> render(ParameterDescription d) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("id", d.id());
        m.put("name", d.name());
        m.put("description", d.description());
        m.put("type", d.type());
        m.put("default", d.defaultValue());
        m.put("min", d.min());
        m.put("max", d.max());
        m.put("options", d.options());
        return m;
    }

    static Map<String, Object> state(String active, Map<String, Object> parameters, List<String> available) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("active", active);
        m.put("parameters", parameters);
        m.put("available", available);
        return m;
    }
}
