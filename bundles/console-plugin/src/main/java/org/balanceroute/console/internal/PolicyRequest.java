package org.balanceroute.console.internal;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.balanceroute.admin.PolicyAdmin.ParameterDescription;
import org.balanceroute.admin.PolicyAdmin.PolicyDescription;

/**
 * A change the page asks for: {@code {"pool": NAME, "policy": NAME, "parameters": {ID: VALUE, ...}}}
 * ({@code pool} optional: the primary pool; {@code parameters} optional), with each value typed as the policy's schema declares it
 * ({@code integer} as Integer, {@code long} as Long, {@code number} as Double, {@code boolean} as
 * Boolean, {@code string} as String; a form's text such as {@code "12"} is read the same way).
 * Values that do not read as their type, and parameters the schema does not list, are passed on
 * as they came, so that {@code PolicyAdmin} refuses them with its own message: range and validity
 * are its to judge, not the page's.
 */
record PolicyRequest(String pool, String policy, Map<String, Object> parameters) {

    /** A body that is not a change at all; nothing is passed on. */
    static final class BadRequest extends Exception {

        private static final long serialVersionUID = 1L;
        final String field;

        BadRequest(String message, String field) {
            super(message);
            this.field = field;
        }
    }

    static PolicyRequest parse(JsonNode body, List<PolicyDescription> policies) throws BadRequest {
        if (body == null || !body.isObject()) {
            throw new BadRequest("the body must be a JSON object {\"policy\": NAME, \"parameters\": {...}}", null);
        }
        JsonNode name = body.get("policy");
        if (name == null || !name.isTextual() || name.textValue().isBlank()) {
            throw new BadRequest("policy must be a policy name", "policy");
        }
        String policy = name.textValue().trim();
        JsonNode poolNode = body.get("pool");
        if (poolNode != null && !poolNode.isNull() && (!poolNode.isTextual() || poolNode.textValue().isBlank())) {
            throw new BadRequest("pool must be a pool's name", "pool");
        }
        String pool = poolNode == null || poolNode.isNull() ? null : poolNode.textValue().trim();
        Map<String, ParameterDescription> schema = new LinkedHashMap<>();
        for (PolicyDescription p : policies) {
            if (p.name().equals(policy)) {
                p.parameters().forEach(d -> schema.put(d.id(), d));
            }
        }
        Map<String, Object> values = new LinkedHashMap<>();
        JsonNode parameters = body.get("parameters");
        if (parameters != null && !parameters.isNull()) {
            if (!parameters.isObject()) {
                throw new BadRequest("parameters must be a JSON object of parameter values", "parameters");
            }
            for (Iterator<Map.Entry<String, JsonNode>> it = parameters.fields(); it.hasNext(); ) {
                Map.Entry<String, JsonNode> e = it.next();
                JsonNode v = e.getValue();
                if (v.isNull() || v.isContainerNode()) {
                    throw new BadRequest(e.getKey() + " must be a single value", e.getKey());
                }
                ParameterDescription d = schema.get(e.getKey());
                values.put(e.getKey(), d == null ? raw(v) : typed(v, d.type()));
            }
        }
        return new PolicyRequest(pool, policy, values);
    }

    /** The value as its schema type, or as it came when it does not read as one. */
    static Object typed(JsonNode v, String type) {
        String text = v.isTextual() ? v.textValue().trim() : null;
        try {
            switch (type == null ? "" : type) {
                case "integer" -> {
                    if (v.isIntegralNumber() && v.canConvertToInt()) {
                        return v.intValue();
                    }
                    if (text != null) {
                        return Integer.valueOf(text);
                    }
                }
                case "long" -> {
                    if (v.isIntegralNumber() && v.canConvertToLong()) {
                        return v.longValue();
                    }
                    if (text != null) {
                        return Long.valueOf(text);
                    }
                }
                case "number" -> {
                    if (v.isNumber()) {
                        return v.doubleValue();
                    }
                    if (text != null) {
                        double d = Double.parseDouble(text);
                        if (Double.isFinite(d)) {
                            return d;
                        }
                    }
                }
                case "boolean" -> {
                    if (v.isBoolean()) {
                        return v.booleanValue();
                    }
                    if ("true".equalsIgnoreCase(text) || "false".equalsIgnoreCase(text)) {
                        return Boolean.valueOf(text);
                    }
                }
                case "string" -> {
                    return v.isTextual() ? v.textValue() : v.asText();
                }
                default -> {
                    // an unknown type: as it came
                }
            }
        } catch (NumberFormatException e) {
            // as it came, for PolicyAdmin to refuse
        }
        return raw(v);
    }

    static Object raw(JsonNode v) {
        if (v.isTextual()) {
            return v.textValue();
        }
        if (v.isBoolean()) {
            return v.booleanValue();
        }
        if (v.isIntegralNumber()) {
            return v.canConvertToInt() ? (Object) v.intValue() : v.canConvertToLong() ? (Object) v.longValue()
                    : v.bigIntegerValue();
        }
        if (v.isNumber()) {
            return v.doubleValue();
        }
        return v.asText();
    }
}
