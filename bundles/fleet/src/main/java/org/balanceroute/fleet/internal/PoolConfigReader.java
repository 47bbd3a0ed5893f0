package org.balanceroute.fleet.internal;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;
import org.balanceroute.api.PoolView;
import org.balanceroute.api.config.ConfigProperties;
import org.balanceroute.api.config.ConfigurationException;
import org.balanceroute.fleet.DecodeInstance;
import org.balanceroute.fleet.Endpoint;
import org.balanceroute.fleet.Fleet;
import org.balanceroute.fleet.PoolTopology;

/**
 * Reads one pool's configuration (factory PID {@code org.balanceroute.pool}, one file per pool):
 *
 * <pre>
 *   model = deepseek-v3                       # the served model name (required)
 *   aliases = dsv3, deepseek                  # other names for it (optional)
 *   prefillUrls = http://p0:8100, http://p1:8100   # empty: co-located mode
 *   instances = a, b                          # the decode instances, in worker order
 *   instance.a.workers = http://d0:8200;rank=0, http://d0:8200;rank=1, ...
 *   instance.a.capacity = 64                  # B of its ranks; default PoolView.DEFAULT_CAPACITY
 *   instance.b.workers = ...
 *   policy = least-tokens                     # this pool's routing policy (optional: the router's)
 * </pre>
 *
 * Instances are entries inside the pool's file (not a configuration each) so that a pool is read,
 * checked and applied whole: a rank listed twice, an instance without ranks or a worker list that
 * names an instance not declared is seen in one configuration, and an operator's edit never
 * leaves a pool half-applied. Never half-reads: the first invalid property is named in the
 * exception, and nothing of the configuration is used.
 */
final class PoolConfigReader {

    static final String MODEL = "model";
    static final String ALIASES = "aliases";
    static final String PREFILL_URLS = "prefillUrls";
    static final String INSTANCES = "instances";
    static final String INSTANCE_PREFIX = "instance.";
    static final String WORKERS_SUFFIX = ".workers";
    static final String CAPACITY_SUFFIX = ".capacity";
    static final String POLICY = Fleet.POLICY_PROPERTY;
    static final int MAX_WORKERS = 1024;
    private static final Pattern NAME = Pattern.compile("[A-Za-z0-9_.-]{1,64}");

    private PoolConfigReader() {
    }

    /**
     * @param pool the pool's name (the factory configuration's name)
     * @throws IllegalArgumentException naming the first invalid property (a {@link ConfigurationException}
     *     when a value does not convert or is out of range)
     */
    static PoolTopology read(String pool, Map<String, ?> props) {
        ConfigProperties c = ConfigProperties.of(Fleet.FACTORY_PID + "~" + pool, props);
        if (!NAME.matcher(pool).matches()) {
            throw new IllegalArgumentException("name: '" + pool + "': a pool's name is 1-64 of A-Z a-z 0-9 _ . -");
        }
        String model = c.text(MODEL, "");
        if (model.isEmpty()) {
            throw new IllegalArgumentException(MODEL + ": required (the served model name clients send)");
        }
        if (model.equals(PoolTopology.ANY_MODEL)) {
            throw new IllegalArgumentException(MODEL + ": '*' is reserved for the pool migrated from a configuration"
                    + " without pools; name the model");
        }
        List<String> aliases = c.list(ALIASES, "");
        Set<String> names = new HashSet<>(List.of(model));
        for (String a : aliases) {
            if (!names.add(a)) {
                throw new IllegalArgumentException(ALIASES + ": '" + a + "' is listed twice (or is the model itself)");
            }
        }
        List<String> prefill = new ArrayList<>();
        for (String u : c.list(PREFILL_URLS, "")) {
            prefill.add(Endpoint.url(PREFILL_URLS, u));
        }
        List<String> instanceNames = c.list(INSTANCES, "");
        if (instanceNames.isEmpty()) {
            throw new IllegalArgumentException(INSTANCES + ": at least one decode instance");
        }
        Set<String> seenInstances = new HashSet<>();
        Set<String> seenWorkers = new HashSet<>();
        List<DecodeInstance> instances = new ArrayList<>();
        int total = 0;
        for (String name : instanceNames) {
            if (!NAME.matcher(name).matches()) {
                throw new IllegalArgumentException(INSTANCES + ": '" + name + "': an instance's name is 1-64 of A-Z a-z 0-9 _ . -");
            }
            if (!seenInstances.add(name)) {
                throw new IllegalArgumentException(INSTANCES + ": '" + name + "' is listed twice");
            }
            String workersKey = INSTANCE_PREFIX + name + WORKERS_SUFFIX;
            List<Endpoint> workers = new ArrayList<>();
            for (String entry : c.list(workersKey, "")) {
                Endpoint e = Endpoint.parse(workersKey, entry);
                if (!seenWorkers.add(e.id())) {
                    throw new IllegalArgumentException(workersKey + ": '" + e.id() + "' is listed twice in the pool");
                }
                workers.add(e);
            }
            if (workers.isEmpty()) {
                throw new IllegalArgumentException(workersKey + ": instance '" + name + "' has no worker");
            }
            total += workers.size();
            String capacityKey = INSTANCE_PREFIX + name + CAPACITY_SUFFIX;
            int capacity = c.intValue(capacityKey, PoolView.DEFAULT_CAPACITY, 1, PoolView.MAX_CAPACITY);
            instances.add(new DecodeInstance(name, workers, capacity));
        }
        if (total > MAX_WORKERS) {
            throw new IllegalArgumentException(INSTANCES + ": " + total + " decode workers, at most " + MAX_WORKERS
                    + " in a pool");
        }
        for (String key : props.keySet()) {
            if (key.startsWith(INSTANCE_PREFIX)) {
                String rest = key.substring(INSTANCE_PREFIX.length());
                int dot = rest.lastIndexOf('.');
                String instance = dot < 0 ? rest : rest.substring(0, dot);
                String what = dot < 0 ? "" : rest.substring(dot);
                if (!seenInstances.contains(instance) || !(what.equals(WORKERS_SUFFIX) || what.equals(CAPACITY_SUFFIX))) {
                    throw new IllegalArgumentException(key + ": not an instance property (instance." + "NAME.workers or"
                            + " instance.NAME.capacity, NAME listed in " + INSTANCES + ")");
                }
            }
        }
        String policy = c.text(POLICY, "");
        if (!policy.isEmpty() && !NAME.matcher(policy).matches()) {
            throw new IllegalArgumentException(POLICY + ": '" + policy + "': a policy's name is 1-64 of A-Z a-z 0-9 _ . -");
        }
        return new PoolTopology(pool, model, aliases, prefill, instances, policy);
    }
}
