package org.balanceroute.core;

import org.balanceroute.api.ClusterView;
import org.balanceroute.api.RequestView;

/**
 * The cluster as a router blind to decode instances sees it: every worker in one group, so M is
 * the heaviest rank of all instances and the overflow penalty G-1 counts every rank. Loads,
 * slots and availability are the real ones.
 */
final class OneBarrierView implements ClusterView {

    private final ClusterState cluster;

    OneBarrierView(ClusterState cluster) {
        this.cluster = cluster;
    }

    @Override
    public int workers() {
        return cluster.workers();
    }

    @Override
    public int capacity() {
        return cluster.capacity();
    }

    @Override
    public int capacity(int worker) {
        return cluster.capacity(worker);
    }

    @Override
    public long step() {
        return cluster.step();
    }

    @Override
    public long load(int worker) {
        return cluster.load(worker);
    }

    @Override
    public int running(int worker) {
        return cluster.running(worker);
    }

    @Override
    public int queued(int worker) {
        return cluster.queued(worker);
    }

    @Override
    public long queuedTokens(int worker) {
        return cluster.queuedTokens(worker);
    }

    @Override
    public long inFlightBytes(int worker) {
        return cluster.inFlightBytes(worker);
    }

    @Override
    public RequestView active(int worker, int index) {
        return cluster.active(worker, index);
    }

    @Override
    public boolean available(int worker) {
        return cluster.available(worker);
    }

    @Override
    public int availableWorkers() {
        return cluster.availableWorkers();
    }

    @Override
    public boolean draining(int worker) {
        return cluster.draining(worker);
    }

    @Override
    public int freeSlots(int worker) {
        return cluster.freeSlots(worker);
    }
}
