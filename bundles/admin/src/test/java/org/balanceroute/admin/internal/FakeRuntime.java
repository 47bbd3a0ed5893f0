package org.balanceroute.admin.internal;

import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * The shipped policies in a runtime without a framework: the router and the policies consume
 * ConfigAdmin updates as the components do (the router's {@code policy} makes that policy active;
 * a policy's PID gives its parameters in force, stored values over the metatype defaults), after
 * {@link #delayMillis} on another thread, or never while {@link #applying} is false.
 */
final class FakeRuntime implements AutoCloseable {

    final FakeRouter router = new FakeRouter();
    final FakeConfigAdmin configs = new FakeConfigAdmin();
    final PolicySchemas schemas = ShippedSchemasTest.shippedSchemas();
    final PolicyAdminService admin = new PolicyAdminService(router, new ConfigStore(configs.service()), schemas);
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

    private void apply(String pid, Map<String, Object> properties) {
        if (pid.equals(PolicyAdminService.ROUTER_PID) && router.available.contains(properties.get("policy"))) {
            router.active = (String) properties.get("policy");
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
