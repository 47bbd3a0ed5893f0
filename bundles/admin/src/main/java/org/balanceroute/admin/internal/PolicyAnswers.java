package org.balanceroute.admin.internal;

import com.fasterxml.jackson.databind.JsonNode;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.balanceroute.admin.PolicyAdmin;
import org.balanceroute.admin.PolicyAdmin.ChangeResult;
import org.balanceroute.admin.PolicyAdmin.InvalidChangeException;
import org.balanceroute.admin.PolicyAdmin.PolicyDescription;
import org.balanceroute.admin.PolicyAdmin.PoolPolicy;
import org.balanceroute.admin.PolicyAdmin.UnknownPoolException;

/**
 * A pool's policy as the admin API reads and changes it: {@code PUT /admin/policy} (the primary
 * pool) and {@code GET} / {@code PUT /admin/pools/{pool}/policy} answer alike, over
 * {@link PolicyAdmin}.
 *
 * @param patience the longest a change waits to be in force before it is answered 202
 */
record PolicyAnswers(PolicyAdmin admin, Duration patience) {

    /**
     * {@code {"pool", "active", "configured", "parameters", "available"}}: the policy the pool's
     * router uses, the one it is configured with (null while the pool has no router yet), the
     * active policy's values in force and the available policies. 404 for an unknown pool.
     */
    Response get(String pool) {
        PoolPolicy p;
        try {
            p = admin.poolPolicy(pool);
        } catch (UnknownPoolException e) {
            return notFound(e);
        }
        List<PolicyDescription> policies = admin.policies();
        Map<String, Object> parameters = Map.of();
        for (PolicyDescription d : policies) {
            if (d.name().equals(p.active())) {
                parameters = d.values();
            }
        }
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("pool", pool);
        m.put("active", p.active());
        m.put("configured", p.configured());
        m.put("parameters", parameters);
        m.put("available", policies.stream().map(PolicyDescription::name).toList());
        return json(Response.Status.OK, m);
    }

    /**
     * Body {@code {"policy": NAME, "parameters": {...}}} for one pool: 200 {@code {"pool", "active",
     * "parameters", "available", "applied": true, "message"}} once in force on the pool's router, 202
     * with {@code "applied": false} if not within {@link #patience}, 400 naming the invalid field, 404
     * for an unknown pool (nothing written on either), 500 if ConfigAdmin cannot write.
     */
    Response put(String pool, JsonNode body) {
        return put(pool, body, false);
    }

    /** {@code PUT /admin/policy}: the primary pool's answer, the router's {@code policy} written ({@link PolicyAdmin#change(String, Map, java.time.Duration)}). */
    Response putRouterWide(JsonNode body) {
        return put(admin.primaryPool(), body, true);
    }

    private Response put(String pool, JsonNode body, boolean routerWide) {
        String policy;
        Map<String, Object> parameters = new LinkedHashMap<>();
        try {
            policy = PoliciesResource.read(body, parameters);
        } catch (InvalidRequestException e) {
            return ErrorResponses.invalid(e.getMessage(), e.param());
        }
        ChangeResult result;
        try {
            result = routerWide ? admin.change(policy, parameters, patience) : admin.change(pool, policy, parameters, patience);
        } catch (UnknownPoolException e) {
            return notFound(e);
        } catch (InvalidChangeException e) {
            return ErrorResponses.invalid(e.getMessage(), e.field());
        } catch (IllegalStateException e) {
            return ErrorResponses.of(Response.Status.INTERNAL_SERVER_ERROR, e.getMessage(), ErrorResponses.SERVER, null);
        }
        List<String> available = admin.policies().stream().map(PolicyDescription::name).toList();
        Map<String, Object> answer = new LinkedHashMap<>();
        answer.put("pool", pool);
        answer.putAll(PoliciesResource.state(result.active(), result.parameters(), available));
        answer.put("applied", result.applied());
        answer.put("message", result.message());
        return json(result.applied() ? Response.Status.OK : Response.Status.ACCEPTED, answer);
    }

    private static Response json(Response.Status status, Map<String, Object> body) {
        return Response.status(status).type(MediaType.APPLICATION_JSON_TYPE).entity(body).build();
    }

    private static Response notFound(UnknownPoolException e) {
        return ErrorResponses.of(Response.Status.NOT_FOUND, e.getMessage(), ErrorResponses.INVALID_REQUEST, e.field());
    }
}
