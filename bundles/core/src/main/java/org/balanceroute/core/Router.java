package org.balanceroute.core;

import java.util.List;
import java.util.Objects;
import org.balanceroute.api.CompletionListener;
import org.balanceroute.api.DispatchStep;
import org.balanceroute.api.PoolView;
import org.balanceroute.api.PromptPoolView;
import org.balanceroute.api.RoutingPolicy;

/**
 * The routing core both drivers run: it takes arrivals, keeps the prompt pool, lets the active
 * policy place requests (at arrival, or once per decode step), counts tokens and releases
 * finished requests. The simulator calls it directly; the live proxy calls it from its single
 * dispatch thread. Not thread-safe by design.
 */
public final class Router {

    private final PoolState state;
    private final PromptPool pool = new PromptPool();
    private final List<? extends CompletionListener> completionListeners;
    private final Step step = new Step();
    private PoolView seen;
    private RoutingPolicy policy;

    public Router(PoolState state, RoutingPolicy policy, List<? extends CompletionListener> completionListeners) {
        this.state = Objects.requireNonNull(state, "state");
        this.policy = Objects.requireNonNull(policy, "policy");
        this.completionListeners = List.copyOf(completionListeners);
        this.seen = state;
    }

    /**
     * Whether policies see every worker as one barrier ({@code true}: what a router blind to the
     * decode instances does when they are listed as one worker set; for comparison in the
     * simulator) or each group as its own (the default). The state and its groups are unchanged.
     */
    public void viewAsOneBarrier(boolean flat) {
        seen = flat ? new OneBarrierView(state) : state;
    }

    public PoolState state() {
        return state;
    }

    public PromptPool pool() {
        return pool;
    }

    public RoutingPolicy policy() {
        return policy;
    }

    /**
     * Switches the policy; it takes effect at the next arrival or dispatch step. Running and
     * queued requests stay where they are (assignment is sticky). If the new policy routes at
     * arrival, whatever waits in the pool is routed by it now, oldest first, so nothing is
     * stranded (unless every worker is marked down: then they wait for one to come back).
     */
    public void setPolicy(RoutingPolicy next) {
        policy = Objects.requireNonNull(next, "policy");
        if (!next.usesPromptPool()) {
            routeHeld();
        }
    }

    /**
     * Takes worker g out of routing (its engine failed its health check) or puts it back; in
     * force for the next arrival or dispatch step. Requests already on it stay there and end as
     * the engine ends them. While every worker is marked down, requests wait in the pool whatever
     * the policy (the caller bounds the wait); the dispatch step after one comes back places them.
     *
     * @return whether this changed anything
     */
    public boolean setWorkerAvailable(int worker, boolean available) {
        return state.setAvailable(worker, available);
    }

    /**
     * Starts ({@code true}) or ends an operator's drain of worker g, in force for the next arrival
     * or dispatch step: while draining no policy places a request there; the ones on it end as the
     * engine ends them. An undrained worker takes requests again at the next step.
     *
     * @return whether this changed anything
     */
    public boolean setWorkerDraining(int worker, boolean draining) {
        return state.setDraining(worker, draining);
    }

    /** A request that finished prefill: it waits in the pool or is routed now, as the policy wants. */
    public void submit(TrackedRequest r) {
        if (r.phase != TrackedRequest.Phase.NEW) {
            throw new IllegalStateException("submitted twice: " + r);
        }
        if (policy.usesPromptPool() || state.availableWorkers() == 0) {
            pool.add(r);
        } else {
            routeNow(r);
        }
    }

    /** Routes what an arrival policy's requests left waiting while every worker was down, oldest first. */
    private void routeHeld() {
        while (!pool.isEmpty() && state.availableWorkers() > 0) {
            routeNow(pool.removeAt(0));
        }
    }

    private void routeNow(TrackedRequest r) {
        int g = policy.route(seen, r);
        if (g < 0 || g >= state.workers()) {
            throw new IllegalStateException("policy " + policy.name() + " routed to worker " + g
                    + ", outside [0, " + state.workers() + ")");
        }
        if (!state.available(g)) {
            // a policy that ignores availability (e.g. hot-deployed) must not reach a dead engine
            g = leastOutstandingAvailable();
        }
        state.place(r, g);
    }

    private int leastOutstandingAvailable() {
        int best = -1;
        for (int g = 0, n = state.workers(); g < n; g++) {
            if (state.available(g) && (best < 0 || state.outstanding(g) < state.outstanding(best))) {
                best = g;
            }
        }
        return best;
    }

    /**
     * Runs the policy's dispatch over the prompt pool; call once per decode step, before the
     * step's batch is formed.
     *
     * @return how many requests left the pool
     */
    public int dispatch() {
        int before = pool.size();
        if (before > 0) {
            if (policy.usesPromptPool()) {
                policy.dispatch(step);
            } else {
                routeHeld();
            }
        }
        return before - pool.size();
    }

    /**
     * Puts a request back where it already is, without asking the policy: on worker g with
     * {@code decoded} tokens done (running if the worker has a slot, else waiting FCFS in its
     * queue). For a router that rebuilds its state from what other routers report (a new
     * dispatcher of a cluster of proxies, a simulated replica's view of the others).
     *
     * @throws IllegalStateException if the request was submitted or restored before
     * @throws IllegalArgumentException if the worker is out of range or decoded is negative
     */
    public void restore(TrackedRequest r, int worker, int decoded) {
        if (r.phase != TrackedRequest.Phase.NEW) {
            throw new IllegalStateException("restored after it was submitted: " + r);
        }
        if (decoded < 0) {
            throw new IllegalArgumentException("decoded must be >= 0, got " + decoded);
        }
        state.place(r, worker);
        if (decoded > 0) {
            state.addTokens(r, decoded);
        }
    }

    /** n more tokens decoded for a running request (from the engine or its stream). */
    public void onTokens(TrackedRequest r, int n) {
        state.addTokens(r, n);
    }

    /** A request finished normally: its load is released and the predictors learn its length. */
    public void complete(TrackedRequest r) {
        state.release(r);
        for (int i = 0, n = completionListeners.size(); i < n; i++) {
            completionListeners.get(i).onCompleted(r, r.decoded);
        }
    }

    /** A request ended abnormally (error, disconnect, timeout): released wherever it is, nothing learned. */
    public void abort(TrackedRequest r) {
        switch (r.phase) {
            case POOLED -> {
                pool.remove(r);
                r.phase = TrackedRequest.Phase.DONE;
            }
            case QUEUED, RUNNING -> state.release(r);
            default -> r.phase = TrackedRequest.Phase.DONE;
        }
    }

    /** The dispatch view handed to pool policies: assignments apply at once. */
    private final class Step implements DispatchStep {

        @Override
        public PoolView view() {
            return seen;
        }

        @Override
        public PromptPoolView pool() {
            return pool;
        }

        @Override
        public void assign(int poolIndex, int worker) {
            state.checkWorker(worker);
            if (state.freeSlots(worker) < 1) {
                throw new IllegalArgumentException("policy " + policy.name() + " assigned to worker "
                        + worker + ", which has no free slot or is unavailable");
            }
            state.place(pool.removeAt(poolIndex), worker);
        }

        @Override
        public void assignQueued(int poolIndex, int worker) {
            state.checkWorker(worker);
            if (!state.available(worker)) {
                throw new IllegalArgumentException("policy " + policy.name() + " queued on worker " + worker
                        + ", which is unavailable");
            }
            state.place(pool.removeAt(poolIndex), worker);
        }
    }
}
