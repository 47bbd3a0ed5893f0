package org.balanceroute.router;

import java.util.List;
import java.util.Objects;

/**
 * The cluster of proxy replicas as this replica's router sees it.
 *
 * @param store the snapshot store in use: {@code local} (a cluster of one) or the shared store's
 *     name (e.g. {@code hazelcast})
 * @param localMember this replica's member id
 * @param dispatcher the member id of the dispatcher, which owns the cluster-wide prompt pool and
 *     decides every placement (this replica when it is the oldest member, or alone)
 * @param members every member, oldest first, with its share of the load (the dispatcher's count;
 *     a member that has not reported yet has an empty share)
 * @param viewAgeMillis how old the cluster view this replica holds is: 0 on the dispatcher, else
 *     the time since the last view from the dispatcher arrived
 * @param staleness how long a token seen by one replica takes to be in this replica's view
 *     (recent samples; {@link Staleness#NONE} on a cluster of one)
 */
public record ReplicasStatus(String store, String localMember, String dispatcher, List<ReplicaShare> members,
        double viewAgeMillis, Staleness staleness) {

    /** Store name of a router with no shared store: a cluster of one. */
    public static final String LOCAL = "local";

    public ReplicasStatus {
        Objects.requireNonNull(store, "store");
        Objects.requireNonNull(localMember, "localMember");
        Objects.requireNonNull(dispatcher, "dispatcher");
        members = List.copyOf(members);
        Objects.requireNonNull(staleness, "staleness");
    }

    /** Whether this replica is the dispatcher. */
    public boolean isDispatcher() {
        return localMember.equals(dispatcher);
    }

    /**
     * Staleness of the shared view over recent samples, in milliseconds: from the moment one replica
     * saw a token (or a submission, a completion) to the moment it was in this replica's view (the
     * dispatcher applied it; or a follower received the dispatcher's view holding it). Measured with
     * the host's monotonic clock, so it means something only between replicas on one host.
     *
     * @param samples how many samples the quantiles are over (0: none yet)
     */
    public record Staleness(int samples, double p50Millis, double p99Millis, double maxMillis) {

        public static final Staleness NONE = new Staleness(0, 0, 0, 0);
    }
}
