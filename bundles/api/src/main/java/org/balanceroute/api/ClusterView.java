package org.balanceroute.api;

import org.osgi.annotation.versioning.ProviderType;

/**
 * Read-only view of the G data-parallel decode workers, as the dispatch loop sees them at the
 * current decode step. Workers are numbered 0..G-1.
 *
 * <p>Loads follow the spec's notation: L_g is the sum of the KV loads of the requests running
 * on worker g, M the maximum over g. Requests routed at arrival to a full worker wait in that
 * worker's FCFS queue (as vLLM's own scheduler does) and are not part of L_g until admitted.
 */
@ProviderType
public interface ClusterView {

    /** G: number of DP decode workers. */
    int workers();

    /** B: per-worker concurrency cap (vLLM {@code max_num_seqs}). */
    int capacity();

    /** k: index of the current decode step. */
    long step();

    /** L_g: KV tokens of the requests running on worker g. */
    long load(int worker);

    /** |A_g|: requests running on worker g. */
    int running(int worker);

    /** Requests routed to worker g that wait in its FCFS queue for a slot. */
    int queued(int worker);

    /** Prompt tokens of the requests waiting in worker g's queue. */
    long queuedTokens(int worker);

    /** Sum of {@link RequestView#bodyBytes()} over requests on worker g that have not finished. */
    long inFlightBytes(int worker);

    /** The i-th running request of worker g, 0 <= i < running(g); order is unspecified. */
    RequestView active(int worker, int index);

    /**
     * Whether worker g takes new requests. False while its engine fails its health check: no
     * policy may place a request there (it offers no {@link #freeSlots}); the requests already on
     * it stay until they end. True unless the driver says otherwise.
     */
    default boolean available(int worker) {
        return true;
    }

    /** How many workers are {@link #available}; {@link #workers()} unless the driver says otherwise. */
    default int availableWorkers() {
        int n = 0;
        for (int g = 0, w = workers(); g < w; g++) {
            if (available(g)) {
                n++;
            }
        }
        return n;
    }

    /** cap_g: free slots of worker g = B - running - queued (never negative); 0 when it is not {@link #available}. */
    default int freeSlots(int worker) {
        return available(worker) ? Math.max(0, capacity() - running(worker) - queued(worker)) : 0;
    }

    /** Outstanding requests of worker g: running plus queued (what JSQ balances). */
    default int outstanding(int worker) {
        return running(worker) + queued(worker);
    }

    /** M: the heaviest worker's load. */
    default long maxLoad() {
        long max = 0;
        for (int g = 0, n = workers(); g < n; g++) {
            max = Math.max(max, load(g));
        }
        return max;
    }
}
