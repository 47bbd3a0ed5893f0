package org.balanceroute.admin.internal;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import org.balanceroute.admin.PolicyAdmin.InvalidChangeException;

/**
 * A validated change: which policy to make active, which values to write to its configuration
 * PID, and the policy's parameters as they will be once written. Validated against the policy's
 * schema (its metatype, {@link Tunable}) and nothing else. All-or-nothing: the first invalid
 * field throws, and nothing is written.
 *
 * @param policy the policy to configure on the router
 * @param pid the PID its parameters are written to, or null if it has none
 * @param writes the values to write to {@code pid} (only the parameters the change gives)
 * @param parameters the policy's parameters after the change: given, else stored, else default
 */
record PolicyChange(String policy, String pid, Map<String, Object> writes, Map<String, Object> parameters) {

    static final String POLICY = "policy";

    /**
     * @param sent the parameters to change, typed as JSON gives them (Long, Double, Boolean, String)
     * @param available the registered policy names
     * @param schema the policy's schema, or null if none is known (no parameters then)
     * @param stored the current properties of a configuration PID, or an empty map if it has none
     */
    static PolicyChange of(String policy, Map<String, ?> sent, List<String> available, PolicySchemas.PolicySchema schema,
            Function<String, Map<String, ?>> stored) throws InvalidChangeException {
        if (policy == null || policy.isBlank()) {
            throw new InvalidChangeException("policy must be the name of one of the available policies: "
                    + String.join(", ", available), POLICY);
        }
        String name = policy.trim();
        if (!available.contains(name)) {
            throw new InvalidChangeException("unknown policy '" + name + "'; available: " + String.join(", ", available),
                    POLICY);
        }
        List<Tunable> tunables = schema == null ? List.of() : schema.tunables();
        String pid = tunables.isEmpty() ? null : schema.pid();
        Map<String, Tunable> byId = new LinkedHashMap<>();
        tunables.forEach(t -> byId.put(t.id(), t));
        for (String given : sent.keySet()) {
            if (!byId.containsKey(given)) {
                throw new InvalidChangeException(byId.isEmpty()
                        ? "policy '" + name + "' has no parameters, got '" + given + "'"
                        : "unknown parameter '" + given + "' for policy '" + name + "'; known: "
                                + String.join(", ", byId.keySet()), given);
            }
        }
        Map<String, Object> writes = new LinkedHashMap<>(); // in the schema's order
        for (Tunable t : tunables) {
            if (sent.containsKey(t.id())) {
                writes.put(t.id(), t.fromRequest(sent.get(t.id())));
            }
        }
        Map<String, Object> parameters = new LinkedHashMap<>();
        Map<String, ?> current = pid == null ? Map.of() : stored.apply(pid);
        for (Tunable t : tunables) {
            Object value = writes.get(t.id());
            if (value == null) {
                Object old = current.get(t.id());
                value = old == null ? t.description().defaultValue() : t.fromStored(old, pid);
            }
            if (value != null) {
                parameters.put(t.id(), value);
            }
        }
        return new PolicyChange(name, pid, Collections.unmodifiableMap(writes), Collections.unmodifiableMap(parameters));
    }
}
