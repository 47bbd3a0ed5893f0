package org.balanceroute.console.internal;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.List;
import java.util.Map;
import org.balanceroute.admin.PolicyAdmin.ChangeResult;
import org.balanceroute.admin.PolicyAdmin.ParameterDescription;
import org.balanceroute.admin.PolicyAdmin.PolicyDescription;
import org.balanceroute.admin.auth.ConsoleCredentials;
import org.balanceroute.api.PoolSnapshot;
import org.balanceroute.fleet.Fleet;
import org.balanceroute.fleet.PoolTopology;
import org.balanceroute.router.ReplicaShare;
import org.balanceroute.router.ReplicasStatus;

/**
 * The JSON the console page reads ({@code GET .../balanceroute/state.json?since=SEQ}) and the
 * answers to its changes. Pure: built from values, so that tests need no framework. The page's
 * script (res/balanceroute.js) is the one reader; the field names below are its contract.
 */
final class StateJson {

    static final ObjectMapper JSON = new ObjectMapper();

    private StateJson() {
    }

    /**
     * {@code {"seq": LAST, "capacity": N, "intervalMillis": MS, "samples": [{"seq", "t", "step",
     * "poolDepth", "imbalance", "loads": [...], "groups": [...], "instanceImbalance": [...]}]}}:
     * the samples after the viewer's last, oldest first; t in epoch milliseconds; loads in KV
     * tokens, one per worker; groups the decode instance of each worker (the page draws one chart
     * per instance); imbalance max - min over every worker, instanceImbalance one per instance
     * (over its workers not draining, each instance being its own barrier).
     */
    static ObjectNode history(List<LoadHistory.Sample> samples, int capacity, long intervalMillis, long lastSeq) {
        ObjectNode h = JSON.createObjectNode();
        h.put("seq", lastSeq);
        h.put("capacity", capacity);
        h.put("intervalMillis", intervalMillis);
        ArrayNode out = h.putArray("samples");
        for (LoadHistory.Sample s : samples) {
            ObjectNode o = out.addObject();
            o.put("seq", s.seq());
            o.put("t", s.timeMillis());
            o.put("step", s.snapshot().step());
            o.put("poolDepth", s.snapshot().poolDepth());
            o.put("imbalance", s.imbalance());
            ArrayNode loads = o.putArray("loads");
            for (long l : s.snapshot().loads()) {
                loads.add(l);
            }
            ArrayNode groups = o.putArray("groups");
            for (int g : s.snapshot().groups()) {
                groups.add(g);
            }
            ArrayNode instanceImbalance = o.putArray("instanceImbalance");
            for (int i = 0; i < s.snapshot().groupCount(); i++) {
                instanceImbalance.add(s.snapshot().groupImbalance(i));
            }
        }
        return h;
    }

    /**
     * {@code {"t", "step", "poolDepth", "capacity", "imbalance", "workers": [{"worker", "load",
     * "running", "queued", "available", "instance", "draining", "state"}]}} of the newest sample;
     * null before the first. state: {@link PoolSnapshot#state}.
     */
    static JsonNode latest(LoadHistory.Sample s) {
        if (s == null) {
            return JSON.nullNode();
        }
        PoolSnapshot c = s.snapshot();
        ObjectNode o = JSON.createObjectNode();
        o.put("t", s.timeMillis());
        o.put("step", c.step());
        o.put("poolDepth", c.poolDepth());
        o.put("capacity", c.capacity());
        o.put("imbalance", s.imbalance());
        long[] loads = c.loads();
        int[] running = c.running();
        int[] queued = c.queued();
        boolean[] available = c.available();
        ArrayNode workers = o.putArray("workers");
        for (int g = 0; g < loads.length; g++) {
            ObjectNode w = workers.addObject();
            w.put("worker", g);
            w.put("load", loads[g]);
            w.put("running", running[g]);
            w.put("queued", queued[g]);
            w.put("available", available[g]);
            w.put("instance", c.group(g));
            w.put("draining", c.draining(g));
            w.put("state", c.state(g));
        }
        return o;
    }

    /**
     * {@code {"store", "clustered", "localMember", "dispatcher", "viewAgeMillis", "members":
     * [{"member", "address", "dispatcher", "local", "pooled", "load", "share", "running",
     * "queued"}]}}: clustered is store != local; share is the member's fraction of the summed load
     * (0 when nothing is loaded). Null when the router did not answer.
     */
    static JsonNode replicas(ReplicasStatus c) {
        if (c == null) {
            return JSON.nullNode();
        }
        ObjectNode o = JSON.createObjectNode();
        o.put("store", c.store());
        o.put("clustered", !ReplicasStatus.LOCAL.equals(c.store()));
        o.put("localMember", c.localMember());
        o.put("dispatcher", c.dispatcher());
        o.put("viewAgeMillis", c.viewAgeMillis());
        long total = 0;
        for (ReplicaShare s : c.members()) {
            total += s.totalLoad();
        }
        ArrayNode members = o.putArray("members");
        for (ReplicaShare s : c.members()) {
            int run = 0, queue = 0;
            for (int r : s.running()) {
                run += r;
            }
            for (int q : s.queued()) {
                queue += q;
            }
            ObjectNode m = members.addObject();
            m.put("member", s.member());
            m.put("address", s.address());
            m.put("dispatcher", s.dispatcher());
            m.put("local", s.member().equals(c.localMember()));
            m.put("pooled", s.pooled());
            m.put("load", s.totalLoad());
            m.put("share", total == 0 ? 0.0 : (double) s.totalLoad() / total);
            m.put("running", run);
            m.put("queued", queue);
        }
        return o;
    }

