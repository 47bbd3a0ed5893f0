package org.balanceroute.console.internal;

import java.util.Collection;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import org.balanceroute.api.PoolSnapshot;

/**
 * One {@link LoadHistory} per routed pool, each of the same capacity: the console charts every
 * pool's instances, each pool from its own router. Written by the one sampler thread, read by any
 * number of viewers. Memory is bounded by pools x capacity x workers; a pool that is no longer
 * routed drops its history at the next sample ({@link #retain}).
 */
final class PoolHistories {

    private final int capacity;
    private final ConcurrentMap<String, LoadHistory> byPool = new ConcurrentHashMap<>();

    PoolHistories(int capacity) {
        if (capacity < 1) {
            throw new IllegalArgumentException("capacity must be at least 1, got " + capacity);
        }
        this.capacity = capacity;
    }

    int capacity() {
        return capacity;
    }

    /** Adds pool {@code pool}'s sample, starting its history if it has none. */
    LoadHistory.Sample add(String pool, long timeMillis, PoolSnapshot snapshot) {
        return byPool.computeIfAbsent(pool, p -> new LoadHistory(capacity)).add(timeMillis, snapshot);
    }

    /** Drops the histories of the pools not in {@code routed}. */
    void retain(Collection<String> routed) {
        byPool.keySet().retainAll(Set.copyOf(routed));
    }

    /** Pool {@code pool}'s history, or null before its first sample (or once it is dropped). */
    LoadHistory get(String pool) {
        return byPool.get(pool);
    }

    /** Each pool's newest snapshot, by name. */
    Map<String, PoolSnapshot> latest() {
        Map<String, PoolSnapshot> m = new HashMap<>();
        byPool.forEach((pool, h) -> {
            LoadHistory.Sample s = h.latest();
            if (s != null) {
                m.put(pool, s.snapshot());
            }
        });
        return m;
    }

    /** The pools with a history, sorted. */
    Set<String> pools() {
        return new TreeSet<>(byPool.keySet());
    }
}
