package org.balanceroute.router.internal;

import java.util.Arrays;
import java.util.function.Consumer;

/**
 * A map from primitive {@code long} keys to objects, with open addressing and linear probing,
 * so that the dispatch thread looks requests up by id without boxing. Deletion shifts the
 * following cluster back, so there are no tombstones. Not thread-safe.
 */
final class LongMap<V> {

    private long[] keys;
    private Object[] values; // null marks a free slot
    private int size;
    private int mask;

    LongMap() {
        keys = new long[64];
        values = new Object[64];
        mask = 63;
    }

    int size() {
        return size;
    }

    boolean isEmpty() {
        return size == 0;
    }

    @SuppressWarnings("unchecked")
    V get(long key) {
        for (int i = slot(key); values[i] != null; i = (i + 1) & mask) {
            if (keys[i] == key) {
                return (V) values[i];
            }
        }
        return null;
    }

    /** Adds a mapping; returns false (and changes nothing) if the key is present. */
    boolean putIfAbsent(long key, V value) {
        if (value == null) {
            throw new IllegalArgumentException("null value");
        }
        int i = slot(key);
        for (; values[i] != null; i = (i + 1) & mask) {
            if (keys[i] == key) {
                return false;
            }
        }
        keys[i] = key;
        values[i] = value;
        if (++size > (mask + 1) / 2) {
            grow();
        }
        return true;
    }

    /** Removes a mapping; returns its value, or null if the key was absent. */
    @SuppressWarnings("unchecked")
    V remove(long key) {
        int i = slot(key);
        for (; values[i] != null; i = (i + 1) & mask) {
            if (keys[i] == key) {
                V removed = (V) values[i];
                shiftBack(i);
                size--;
                return removed;
            }
        }
        return null;
    }

    @SuppressWarnings("unchecked")
    void forEachValue(Consumer<V> action) {
        for (Object v : values.clone()) {
            if (v != null) {
                action.accept((V) v);
            }
        }
    }

    void clear() {
        Arrays.fill(values, null);
        size = 0;
    }

    /** Backward-shift deletion: moves later entries of the probe run into the hole at {@code hole}. */
    private void shiftBack(int hole) {
        int i = hole;
        while (true) {
            i = (i + 1) & mask;
            if (values[i] == null) {
                break;
            }
            int home = slot(keys[i]);
            // move entry i to the hole unless its home lies cyclically in (hole, i]
            boolean stays = hole <= i ? (hole < home && home <= i) : (hole < home || home <= i);
            if (!stays) {
                keys[hole] = keys[i];
                values[hole] = values[i];
                hole = i;
            }
        }
        values[hole] = null;
    }

    private void grow() {
        long[] oldKeys = keys;
        Object[] oldValues = values;
        keys = new long[oldKeys.length * 2];
        values = new Object[oldValues.length * 2];
        mask = keys.length - 1;
        for (int j = 0; j < oldValues.length; j++) {
            if (oldValues[j] != null) {
                int i = slot(oldKeys[j]);
                while (values[i] != null) {
                    i = (i + 1) & mask;
                }
                keys[i] = oldKeys[j];
                values[i] = oldValues[j];
            }
        }
    }

    private int slot(long key) {
        long h = key * 0x9E3779B97F4A7C15L;
        return (int) (h ^ (h >>> 32)) & mask;
    }
}
