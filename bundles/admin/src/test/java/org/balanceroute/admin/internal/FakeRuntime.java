package org.balanceroute.admin.internal;

import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.balanceroute.fleet.DecodeInstance;
import org.balanceroute.fleet.Endpoint;
import org.balanceroute.fleet.Fleet;
import org.balanceroute.fleet.PoolTopology;

/**
 * The shipped policies in a runtime without a framework: the router and the policies consume
 * ConfigAdmin updates as the components do (the router's {@code policy} makes that policy active
 * in every pool that names none; a pool's factory configuration's {@code policy} makes it active
 * in that pool; a policy's PID gives its parameters in force, stored values over the metatype
 * defaults), after {@link #delayMillis} on another thread, or never while {@link #applying} is
 * false. The fleet has pool {@code default}, and the pools {@link #addPool} adds.
 */
final class FakeRuntime implements AutoCloseable {

    final FakeRouter router = new FakeRouter();
    final FakeConfigAdmin configs = new FakeConfigAdmin();
    final PolicySchemas schemas = ShippedSchemasTest.shippedSchemas();
    volatile Fleet fleet = new Fleet(Map.of(Fleet.DEFAULT_POOL, pool(Fleet.DEFAULT_POOL)));
    final PolicyAdminService admin = new PolicyAdminService(router, () -> fleet, new ConfigStore(configs.service()),
            schemas);
    volatile boolean applying = true;
    volatile long delayMillis;
    private final ScheduledExecutorService later = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "fake-runtime");
        t.setDaemon(true);
        return t;
    });

    FakeRuntime() {
        router.available = List.copyOf(schemas.byName().keySet());
        router.parameters = inForce();
        configs.listeners.add((pid, properties) -> {
            if (applying) {
                later.schedule(() -> apply(pid, properties), delayMillis, TimeUnit.MILLISECONDS);
            }
        });
    }

    /** A pool of one worker, in the fleet; with its router unless {@code routed} is false. */
    FakeRouter addPool(String name, boolean routed) {
        Map<String, PoolTopology> pools = new HashMap<>();
        fleet.pools().forEach(p -> pools.put(p.name(), p));
        pools.put(name, pool(name));
        fleet = new Fleet(pools);
        return routed ? router.addPool(name) : null;
    }

    private static PoolTopology pool(String name) {
        return new PoolTopology(name, "model-" + name, List.of(), List.of(),
                List.of(new DecodeInstance("decode", List.of(new Endpoint("http://" + name + ":8200", -1)), 64)));
    }

    private void apply(String pid, Map<String, Object> properties) {
        Object policy = properties.get("policy");
        if (router.available.contains(policy)) {
            String factoryPool = pid.startsWith(Fleet.FACTORY_PID + "~") ? pid.substring(Fleet.FACTORY_PID.length() + 1)
                    : null;
            for (String name : router.pools()) {
                FakeRouter r = (FakeRouter) router.pool(name);
                if (name.equals(factoryPool)) {
                    r.own = (String) policy;
                    r.active = r.own;
                } else if (pid.equals(PolicyAdminService.ROUTER_PID) && r.own == null) {
                    r.active = (String) policy;
                }
            }
        }
        router.parameters = inForce();
    }

    /** Every policy's parameters as its configuration (or the metatype's default) gives them. */
    private Map<String, Map<String, Object>> inForce() {
        Map<String, Map<String, Object>> all = new HashMap<>();
        schemas.byName().forEach((name, schema) -> {
            Map<String, Object> values = new LinkedHashMap<>();
            Map<String, Object> stored = schema.pid() == null || !configs.stored.containsKey(schema.pid()) ? Map.of()
                    : configs.stored.get(schema.pid());
            try {
                for (Tunable t : schema.tunables()) {
                    Object v = stored.get(t.id());
                    values.put(t.id(), v == null ? t.description().defaultValue() : t.fromStored(v, schema.pid()));
                }
                all.put(name, java.util.Collections.unmodifiableMap(values));
            } catch (Exception e) { // a rejected configuration: the values in force stay
                all.put(name, router.parameters.getOrDefault(name, Map.of()));
            }
        });
        return Map.copyOf(all);
    }

    @Override
    public void close() {
        later.shutdownNow();
    }
}
