package org.balanceroute.console.internal;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.List;
import java.util.function.UnaryOperator;
import org.balanceroute.api.PoolSnapshot;
import org.balanceroute.fleet.Endpoint;
import org.balanceroute.fleet.Fleet;
import org.balanceroute.fleet.PoolTopology;

/**
 * A drain or undrain the page asks for ({@code POST .../balanceroute/drain} or {@code .../undrain}):
 * {@code pool} and either {@code worker} (its index in the pool, as the page and the admin API
 * number it, or its endpoint id) or {@code instance} (its name, or its index), as a JSON object or
 * form fields. {@link #resolve} finds the workers it names in the router's current layout.
 *
 * @param pool the pool's name
 * @param worker the worker as given, or null
 * @param instance the instance as given, or null
 */
record DrainRequest(String pool, String worker, String instance) {

    /** A request refused: the HTTP status, why, and the field at fault (null for the body as a whole). */
    static final class Refusal extends Exception {

        private static final long serialVersionUID = 1L;
        final int status;
        final String field;

        Refusal(int status, String message, String field) {
            super(message);
            this.status = status;
            this.field = field;
        }
    }

    /**
     * What a resolved request acts on.
     *
     * @param pool the pool
     * @param instance the instance's name when a whole instance was named, else null
     * @param workers the workers' indices in the router's layout
     */
    record Target(String pool, String instance, int[] workers) {
    }

    static final String USAGE = "give pool and either worker (index or endpoint) or instance (name)";

    /** From a JSON object: {@code {"pool", "worker"}} or {@code {"pool", "instance"}}. */
    static DrainRequest parse(JsonNode body) throws Refusal {
        if (body == null || !body.isObject()) {
            throw new Refusal(400, "the body must be a JSON object: " + USAGE, null);
        }
        return parse(name -> {
            JsonNode v = body.get(name);
            return v == null || v.isNull() || v.isContainerNode() ? null : v.asText();
        });
    }

    /** From form or query fields (or any lookup by name). */
    static DrainRequest parse(UnaryOperator<String> fields) throws Refusal {
        String pool = trimmed(fields.apply("pool"));
        String worker = trimmed(fields.apply("worker"));
        String instance = trimmed(fields.apply("instance"));
        if (pool == null) {
            throw new Refusal(400, "pool is missing: " + USAGE, "pool");
        }
        if ((worker == null) == (instance == null)) {
            throw new Refusal(400, (worker == null ? "neither worker nor instance" : "both worker and instance")
                    + " given: " + USAGE, worker == null ? "worker" : "instance");
        }
        return new DrainRequest(pool, worker, instance);
    }

    private static String trimmed(String s) {
        return s == null || s.isBlank() ? null : s.trim();
    }

    /**
     * The workers this request names in its pool's router layout ({@code snapshot}, that pool's
     * router's), checked against the topology: the pool must exist (404; without a topology only
     * {@value Fleet#DEFAULT_POOL}), the worker or instance must be one of its (404), and the router
     * must have its workers (503).
     */
    Target resolve(Fleet fleet, PoolSnapshot snapshot) throws Refusal {
        PoolTopology topology = fleet == null ? null : fleet.pool(pool);
        if (fleet == null ? !pool.equals(Fleet.DEFAULT_POOL) : topology == null) {
            throw new Refusal(404, "no pool '" + pool + "'", "pool");
        }
        if (snapshot == null || snapshot.workers() == 0) {
            throw new Refusal(503, "the router has no workers yet (the pool's topology has not reached it)", null);
        }
        boolean named = FleetView.matches(topology, snapshot);
        if (worker != null) {
            int g = workerIndex(named ? topology : null, snapshot.workers());
            return new Target(pool, null, new int[] {g});
        }
        int i = instanceIndex(named ? topology : null, snapshot.groupCount());
        List<Integer> members = new ArrayList<>();
        for (int g = 0; g < snapshot.workers(); g++) {
            if (snapshot.group(g) == i) {
                members.add(g);
            }
        }
        return new Target(pool, FleetView.instanceName(topology, snapshot, i),
                members.stream().mapToInt(Integer::intValue).toArray());
    }

    private int workerIndex(PoolTopology topology, int workers) throws Refusal {
        if (worker.chars().allMatch(Character::isDigit)) {
            try {
                int g = Integer.parseInt(worker);
                if (g < workers) {
                    return g;
                }
            } catch (NumberFormatException e) {
                // too large: no such worker
            }
            throw new Refusal(404, "pool '" + pool + "' has no worker " + worker + " (workers 0.." + (workers - 1) + ")",
                    "worker");
        }
        if (topology != null) {
            List<Endpoint> all = topology.workers();
            for (int g = 0; g < all.size(); g++) {
                if (all.get(g).id().equals(worker)) {
                    return g;
                }
            }
        }
        throw new Refusal(404, "pool '" + pool + "' has no worker '" + worker + "' (a worker is its index 0.."
                + (workers - 1) + " or its endpoint)", "worker");
    }

    private int instanceIndex(PoolTopology topology, int instances) throws Refusal {
        if (topology != null) {
            int i = topology.instanceIndex(instance);
            if (i >= 0) {
                return i;
            }
        }
        if (instance.chars().allMatch(Character::isDigit) && instance.length() < 6 && Integer.parseInt(instance) < instances) {
            return Integer.parseInt(instance);
        }
        String names = topology == null ? "0.." + (instances - 1)
                : String.join(", ", topology.instances().stream().map(d -> d.name()).toList());
        throw new Refusal(404, "pool '" + pool + "' has no instance '" + instance + "' (instances " + names + ")",
                "instance");
    }
}
