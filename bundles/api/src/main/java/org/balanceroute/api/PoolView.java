package org.balanceroute.api;

import org.osgi.annotation.versioning.ProviderType;

/**
 * Read-only view of the data-parallel decode workers of one pool, as the dispatch loop sees them
 * at the current decode step. Workers are numbered 0..{@link #workers()}-1.
 *
 * <p><b>Groups.</b> A pool may have several decode instances; each is one DP group, whose ranks
 * (and only those) meet at one barrier every step. Workers of a group are numbered
 * consecutively: group i holds workers {@link #groupStart}(i) .. groupStart(i) + {@link
 * #groupSize}(i) - 1. A barrier-aware policy judges a worker against its own group (its G, its
 * M); a driver that says nothing has one group of every worker (the methods' defaults), which
 * is the single barrier of API versions before 0.10.
 *
 * <p>Loads follow the spec's notation: L_g is the sum of the KV loads of the requests running
 * on worker g, M the maximum over g. Requests routed at arrival to a full worker wait in that
 * worker's FCFS queue (as vLLM's own scheduler does) and are not part of L_g until admitted.
 */
@ProviderType
public interface PoolView {

    /** The shipped B: a decode instance's capacity when its configuration does not give one. */
    int DEFAULT_CAPACITY = 64;

    /** The largest B a pool's configuration may give a decode instance. */
    int MAX_CAPACITY = 4096;

    /** Number of DP decode workers over all groups (G when there is one group). */
    int workers();

    /** B: per-worker concurrency cap (vLLM {@code max_num_seqs}); with groups of different B, the largest. */
    int capacity();

    /** B of worker g: its own group's concurrency cap. */
    default int capacity(int worker) {
        return capacity();
    }

    /** Number of decode instances (DP groups); 1 unless the driver says otherwise. */
    default int groups() {
        return 1;
    }

    /** The group (decode instance) worker g belongs to, in [0, {@link #groups()}). */
    default int group(int worker) {
        return 0;
    }

    /** The first worker of group i. */
    default int groupStart(int group) {
        return 0;
    }

    /** G of group i: how many ranks meet at its barrier. */
    default int groupSize(int group) {
        return workers();
    }

    /** M of group i: the heaviest load among its workers. */
    default long groupMaxLoad(int group) {
        long max = 0;
        for (int g = groupStart(group), end = g + groupSize(group); g < end; g++) {
            max = Math.max(max, load(g));
        }
        return max;
    }

    /**
     * Whether worker g is being drained by an operator: it takes no new requests (it is not
     * {@link #available}), the ones on it run to their end. False unless the driver says otherwise.
     */
    default boolean draining(int worker) {
        return false;
    }

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
     * Whether worker g takes new requests. False while its engine fails its health check or it is
     * {@link #draining}: no policy may place a request there (it offers no {@link #freeSlots});
     * the requests already on it stay until they end. True unless the driver says otherwise.
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
        return available(worker) ? Math.max(0, capacity(worker) - running(worker) - queued(worker)) : 0;
    }

    /** Outstanding requests of worker g: running plus queued (what JSQ balances). */
    default int outstanding(int worker) {
        return running(worker) + queued(worker);
    }

    /** The heaviest worker's load over every group (M when there is one group). */
    default long maxLoad() {
        long max = 0;
        for (int g = 0, n = workers(); g < n; g++) {
            max = Math.max(max, load(g));
        }
        return max;
    }
}
