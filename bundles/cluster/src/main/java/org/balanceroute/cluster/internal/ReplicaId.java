package org.balanceroute.cluster.internal;

import java.util.UUID;

/**
 * This process's replica id: drawn once when the bundle's classes load, and kept while the bundle
 * stays installed, across a reconfiguration (which starts a new Hazelcast member) and across a
 * split-brain merge (after which Hazelcast gives the member a new UUID).
 */
final class ReplicaId {

    static final String VALUE = UUID.randomUUID().toString();

    private ReplicaId() {
    }
}
