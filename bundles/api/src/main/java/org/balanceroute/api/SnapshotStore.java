package org.balanceroute.api;

import java.util.Collection;
import org.osgi.annotation.versioning.ConsumerType;

/**
 * Where cluster snapshots live, apart from the single-writer dispatch loop that produces them:
 * in process for one proxy, or shared (Hazelcast) so that replicas routing to the same decode
 * workers see each other's load. The dispatch loop publishes its own snapshot; it never
 * blocks on the store.
 */
@ConsumerType
public interface SnapshotStore {

    /** Service property naming the store, e.g. {@code local}, {@code hazelcast}. */
    String NAME_PROPERTY = "balanceroute.snapshot.store";

    /** Replaces the snapshot last published by {@code snapshot.source()}. */
    void publish(ClusterSnapshot snapshot);

    /** The latest snapshot of every source, including this one. */
    Collection<ClusterSnapshot> latest();
}
