package org.balanceroute.fleet;

import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The topology in force: every pool by name, consistent with each other (no model name and no
 * decode worker in two pools). Immutable; a configuration change makes a new one.
 */
public final class Fleet {

    /** Factory PID of a pool's configuration: one configuration, one file, per pool. */
    public static final String FACTORY_PID = "org.balanceroute.pool";

    /** A pool's configuration property naming its own routing policy (absent or empty: the router's). */
    public static final String POLICY_PROPERTY = "policy";

    /** The pool a configuration without pools becomes, and the one {@code PUT /admin/policy} acts on. */
    public static final String DEFAULT_POOL = "default";

    /** The empty fleet: no pool yet. */
    public static final Fleet EMPTY = new Fleet(Map.of());

    private final Map<String, PoolTopology> pools;

    public Fleet(Map<String, PoolTopology> pools) {
        this.pools = java.util.Collections.unmodifiableMap(new TreeMap<>(pools));
    }

    /** The pools, sorted by name. */
    public List<PoolTopology> pools() {
        return List.copyOf(pools.values());
    }

    /** The pool of that name, or null. */
    public PoolTopology pool(String name) {
        return pools.get(name);
    }

    /**
     * The pool serving a model name (its model or an alias), or null when no pool does. A pool
     * whose model is {@link PoolTopology#ANY_MODEL} serves every name no other pool claims.
     */
    public PoolTopology forModel(String model) {
        PoolTopology any = null;
        for (PoolTopology p : pools.values()) {
            if (p.model().equals(model) || p.aliases().contains(model)) {
                return p;
            }
            if (PoolTopology.ANY_MODEL.equals(p.model())) {
                any = p;
            }
        }
        return any;
    }

    /**
     * The primary pool: {@value #DEFAULT_POOL}, or else the first by name; null while there is no
     * pool. The router's and the connector's own service methods (and {@code PUT /admin/policy})
     * act on it; every other pool is reached by name.
     */
    public PoolTopology primaryPool() {
        PoolTopology p = pool(DEFAULT_POOL);
        if (p == null && !pools.isEmpty()) {
            p = pools.values().iterator().next();
        }
        return p;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Fleet f && pools.equals(f.pools);
    }

    @Override
    public int hashCode() {
        return pools.hashCode();
    }

    @Override
    public String toString() {
        return "Fleet" + pools.values();
    }
}
