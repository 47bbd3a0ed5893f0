package org.balanceroute.core;

import java.util.ArrayDeque;
import org.balanceroute.api.BarrierFigures;
import org.balanceroute.api.PoolSnapshot;
import org.balanceroute.api.PoolView;

/**
 * The decode workers' state as the router tracks it: per worker the running requests (at most
 * its group's B), their KV load L_g, and an FCFS queue for requests routed to a full worker; the
 * workers' groups (decode instances, one barrier each) as the {@link DecodeLayout} says. Updated
 * in place, token by token; no allocation on the token path.
 */
public final class PoolState implements PoolView {

    private final DecodeLayout layout;
    private final int workers;
    private final int capacity;
    private final int[] capacityOf;
    private final int[] groupOf;
    private final long[] load;
    private final TrackedRequest[][] active;
    private final int[] running;
    private final ArrayDeque<TrackedRequest>[] queue;
    private final long[] queuedTokens;
    private final long[] inFlightBytes;
    private final boolean[] down;
    private final boolean[] draining;
    private int unavailableCount;
    private long step;

    /** One group of {@code workers} ranks, each of B {@code capacity}: a single barrier. */
    public PoolState(int workers, int capacity) {
        this(checked(workers, capacity));
    }

    private static DecodeLayout checked(int workers, int capacity) {
        if (workers < 1) {
            throw new IllegalArgumentException("workers must be >= 1, got " + workers);
        }
        if (capacity < 1) {
            throw new IllegalArgumentException("capacity must be >= 1, got " + capacity);
        }
        return DecodeLayout.single(workers, capacity);
    }

    @SuppressWarnings("unchecked")
    public PoolState(DecodeLayout layout) {
        this.layout = layout;
        this.workers = layout.workers();
        this.capacity = layout.maxCapacity();
        this.capacityOf = new int[workers];
        this.groupOf = new int[workers];
        for (int i = 0; i < layout.groups(); i++) {
            for (int g = layout.start(i), end = g + layout.size(i); g < end; g++) {
                capacityOf[g] = layout.capacityOfGroup(i);
                groupOf[g] = i;
            }
        }
        this.load = new long[workers];
        this.active = new TrackedRequest[workers][];
        for (int g = 0; g < workers; g++) {
            active[g] = new TrackedRequest[capacityOf[g]];
        }
        this.running = new int[workers];
        this.queue = new ArrayDeque[workers];
        for (int g = 0; g < workers; g++) {
            queue[g] = new ArrayDeque<>();
        }
        this.queuedTokens = new long[workers];
        this.inFlightBytes = new long[workers];
        this.down = new boolean[workers];
        this.draining = new boolean[workers];
    }

    public DecodeLayout layout() {
        return layout;
    }

    @Override
    public int workers() {
        return workers;
    }

    @Override
    public int capacity() {
        return capacity;
    }

    @Override
    public int capacity(int worker) {
        return capacityOf[worker];
    }

    @Override
    public int groups() {
        return layout.groups();
    }

    @Override
    public int group(int worker) {
        return groupOf[worker];
    }

    @Override
    public int groupStart(int group) {
        return layout.start(group);
    }

    @Override
    public int groupSize(int group) {
        return layout.size(group);
    }

    @Override
    public long step() {
        return step;
    }

    @Override
    public long load(int worker) {
        return load[worker];
    }

    @Override
    public int running(int worker) {
        return running[worker];
    }

    @Override
    public int queued(int worker) {
        return queue[worker].size();
    }

    @Override
    public long queuedTokens(int worker) {
        return queuedTokens[worker];
    }

    @Override
    public long inFlightBytes(int worker) {
        return inFlightBytes[worker];
    }

    /**
     * Neither marked down nor draining. With every worker unavailable requests wait in the pool
     * (bounded by the proxy's placement timeout) until a health check or an undrain brings one back.
     */
    @Override
    public boolean available(int worker) {
        return !down[worker] && !draining[worker];
    }

    @Override
    public int availableWorkers() {
        return workers - unavailableCount;
    }

    @Override
    public int freeSlots(int worker) {
        return available(worker) ? Math.max(0, capacityOf[worker] - running[worker] - queue[worker].size()) : 0;
    }

    /** Whether worker g's engine is marked down (failed its health check). */
    public boolean down(int worker) {
        return down[worker];
    }

    @Override
    public boolean draining(int worker) {
        return draining[worker];
    }

    /** Draining and nothing left on it: running and queued are both 0. */
    public boolean drained(int worker) {
        return draining[worker] && running[worker] == 0 && queue[worker].isEmpty();
    }

    /**
     * Marks worker g down (its engine failed its health check: out of routing) or up. Its
     * running and queued requests stay: they end as the engine ends them.
     *
     * @return whether this changed the mark
     */
    boolean setAvailable(int worker, boolean available) {
        checkWorker(worker);
        if (down[worker] != available) {
            return false;
        }
        boolean was = available(worker);
        down[worker] = !available;
        countAvailability(worker, was);
        return true;
    }

