package org.balanceroute.router.internal;

import java.util.List;
import org.balanceroute.api.SnapshotStore;
import org.balanceroute.router.StepResult;

/** What a {@link ReplicaRole} may ask of the dispatch loop that holds it. Dispatch thread only. */
interface RoleHost {

    /** The core: the decisions (alone, dispatcher), an empty one of the layout's shape (follower). */
    Core core();

    /** The layout in force and this replica's marks on its workers. */
    WorkerMarks marks();

    /** This replica's own requests, by the ids its callers gave them. */
    LongMap<InFlight> ownRequests();

    /** When the next dispatch step is due, and the decode step's cadence. */
    StepTimer steps();

    /** A dispatch step now; its placements listed if {@code report}. */
    StepResult step(boolean report);

    /** Every member reported (or the wait ended): placements resume. */
    void settled();

    /** The members, oldest first. */
    List<SnapshotStore.Member> members();

    String localMember();

    void send(String member, byte[] frame);

    void sendToAll(byte[] frame);

    /** Writes the cluster view this replica decides on (a VIEW body). */
    void writeView(Frames.Writer w);

    /** The dispatcher's new view reached this follower. */
    void viewed(SharedView v);

    /** The policy in force and the pool's depth, as callers see them. */
    String activePolicy();

    int poolDepth();

    /** A completed request teaches the predictors its length. */
    void learned(InFlight f, int outputTokens);

    /** How stale the shared view is, sampled by whoever measures it. */
    StalenessSamples staleness();
}
