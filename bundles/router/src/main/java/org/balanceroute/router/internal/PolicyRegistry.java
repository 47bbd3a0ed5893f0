package org.balanceroute.router.internal;

import java.util.ArrayList;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.balanceroute.api.RoutingPolicy;

/**
 * The registered {@link RoutingPolicy} services by name (their {@code balanceroute.policy}
 * property). If two services carry the same name, the one with the highest
 * {@code service.ranking}, then the lowest {@code service.id}, wins, as the framework ranks
 * services. Changed from the framework's threads (bind, unbind), rarely; every change publishes
 * a new immutable map that the dispatch thread reads without locking.
 */
final class PolicyRegistry {

    private record Entry(String name, int ranking, long serviceId, RoutingPolicy policy) {

        boolean beats(Entry other) {
            return ranking != other.ranking ? ranking > other.ranking : serviceId < other.serviceId;
        }
    }

    private final Map<RoutingPolicy, Entry> entries = new IdentityHashMap<>();
    private volatile Map<String, RoutingPolicy> byName = Map.of();

    /** Adds or re-reads a policy; returns the new map by name. */
    synchronized Map<String, RoutingPolicy> put(RoutingPolicy policy, Map<String, ?> properties) {
        entries.put(policy, new Entry(nameOf(policy, properties), intProperty(properties, "service.ranking"),
                longProperty(properties, "service.id"), policy));
        return publish();
    }

    /** Removes a policy; returns the new map by name. */
    synchronized Map<String, RoutingPolicy> remove(RoutingPolicy policy) {
        entries.remove(policy);
        return publish();
    }

    /** The current map by name, immutable, sorted by name. */
    Map<String, RoutingPolicy> byName() {
        return byName;
    }

    /** Registered names, sorted. */
    List<String> names() {
        return new ArrayList<>(byName.keySet());
    }

    private Map<String, RoutingPolicy> publish() {
        Map<String, Entry> best = new TreeMap<>();
        for (Entry e : entries.values()) {
            best.merge(e.name(), e, (a, b) -> a.beats(b) ? a : b);
        }
        Map<String, RoutingPolicy> m = new TreeMap<>();
        best.forEach((name, e) -> m.put(name, e.policy()));
        byName = Collections.unmodifiableMap(m);
        return byName;
    }

    private static String nameOf(RoutingPolicy policy, Map<String, ?> properties) {
        Object name = properties.get(RoutingPolicy.NAME_PROPERTY);
        if (name instanceof String s && !s.isBlank()) {
            return s.trim();
        }
        return policy.name();
    }

    private static int intProperty(Map<String, ?> properties, String key) {
        return properties.get(key) instanceof Integer i ? i : 0;
    }

    private static long longProperty(Map<String, ?> properties, String key) {
        return properties.get(key) instanceof Long l ? l : 0L;
    }
}
