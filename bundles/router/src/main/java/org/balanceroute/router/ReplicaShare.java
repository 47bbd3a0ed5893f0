package org.balanceroute.router;

import java.util.Arrays;
import java.util.Objects;

/**
 * One proxy replica's share of the decode cluster: the load its own clients' requests put on
 * each decode worker, as the dispatcher counts them. The cluster view is the sum of the shares.
 *
 * @param member the replica's member id ({@code local} for a runtime of its own)
 * @param address where its cluster member listens ({@code host:port}), or {@code local}
 * @param dispatcher whether it is the dispatcher (the oldest member, which decides every placement)
 * @param pooled its requests waiting in the cluster-wide prompt pool
 * @param loads KV tokens of its requests on each worker
 * @param running its requests running on each worker
 * @param queued its requests waiting in each worker's queue
 */
public record ReplicaShare(String member, String address, boolean dispatcher, int pooled, long[] loads,
        int[] running, int[] queued) {

    public ReplicaShare {
        Objects.requireNonNull(member, "member");
        Objects.requireNonNull(address, "address");
        loads = loads.clone();
        running = running.clone();
        queued = queued.clone();
        if (running.length != loads.length || queued.length != loads.length) {
            throw new IllegalArgumentException("loads, running and queued must have one entry per worker");
        }
    }

    @Override
    public long[] loads() {
        return loads.clone();
    }

    @Override
    public int[] running() {
        return running.clone();
    }

    @Override
    public int[] queued() {
        return queued.clone();
    }

    /** KV tokens of its requests over all workers. */
    public long totalLoad() {
        long sum = 0;
        for (long l : loads) {
            sum += l;
        }
        return sum;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof ReplicaShare s && member.equals(s.member) && address.equals(s.address)
                && dispatcher == s.dispatcher && pooled == s.pooled && Arrays.equals(loads, s.loads)
                && Arrays.equals(running, s.running) && Arrays.equals(queued, s.queued);
    }

    @Override
    public int hashCode() {
        return Objects.hash(member, address, dispatcher, pooled, Arrays.hashCode(loads), Arrays.hashCode(running),
                Arrays.hashCode(queued));
    }

    @Override
    public String toString() {
        return "ReplicaShare[" + member + " (" + address + ")" + (dispatcher ? " dispatcher" : "") + ", pooled="
                + pooled + ", loads=" + Arrays.toString(loads) + ", running=" + Arrays.toString(running)
                + ", queued=" + Arrays.toString(queued) + "]";
    }
}
