package org.balanceroute.simulator;

import java.util.Arrays;

/** A growable list of ints, cleared and refilled without allocating once it is large enough. */
final class IntList {

    private int[] items = new int[64];
    private int size;

    void add(int v) {
        if (size == items.length) {
            items = Arrays.copyOf(items, size * 2);
        }
        items[size++] = v;
    }

    int get(int index) {
        return items[index];
    }

    int size() {
        return size;
    }

    void clear() {
        size = 0;
    }
}
