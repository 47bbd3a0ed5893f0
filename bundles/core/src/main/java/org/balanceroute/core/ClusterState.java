package org.balanceroute.core;

import java.util.ArrayDeque;
import org.balanceroute.api.ClusterSnapshot;
import org.balanceroute.api.ClusterView;

/**
 * The decode workers' state as the router tracks it: per worker the running requests (at most
 * B), their KV load L_g, and an FCFS queue for requests routed to a full worker. Updated in
 * place, token by token; no allocation on the token path.
 */
public final class ClusterState implements ClusterView {

    private final int workers;
    private final int capacity;
    private final long[] load;
    private final TrackedRequest[][] active;
    private final int[] running;
    private final ArrayDeque<TrackedRequest>[] queue;
    private final long[] queuedTokens;
    private final long[] inFlightBytes;
    private final boolean[] unavailable;
    private int markedDown;
    private long step;

    @SuppressWarnings("unchecked")
    public ClusterState(int workers, int capacity) {
        if (workers < 1) {
            throw new IllegalArgumentException("workers must be >= 1, got " + workers);
        }
        if (capacity < 1) {
            throw new IllegalArgumentException("capacity must be >= 1, got " + capacity);
        }
        this.workers = workers;
        this.capacity = capacity;
        this.load = new long[workers];
        this.active = new TrackedRequest[workers][capacity];
        this.running = new int[workers];
        this.queue = new ArrayDeque[workers];
        for (int g = 0; g < workers; g++) {
            queue[g] = new ArrayDeque<>();
        }
        this.queuedTokens = new long[workers];
        this.inFlightBytes = new long[workers];
        this.unavailable = new boolean[workers];
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
     * Not marked down. With every worker marked down none is available: requests wait in the pool
     * (bounded by the proxy's placement timeout) until a health check brings one back.
     */
    @Override
    public boolean available(int worker) {
        return !unavailable[worker];
    }

    @Override
    public int availableWorkers() {
        return workers - markedDown;
    }

    @Override
    public int freeSlots(int worker) {
        return available(worker) ? Math.max(0, capacity - running[worker] - queue[worker].size()) : 0;
    }

    /**
     * Marks worker g down (its engine failed its health check: out of routing) or up. Its
     * running and queued requests stay: they end as the engine ends them.
     *
     * @return whether this changed the mark
     */
    boolean setAvailable(int worker, boolean available) {
        checkWorker(worker);
        if (unavailable[worker] != available) {
            return false;
        }
        unavailable[worker] = !available;
        markedDown += available ? -1 : 1;
        return true;
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
        if (running[worker] < capacity && queue[worker].isEmpty()) {
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
        while (running[g] < capacity && !queue[g].isEmpty()) {
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
    public ClusterSnapshot snapshot(String source, long nowNanos, int poolDepth) {
        int[] q = new int[workers];
        boolean[] up = new boolean[workers];
        for (int g = 0; g < workers; g++) {
            q[g] = queue[g].size();
            up[g] = !unavailable[g];
        }
        return new ClusterSnapshot(source, step, nowNanos, capacity, load, running, q, poolDepth, up);
    }
}
