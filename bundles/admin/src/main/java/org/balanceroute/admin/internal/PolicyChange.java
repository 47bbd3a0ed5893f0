package org.balanceroute.admin.internal;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.Collections;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.stream.Collectors;

/**
 * A validated {@code PUT /admin/policy} body: which policy to make active, which values to write
 * to which configuration PID, and the policy's parameters as they will be once written.
 * Validation is all-or-nothing: the first invalid field throws, and nothing is written.
 *
 * @param policy the policy to configure on the router
 * @param writes new values by configuration PID (only the fields the request sent)
 * @param parameters the policy's parameters after the change: sent, else stored, else default
 */
record PolicyChange(String policy, Map<String, Map<String, Object>> writes, Map<String, Object> parameters) {

    static final String POLICY = "policy";
    static final String PARAMETERS = "parameters";

    /**
     * @param available the registered policy names
     * @param stored the current properties of a configuration PID, or an empty map if it has none
     */
    static PolicyChange parse(JsonNode body, List<String> available, Function<String, Map<String, ?>> stored)
            throws InvalidRequestException {
        if (body == null || !body.isObject()) {
            throw new InvalidRequestException("the request body must be a JSON object: "
                    + "{\"policy\": NAME, \"parameters\": {...}}", null);
        }
        for (Iterator<String> it = body.fieldNames(); it.hasNext(); ) {
            String field = it.next();
            if (!field.equals(POLICY) && !field.equals(PARAMETERS)) {
                throw new InvalidRequestException("unknown field '" + field + "'; expected 'policy' and 'parameters'", field);
            }
        }
        JsonNode name = body.get(POLICY);
        if (name == null || !name.isTextual() || name.textValue().isBlank()) {
            throw new InvalidRequestException("policy must be the name of one of the available policies: "
                    + String.join(", ", available), POLICY);
        }
        String policy = name.textValue().trim();
        if (!available.contains(policy)) {
            throw new InvalidRequestException("unknown policy '" + policy + "'; available: "
                    + String.join(", ", available), POLICY);
        }
        JsonNode sent = body.get(PARAMETERS);
        if (sent != null && !sent.isNull() && !sent.isObject()) {
            throw new InvalidRequestException("parameters must be a JSON object of the policy's parameters", PARAMETERS);
        }
        List<ParameterSpec> specs = ParameterSpec.of(policy);
        Map<String, ParameterSpec> byName = specs.stream()
                .collect(Collectors.toMap(ParameterSpec::name, s -> s, (a, b) -> a, LinkedHashMap::new));
        Map<String, Map<String, Object>> writes = new LinkedHashMap<>();
        Map<String, Object> given = new LinkedHashMap<>();
        if (sent != null && sent.isObject()) {
            for (Iterator<Map.Entry<String, JsonNode>> it = sent.fields(); it.hasNext(); ) {
                Map.Entry<String, JsonNode> e = it.next();
                ParameterSpec spec = byName.get(e.getKey());
                if (spec == null) {
                    throw new InvalidRequestException(specs.isEmpty()
                            ? "policy '" + policy + "' has no parameters, got '" + e.getKey() + "'"
                            : "unknown parameter '" + e.getKey() + "' for policy '" + policy + "'; known: "
                                    + String.join(", ", byName.keySet()), e.getKey());
                }
                Object value = spec.check(e.getValue());
                given.put(spec.name(), value);
                writes.computeIfAbsent(spec.pid(), pid -> new LinkedHashMap<>()).put(spec.name(), value);
            }
        }
        Map<String, Object> parameters = new LinkedHashMap<>();
        for (ParameterSpec spec : specs) {
            Object value = given.get(spec.name());
            if (value == null) {
                Object old = stored.apply(spec.pid()).get(spec.name());
                value = old == null ? spec.defaultValue() : spec.checkStored(old);
            }
            parameters.put(spec.name(), value);
        }
        return new PolicyChange(policy, Collections.unmodifiableMap(writes), Collections.unmodifiableMap(parameters));
    }
}
