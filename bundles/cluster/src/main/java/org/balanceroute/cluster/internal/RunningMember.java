package org.balanceroute.cluster.internal;

import com.hazelcast.core.HazelcastInstance;

/**
 * A service of this bundle only (the package is not exported): the Hazelcast member while it is
 * up, with the settings it was started with. The shared-configuration component depends on it.
 */
public interface RunningMember {

    HazelcastInstance instance();

    ClusterSettings settings();
}
