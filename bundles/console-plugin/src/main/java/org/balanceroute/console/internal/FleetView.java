package org.balanceroute.console.internal;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.List;
import java.util.Map;
import org.balanceroute.api.PoolSnapshot;
import org.balanceroute.fleet.DecodeInstance;
import org.balanceroute.fleet.Endpoint;
import org.balanceroute.fleet.Fleet;
import org.balanceroute.fleet.PoolTopology;

/**
 * The fleet as the page shows it: the pools of the topology ({@link Fleet}), their decode
 * instances and workers, each pool with its own router's live figures ({@link PoolSnapshot})
 * and active policy. Pure: built from values, so that tests need no framework.
 *
 * <p>A pool's workers are its router's workers 0.., instance by instance, as the topology numbers
 * them. Drains from the page act on the served pool ({@link #served}). The topology and a
 * router's layout agree except for the moment a change takes to reach the router; then (or without a topology at all) the instances and workers
 * are the snapshot's groups, named by their index, without endpoints.
 */
final class FleetView {

    private FleetView() {
    }

    /** Whether the topology is the router's layout in the snapshot: as many workers, in the same instances. */
    static boolean matches(PoolTopology p, PoolSnapshot s) {
        if (p == null || s == null || p.workers().size() != s.workers()) {
            return false;
        }
        int[] groups = s.groups();
        int g = 0;
        for (int i = 0; i < p.instances().size(); i++) {
            for (int k = 0; k < p.instances().get(i).workers().size(); k++, g++) {
                if (groups[g] != i) {
                    return false;
                }
            }
        }
        return true;
    }

    /** The instance's name the page shows and a drain names: the topology's, or its index. */
    static String instanceName(PoolTopology p, PoolSnapshot s, int instance) {
        return matches(p, s) ? p.instances().get(instance).name() : Integer.toString(instance);
    }

    /**
     * {@code {"primaryPool", "message", "pools": [{"name", "model", "primary", "routed", "activePolicy",
     * "imbalance", "instances": [{"index", "name", "capacity", "imbalance", "workers": [{"worker",
     * "endpoint", "state", "load", "running", "queued", "available", "draining", "drained"}]}]}]}}.
     * Each pool carries its own router's figures ({@code snapshots}: imbalance: an instance's
     * heaviest minus lightest worker not draining; the pool's: the largest of its instances') and
     * policy ({@code policies}); a pool without a router ({@code routed} false) or before its first
     * snapshot carries its topology only, with state null. {@code primary}: the pool of the registered
     * router, whose history is state.json's {@code history} (every other pool's is in {@code histories}). message says why a topology is not shown as it
     * is, or is null.
     *
     * @param primary the primary pool's name ({@code RouterService.poolName()})
     * @param snapshots each routed pool's latest snapshot, by name
     * @param policies each routed pool's active policy, by name
     */
    static ObjectNode json(Fleet fleet, String primary, Map<String, PoolSnapshot> snapshots,
            Map<String, String> policies) {
        ObjectNode o = StateJson.JSON.createObjectNode();
        o.put("primaryPool", primary);
        String message = null;
        ArrayNode pools = o.putArray("pools");
        List<PoolTopology> all = fleet == null ? List.of() : fleet.pools();
        for (PoolTopology p : all) {
            PoolSnapshot s = snapshots.get(p.name());
            ObjectNode po;
            if (s != null && s.workers() > 0 && !matches(p, s)) {
                message = "the router's workers differ from pool " + p.name()
                        + "'s topology (a change on its way to the router): shown as the router has them";
                po = live(p.name(), p.model(), null, s);
            } else if (s != null && s.workers() > 0) {
                po = live(p.name(), p.model(), p, s);
            } else {
                po = topologyOnly(p);
            }
            pools.add(marked(po, p.name().equals(primary), policies.get(p.name())));
        }
        PoolSnapshot own = snapshots.get(primary);
        if (all.isEmpty() && own != null && own.workers() > 0) {
            message = "no pool topology (the fleet service is not available): the router's workers are shown";
            pools.add(marked(live(primary, null, null, own), true, policies.get(primary)));
        }
        o.put("message", message);
        return o;
    }

    /** {@code primary}, {@code routed} (it has a router: a policy) and {@code activePolicy}, after the name and model. */
    private static ObjectNode marked(ObjectNode pool, boolean primary, String activePolicy) {
        ObjectNode po = StateJson.JSON.createObjectNode();
        po.set("name", pool.remove("name"));
        po.set("model", pool.remove("model"));
        po.put("primary", primary);
        po.put("routed", activePolicy != null);
        po.put("activePolicy", activePolicy);
        po.setAll(pool);
        return po;
    }

    /** A pool with its router's figures; names and endpoints from {@code p} when it is the layout. */
    private static ObjectNode live(String name, String model, PoolTopology p, PoolSnapshot s) {
        ObjectNode po = StateJson.JSON.createObjectNode();
        po.put("name", name);
        po.put("model", model);
        long[] loads = s.loads();
        int[] running = s.running();
        int[] queued = s.queued();
        boolean[] available = s.available();
        boolean[] draining = s.draining();
        int[] capacities = s.capacities();
        int[] groups = s.groups();
        long poolImbalance = 0;
        ArrayNode instances = po.putArray("instances");
        int g = 0;
        for (int i = 0; i < s.groupCount(); i++) {
            ObjectNode in = instances.addObject();
            in.put("index", i);
            in.put("name", p == null ? Integer.toString(i) : p.instances().get(i).name());
            long imbalance = s.groupImbalance(i);
            poolImbalance = Math.max(poolImbalance, imbalance);
            in.put("capacity", g < capacities.length ? capacities[g] : s.capacity());
            in.put("imbalance", imbalance);
            ArrayNode workers = in.putArray("workers");
            List<Endpoint> endpoints = p == null ? null : p.instances().get(i).workers();
            for (int k = 0; g < loads.length && groups[g] == i; g++, k++) {
                ObjectNode w = workers.addObject();
                w.put("worker", g);
                w.put("endpoint", endpoints == null ? null : endpoints.get(k).id());
                w.put("state", s.state(g));
                w.put("load", loads[g]);
                w.put("running", running[g]);
                w.put("queued", queued[g]);
                w.put("available", available[g]);
                w.put("draining", draining[g]);
                w.put("drained", s.drained(g));
            }
        }
        po.put("imbalance", poolImbalance);
        return po;
    }

    /** A pool as configured, without live figures (no router yet, or no sample yet). */
    private static ObjectNode topologyOnly(PoolTopology p) {
        ObjectNode po = StateJson.JSON.createObjectNode();
        po.put("name", p.name());
        po.put("model", p.model());
        po.putNull("imbalance");
        ArrayNode instances = po.putArray("instances");
        int g = 0;
        for (int i = 0; i < p.instances().size(); i++) {
            DecodeInstance d = p.instances().get(i);
            ObjectNode in = instances.addObject();
            in.put("index", i);
            in.put("name", d.name());
            in.put("capacity", d.capacity());
            in.putNull("imbalance");
            ArrayNode workers = in.putArray("workers");
            for (Endpoint e : d.workers()) {
                ObjectNode w = workers.addObject();
                w.put("worker", g++);
                w.put("endpoint", e.id());
                w.putNull("state");
            }
        }
        return po;
    }
}
