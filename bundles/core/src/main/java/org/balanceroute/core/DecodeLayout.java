package org.balanceroute.core;

import java.util.Arrays;

/**
 * The decode instances of one pool: per instance (one DP group, one barrier) its number of ranks
 * G_i and their concurrency cap B_i. Workers are numbered consecutively, instance by instance:
 * instance 0 holds workers 0..G_0-1, instance 1 the next G_1, and so on. Immutable.
 */
public final class DecodeLayout {

    private final int[] sizes;
    private final int[] capacities;
    private final int[] starts;
    private final int workers;

    private DecodeLayout(int[] sizes, int[] capacities) {
        if (sizes.length == 0 || sizes.length != capacities.length) {
            throw new IllegalArgumentException("a layout needs at least one group, with one capacity per group: sizes "
                    + Arrays.toString(sizes) + ", capacities " + Arrays.toString(capacities));
        }
        this.sizes = sizes.clone();
        this.capacities = capacities.clone();
        this.starts = new int[sizes.length];
        int n = 0;
        for (int i = 0; i < sizes.length; i++) {
            if (sizes[i] < 1) {
                throw new IllegalArgumentException("group " + i + " must have at least 1 worker, got " + sizes[i]);
            }
            if (capacities[i] < 1) {
                throw new IllegalArgumentException("group " + i + "'s capacity must be >= 1, got " + capacities[i]);
            }
            starts[i] = n;
            n += sizes[i];
        }
        this.workers = n;
    }

    /** One group of {@code workers} ranks of B {@code capacity}: the single barrier. */
    public static DecodeLayout single(int workers, int capacity) {
        return new DecodeLayout(new int[] {workers}, new int[] {capacity});
    }

    /** Groups of the given sizes, each of its own capacity. */
    public static DecodeLayout of(int[] sizes, int[] capacities) {
        return new DecodeLayout(sizes, capacities);
    }

    /** Groups of the given sizes, all of one capacity. */
    public static DecodeLayout of(int[] sizes, int capacity) {
        int[] b = new int[sizes.length];
        Arrays.fill(b, capacity);
        return new DecodeLayout(sizes, b);
    }

    public int workers() {
        return workers;
    }

    public int groups() {
        return sizes.length;
    }

    public int size(int group) {
        return sizes[group];
    }

    public int start(int group) {
        return starts[group];
    }

    public int capacityOfGroup(int group) {
        return capacities[group];
    }

    /** The group worker g belongs to. */
    public int groupOf(int worker) {
        int i = Arrays.binarySearch(starts, worker);
        return i >= 0 ? i : -i - 2;
    }

    public int maxCapacity() {
        int max = 0;
        for (int b : capacities) {
            max = Math.max(max, b);
        }
        return max;
    }

    /** Whether every group has the same capacity. */
    public boolean uniformCapacity() {
        for (int b : capacities) {
            if (b != capacities[0]) {
                return false;
            }
        }
        return true;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof DecodeLayout l && Arrays.equals(sizes, l.sizes) && Arrays.equals(capacities, l.capacities);
    }

    @Override
    public int hashCode() {
        return 31 * Arrays.hashCode(sizes) + Arrays.hashCode(capacities);
    }

    /** e.g. {@code 8x64,4x128}: G x B per group. */
    @Override
    public String toString() {
        StringBuilder b = new StringBuilder();
        for (int i = 0; i < sizes.length; i++) {
            b.append(i == 0 ? "" : ",").append(sizes[i]).append('x').append(capacities[i]);
        }
        return b.toString();
    }
}
