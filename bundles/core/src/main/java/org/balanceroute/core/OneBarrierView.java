package org.balanceroute.core;

import org.balanceroute.api.PoolView;
import org.balanceroute.api.RequestView;

/**
 * The pool as a router blind to decode instances sees it: every worker in one group, so M is
 * the heaviest rank of all instances and the overflow penalty G-1 counts every rank. Loads,
 * slots and availability are the real ones.
 */
final class OneBarrierView implements PoolView {

    private final PoolState state;

    OneBarrierView(PoolState state) {
        this.state = state;
    }

    @Override
    public int workers() {
        return state.workers();
    }

    @Override
    public int capacity() {
        return state.capacity();
    }

    @Override
    public int capacity(int worker) {
        return state.capacity(worker);
    }

    @Override
    public long step() {
        return state.step();
    }

    @Override
    public long load(int worker) {
        return state.load(worker);
    }

    @Override
    public int running(int worker) {
        return state.running(worker);
    }

    @Override
    public int queued(int worker) {
        return state.queued(worker);
    }

    @Override
    public long queuedTokens(int worker) {
        return state.queuedTokens(worker);
    }

    @Override
    public long inFlightBytes(int worker) {
        return state.inFlightBytes(worker);
    }

    @Override
    public RequestView active(int worker, int index) {
        return state.active(worker, index);
    }

    @Override
    public boolean available(int worker) {
        return state.available(worker);
    }

    @Override
    public int availableWorkers() {
        return state.availableWorkers();
    }

    @Override
    public boolean draining(int worker) {
        return state.draining(worker);
    }

    @Override
    public int freeSlots(int worker) {
        return state.freeSlots(worker);
    }
}
