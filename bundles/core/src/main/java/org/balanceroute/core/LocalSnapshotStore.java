package org.balanceroute.core;

import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.balanceroute.api.ClusterSnapshot;
import org.balanceroute.api.SnapshotStore;

/** The in-process snapshot store: the latest snapshot per source, for one proxy. */
public final class LocalSnapshotStore implements SnapshotStore {

    private final Map<String, ClusterSnapshot> latest = new ConcurrentHashMap<>();

    @Override
    public void publish(ClusterSnapshot snapshot) {
        latest.put(snapshot.source(), snapshot);
    }

    @Override
    public Collection<ClusterSnapshot> latest() {
        return List.copyOf(latest.values());
    }
}
