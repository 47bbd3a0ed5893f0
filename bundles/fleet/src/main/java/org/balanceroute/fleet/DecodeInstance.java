package org.balanceroute.fleet;

import java.util.List;

/**
 * One decode instance: one DP group, whose ranks (and only those) meet at one barrier every
 * decode step.
 *
 * @param name its name in the pool (metrics label {@code instance}, admin paths)
 * @param workers its ranks, in rank order
 * @param capacity B, vLLM's {@code max_num_seqs} of each of its ranks
 */
public record DecodeInstance(String name, List<Endpoint> workers, int capacity) {

    public DecodeInstance {
        workers = List.copyOf(workers);
    }
}
