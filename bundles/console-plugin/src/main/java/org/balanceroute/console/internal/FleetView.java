package org.balanceroute.console.internal;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.List;
import org.balanceroute.api.ClusterSnapshot;
import org.balanceroute.fleet.DecodeInstance;
import org.balanceroute.fleet.Endpoint;
import org.balanceroute.fleet.Fleet;
import org.balanceroute.fleet.PoolTopology;

/**
 * The fleet as the page shows it: the pools of the topology ({@link Fleet}), their decode
 * instances and workers, with the router's live figures ({@link ClusterSnapshot}) on the pool the
 * router serves. Pure: built from values, so that tests need no framework.
 *
 * <p>The router serves one pool: {@value Fleet#DEFAULT_POOL}, or the only one configured (the
 * connector's rule); its workers are the router's workers 0.., instance by instance, as the
 * topology numbers them. The topology and the router's layout agree except for the moment a
 * change takes to reach the router; then (or without a topology at all) the instances and workers
 * are the snapshot's groups, named by their index, without endpoints.
 */
final class FleetView {

    /** A worker that takes new requests. */
    static final String SERVING = "serving";
    /** An operator drains it: no new requests; some still run or wait there. */
    static final String DRAINING = "draining";
    /** Drained: draining, nothing left on it. */
    static final String DRAINED = "drained";
    /** Its engine fails its health checks: out of routing whatever the drain. */
    static final String DOWN = "down";

    private FleetView() {
    }

    /** The pool the router serves: {@value Fleet#DEFAULT_POOL}, or the only pool; null if neither exists. */
    static PoolTopology served(Fleet fleet) {
        if (fleet == null) {
            return null;
        }
        PoolTopology p = fleet.pool(Fleet.DEFAULT_POOL);
        if (p == null && fleet.pools().size() == 1) {
            p = fleet.pools().get(0);
        }
        return p;
    }

    /** The served pool's name: the topology's, or {@value Fleet#DEFAULT_POOL} without one. */
    static String servedName(Fleet fleet) {
        PoolTopology p = served(fleet);
        return p == null ? Fleet.DEFAULT_POOL : p.name();
    }

    /** Worker g's state: {@link #DOWN}, {@link #DRAINED}, {@link #DRAINING} or {@link #SERVING}, in that precedence. */
    static String state(ClusterSnapshot s, int g) {
        if (!s.available()[g]) {
            return DOWN;
        }
        if (s.drained(g)) {
            return DRAINED;
        }
        return s.draining(g) ? DRAINING : SERVING;
    }

    /** Whether the topology is the router's layout in the snapshot: as many workers, in the same instances. */
    static boolean matches(PoolTopology p, ClusterSnapshot s) {
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
    static String instanceName(PoolTopology p, ClusterSnapshot s, int instance) {
        return matches(p, s) ? p.instances().get(instance).name() : Integer.toString(instance);
    }

    /**
     * {@code {"servedPool", "message", "pools": [{"name", "model", "served", "imbalance",
     * "instances": [{"index", "name", "capacity", "imbalance", "workers": [{"worker", "endpoint",
     * "state", "load", "running", "queued", "available", "draining", "drained"}]}]}]}}. The served
     * pool carries the snapshot's figures (imbalance: an instance's heaviest minus lightest worker
     * not draining; the pool's: the largest of its instances'); other pools (not routed by this
     * runtime yet) and a pool before the first sample carry their topology only, with state null.
     * message says why the topology is not shown as it is, or is null.
     */
    static ObjectNode json(Fleet fleet, ClusterSnapshot s) {
        ObjectNode o = StateJson.JSON.createObjectNode();
        PoolTopology served = served(fleet);
        String servedName = servedName(fleet);
        o.put("servedPool", servedName);
        String message = null;
        ArrayNode pools = o.putArray("pools");
        List<PoolTopology> all = fleet == null ? List.of() : fleet.pools();
        boolean servedShown = false;
        for (PoolTopology p : all) {
            if (served != null && p.name().equals(served.name())) {
                if (s != null && s.workers() > 0 && !matches(p, s)) {
                    message = "the router's workers differ from pool " + p.name()
                            + "'s topology (a change on its way to the router): shown as the router has them";
                    pools.add(live(p.name(), p.model(), null, s));
                } else if (s != null && s.workers() > 0) {
                    pools.add(live(p.name(), p.model(), p, s));
                } else {
                    pools.add(topologyOnly(p, true));
                }
                servedShown = true;
            } else {
                pools.add(topologyOnly(p, false));
            }
        }
        if (!servedShown && s != null && s.workers() > 0) {
            message = "no pool topology (the fleet service is not available): the router's workers are shown";
            pools.insert(0, live(servedName, null, null, s));
        }
        o.put("message", message);
        return o;
    }

    /** The served pool with the snapshot's figures; names and endpoints from {@code p} when it is the layout. */
    private static ObjectNode live(String name, String model, PoolTopology p, ClusterSnapshot s) {
        ObjectNode po = StateJson.JSON.createObjectNode();
        po.put("name", name);
        po.put("model", model);
        po.put("served", true);
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
                w.put("state", state(s, g));
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

    /** A pool as configured, without live figures (not routed here, or no sample yet). */
    private static ObjectNode topologyOnly(PoolTopology p, boolean served) {
        ObjectNode po = StateJson.JSON.createObjectNode();
        po.put("name", p.name());
        po.put("model", p.model());
        po.put("served", served);
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
