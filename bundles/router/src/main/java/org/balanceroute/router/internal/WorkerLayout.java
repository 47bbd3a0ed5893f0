package org.balanceroute.router.internal;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.balanceroute.api.PoolView;
import org.balanceroute.core.DecodeLayout;

/**
 * The pool's decode workers as the topology gives them ({@code RouterService.setLayout}): every
 * worker's identity in router order, and the instances (DP groups) they form, each of its own B.
 * Validated on construction; immutable. Worker identities, not indexes, are what survives a
 * change of layout and what the replicas of a cluster of proxies tell one another.
 */
final class WorkerLayout {

    /** Most decode workers a layout may have. */
    static final int MAX_WORKERS = 1024;

    private final String[] ids;
    private final int[] sizes;
    private final int[] capacities;
    private final Map<String, Integer> index;
    private final DecodeLayout decode;
    private final long fingerprint;

    private WorkerLayout(String[] ids, int[] sizes, int[] capacities) {
        this.ids = ids;
        this.sizes = sizes;
        this.capacities = capacities;
        this.decode = DecodeLayout.of(sizes, capacities);
        this.index = new HashMap<>(ids.length * 2);
        for (int g = 0; g < ids.length; g++) {
            index.put(ids[g], g);
        }
        this.fingerprint = fingerprintOf(ids, sizes, capacities);
    }

    /**
     * @throws IllegalArgumentException if the lists disagree, an identity is empty or repeats, a
     *     group is empty, a capacity is outside [1, {@value PoolView#MAX_CAPACITY}], or there are no
     *     workers or more than {@value #MAX_WORKERS}
     */
    static WorkerLayout of(List<String> workers, int[] groupSizes, int[] capacities) {
        if (workers == null || groupSizes == null || capacities == null) {
            throw new IllegalArgumentException("a layout needs the workers, the group sizes and the capacities, got "
                    + (workers == null ? "no workers" : groupSizes == null ? "no group sizes" : "no capacities"));
        }
        int n = workers.size();
        if (n < 1 || n > MAX_WORKERS) {
            throw new IllegalArgumentException("a layout has 1 to " + MAX_WORKERS + " workers, got " + n);
        }
        if (groupSizes.length != capacities.length) {
            throw new IllegalArgumentException("one capacity per group: " + groupSizes.length + " group sizes "
                    + Arrays.toString(groupSizes) + ", " + capacities.length + " capacities " + Arrays.toString(capacities));
        }
        long sum = 0;
        for (int i = 0; i < groupSizes.length; i++) {
            if (groupSizes[i] < 1) {
                throw new IllegalArgumentException("group " + i + " is empty: its size is " + groupSizes[i]);
            }
            if (capacities[i] < 1 || capacities[i] > PoolView.MAX_CAPACITY) {
                throw new IllegalArgumentException("the capacity of group " + i + " must be in [1, " + PoolView.MAX_CAPACITY
                        + "], got " + capacities[i]);
            }
            sum += groupSizes[i];
        }
        if (sum != n) {
            throw new IllegalArgumentException("the group sizes " + Arrays.toString(groupSizes) + " add up to " + sum
                    + " workers, but " + n + " are listed");
        }
        String[] ids = new String[n];
        Map<String, Integer> seen = new HashMap<>(n * 2);
        for (int g = 0; g < n; g++) {
            String id = workers.get(g);
            if (id == null || id.isEmpty()) {
                throw new IllegalArgumentException("worker " + g + " has no identity");
            }
            Integer before = seen.putIfAbsent(id, g);
            if (before != null) {
                throw new IllegalArgumentException("worker identity '" + id + "' repeats: workers " + before + " and " + g);
            }
            ids[g] = id;
        }
        return new WorkerLayout(ids, groupSizes.clone(), capacities.clone());
    }

    int workers() {
        return ids.length;
    }

    String id(int worker) {
        return ids[worker];
    }

    /** The index of the worker with this identity, -1 if it is not in the layout. */
    int indexOf(String id) {
        Integer g = id == null ? null : index.get(id);
        return g == null ? -1 : g;
    }

    int groups() {
        return sizes.length;
    }

    DecodeLayout decode() {
        return decode;
    }

    /** A 64-bit digest of the whole layout: two replicas with equal fingerprints number their workers alike. */
    long fingerprint() {
        return fingerprint;
    }

    /** {@code workers:int id:string* groups:int (size:int capacity:int)*} */
    void write(Frames.Writer w) {
        w.putInt(ids.length);
        for (String id : ids) {
            w.putString(id);
        }
        w.putInt(sizes.length);
        for (int i = 0; i < sizes.length; i++) {
            w.putInt(sizes[i]).putInt(capacities[i]);
        }
    }

    /** Reads what {@link #write} wrote; a layout that does not validate is a malformed frame. */
    static WorkerLayout read(Frames.Reader r) {
        int n = r.getCount(4);
        String[] ids = new String[n];
        for (int g = 0; g < n; g++) {
            ids[g] = r.getString();
        }
        int groups = r.getCount(8);
        int[] sizes = new int[groups];
        int[] capacities = new int[groups];
        for (int i = 0; i < groups; i++) {
            sizes[i] = r.getInt();
            capacities[i] = r.getInt();
        }
        try {
            return of(Arrays.asList(ids), sizes, capacities);
        } catch (IllegalArgumentException e) {
            throw new Frames.MalformedFrameException("a layout that does not hold: " + e.getMessage());
        }
    }

    private static long fingerprintOf(String[] ids, int[] sizes, int[] capacities) {
        long h = 0xcbf29ce484222325L; // FNV-1a
        for (String id : ids) {
            for (byte b : id.getBytes(StandardCharsets.UTF_8)) {
                h = (h ^ (b & 0xff)) * 0x100000001b3L;
            }
            h = (h ^ 0xff) * 0x100000001b3L; // separator: no UTF-8 byte is 0xff
        }
        for (int i = 0; i < sizes.length; i++) {
            h = (h ^ sizes[i]) * 0x100000001b3L;
            h = (h ^ capacities[i]) * 0x100000001b3L;
        }
        return h == 0 ? 1 : h; // 0 means "no layout" on the wire
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof WorkerLayout l && Arrays.equals(ids, l.ids) && Arrays.equals(sizes, l.sizes)
                && Arrays.equals(capacities, l.capacities);
    }

    @Override
    public int hashCode() {
        return Long.hashCode(fingerprint);
    }

    /** e.g. {@code 8x64,4x128 (12 workers)}. */
    @Override
    public String toString() {
        return decode + " (" + ids.length + " workers)";
    }
}