    /**
     * Starts or ends an operator's drain of worker g: while draining it takes no new requests;
     * those on it (running and queued) run to their end.
     *
     * @return whether this changed the mark
     */
    boolean setDraining(int worker, boolean drain) {
        checkWorker(worker);
        if (draining[worker] == drain) {
            return false;
        }
        boolean was = available(worker);
        draining[worker] = drain;
        countAvailability(worker, was);
        return true;
    }

    private void countAvailability(int worker, boolean was) {
        boolean now = available(worker);
        if (was != now) {
            unavailableCount += now ? -1 : 1;
        }
    }

    /**
     * The imbalance of group i now: its heaviest minus its lightest worker's load, over the
     * workers not draining (a drained rank's empty KV is the operator's doing, not the router's).
     * 0 when fewer than two count.
     */
    public long groupImbalance(int group) {
        int from = layout.start(group);
        return PoolSnapshot.spread(load, draining, from, from + layout.size(group));
    }

    /** Measures every group's barrier into {@code f} (resized to the groups): O(workers), no allocation once sized. */
    public void measureBarrier(BarrierFigures f) {
        f.reset(layout.groups());
        for (int i = 0; i < layout.groups(); i++) {
            int from = layout.start(i);
            f.measure(i, load, draining, from, from + layout.size(i));
        }
    }

    @Override
    public TrackedRequest active(int worker, int index) {
        if (index < 0 || index >= running[worker]) {
            throw new IndexOutOfBoundsException("worker " + worker + " runs " + running[worker]
                    + " requests, no index " + index);
        }
        return active[worker][index];
    }

    /** Total running requests over all workers. */
    public int totalRunning() {
        int n = 0;
        for (int g = 0; g < workers; g++) {
            n += running[g];
        }
        return n;
    }

    /** Marks the start of the next decode step. */
    public void advanceStep() {
        step++;
    }

    /** Gives a request to a worker: it runs at once if a slot is free, else waits FCFS there. */
    void place(TrackedRequest r, int worker) {
        checkWorker(worker);
        r.worker = worker;
        inFlightBytes[worker] += r.bodyBytes();
        if (running[worker] < capacityOf[worker] && queue[worker].isEmpty()) {
            start(r, worker);
        } else {
            queue[worker].addLast(r);
            queuedTokens[worker] += r.promptTokens();
            r.phase = TrackedRequest.Phase.QUEUED;
        }
    }

    /**
     * Counts n more decoded tokens: a running request's load and its worker's grow by n. A request
     * still queued here can have tokens too when a live engine admitted it before the end of the
     * request that freed its slot reached the router (two streams, no order between them): they
     * count in its load from when it starts here.
     */
    void addTokens(TrackedRequest r, int n) {
        switch (r.phase) {
            case RUNNING -> {
                r.decoded += n;
                load[r.worker] += n;
            }
            case QUEUED -> r.decoded += n;
            default -> throw new IllegalStateException("tokens for a request that is not on a worker: " + r);
        }
    }

    /** Takes a running or queued request off its worker and admits queued work FCFS. */
    void release(TrackedRequest r) {
        int g = r.worker;
        switch (r.phase) {
            case RUNNING -> {
                load[g] -= r.kvLoad();
                int last = --running[g];
                TrackedRequest moved = active[g][last];
                active[g][r.slot] = moved;
                moved.slot = r.slot;
                active[g][last] = null;
                r.slot = -1;
            }
            case QUEUED -> {
                queue[g].remove(r);
                queuedTokens[g] -= r.promptTokens();
            }
            default -> throw new IllegalStateException("not on a worker: " + r);
        }
        inFlightBytes[g] -= r.bodyBytes();
        r.phase = TrackedRequest.Phase.DONE;
        while (running[g] < capacityOf[g] && !queue[g].isEmpty()) {
            TrackedRequest next = queue[g].pollFirst();
            queuedTokens[g] -= next.promptTokens();
            start(next, g);
        }
    }

    private void start(TrackedRequest r, int g) {
        int s = running[g]++;
        active[g][s] = r;
        r.slot = s;
        r.phase = TrackedRequest.Phase.RUNNING;
        load[g] += r.kvLoad();
    }

    void checkWorker(int worker) {
        if (worker < 0 || worker >= workers) {
            throw new IllegalArgumentException("worker " + worker + " out of range [0, " + workers + ")");
        }
    }

    /** An immutable copy, for operators and for the other proxy replicas. */
    public PoolSnapshot snapshot(String source, long nowNanos, int poolDepth) {
        int[] q = new int[workers];
        boolean[] up = new boolean[workers];
        for (int g = 0; g < workers; g++) {
            q[g] = queue[g].size();
            up[g] = !down[g];
        }
        return new PoolSnapshot(source, step, nowNanos, capacity, load, running, q, poolDepth, up, groupOf,
                capacityOf, draining);
    }
}