    /**
     * {@code {"manageable": true, "active": NAME, "list": [{"name", "pid", "active", "parameters":
     * [{"id", "name", "description", "type", "default", "min", "max", "options": [{"label",
     * "value"}]}], "values": {...}}]}}, from PolicyAdmin's schema: the page's form is generated
     * from it, so a hot-deployed policy's tunables appear with no code here.
     */
    static ObjectNode policies(String active, List<PolicyDescription> list) {
        ObjectNode o = JSON.createObjectNode();
        o.put("manageable", true);
        o.put("active", active);
        ArrayNode out = o.putArray("list");
        for (PolicyDescription p : list) {
            ObjectNode po = out.addObject();
            po.put("name", p.name());
            po.put("pid", p.pid());
            po.put("active", p.name().equals(active));
            ArrayNode params = po.putArray("parameters");
            for (ParameterDescription d : p.parameters()) {
                ObjectNode d0 = params.addObject();
                d0.put("id", d.id());
                d0.put("name", d.name());
                d0.put("description", d.description());
                d0.put("type", d.type());
                d0.set("default", JSON.valueToTree(d.defaultValue()));
                d0.put("min", d.min());
                d0.put("max", d.max());
                ArrayNode options = d0.putArray("options");
                if (d.options() != null) {
                    d.options().forEach((label, value) -> options.addObject().put("label", label).put("value", value));
                }
            }
            po.set("values", JSON.valueToTree(p.values() == null ? Map.of() : p.values()));
        }
        return o;
    }

    /**
     * Without PolicyAdmin (or when it failed): {@code {"manageable": false, "active", "message",
     * "list": [{"name", "active", "parameters": [], "values": {...}}]}}: names only, no switch.
     */
    static ObjectNode policiesReadOnly(String active, List<String> names, String message) {
        ObjectNode o = JSON.createObjectNode();
        o.put("manageable", false);
        o.put("active", active);
        o.put("message", message);
        ArrayNode out = o.putArray("list");
        for (String n : names) {
            ObjectNode po = out.addObject();
            po.put("name", n);
            po.putNull("pid");
            po.put("active", n.equals(active));
            po.putArray("parameters");
            po.putObject("values");
        }
        return o;
    }

    /**
     * {@code {"user", "defaultInForce", "problem"}}: whether the console's default admin / admin
     * opens the console and the admin API (the page warns), and why the credentials refuse everyone,
     * if they do.
     */
    static ObjectNode credentials(ConsoleCredentials c) {
        ObjectNode o = JSON.createObjectNode();
        o.put("user", c.user());
        o.put("defaultInForce", c.isDefault());
        o.put("problem", c.problem());
        return o;
    }

    /** A change's answer: {@code {"outcome": "applied"|"pending", "pool", "active", "parameters", "message"}}. */
    static ObjectNode changed(String pool, ChangeResult r) {
        ObjectNode o = JSON.createObjectNode();
        o.put("outcome", r.applied() ? "applied" : "pending");
        o.put("pool", pool);
        o.put("active", r.active());
        o.set("parameters", JSON.valueToTree(r.parameters() == null ? Map.of() : r.parameters()));
        o.put("message", r.message());
        return o;
    }

    /**
     * A drain's or undrain's answer: {@code {"outcome": "applied", "action": "drain"|"undrain",
     * "pool", "instance", "workers": [{"worker", "endpoint", "state"}], "message"}}; state as the
     * router shows it just after (null when it did not answer).
     */
    static ObjectNode drained(String action, DrainRequest.Target target, Fleet fleet, PoolSnapshot after) {
        ObjectNode o = JSON.createObjectNode();
        o.put("outcome", "applied");
        o.put("action", action);
        o.put("pool", target.pool());
        o.put("instance", target.instance());
        PoolTopology topology = fleet == null ? null : fleet.pool(target.pool());
        boolean named = FleetView.matches(topology, after);
        List<String> ids = named ? topology.workerIds() : List.of();
        ArrayNode workers = o.putArray("workers");
        StringBuilder names = new StringBuilder();
        for (int g : target.workers()) {
            ObjectNode w = workers.addObject();
            w.put("worker", g);
            w.put("endpoint", g < ids.size() ? ids.get(g) : null);
            w.put("state", after != null && g < after.workers() ? after.state(g) : null);
            names.append(names.length() == 0 ? "" : ", ").append(g);
        }
        String what = (target.instance() == null ? "worker " : "instance " + target.instance() + " (workers ")
                + names + (target.instance() == null ? "" : ")");
        o.put("message", "drain".equals(action)
                ? "pool " + target.pool() + ", " + what + ": draining: no new requests, those on it run to their end"
                : "pool " + target.pool() + ", " + what + ": drain ended, takes new requests");
        return o;
    }

    /** A refusal: {@code {"outcome": "refused", "message", "field"}} (field null for the body as a whole). */
    static ObjectNode refused(String message, String field) {
        ObjectNode o = JSON.createObjectNode();
        o.put("outcome", "refused");
        o.put("message", message);
        o.put("field", field);
        return o;
    }
}
