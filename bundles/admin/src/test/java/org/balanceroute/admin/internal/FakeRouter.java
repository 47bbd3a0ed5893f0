package org.balanceroute.admin.internal;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.concurrent.CopyOnWriteArrayList;
import org.balanceroute.api.PoolSnapshot;
import org.balanceroute.router.Placement;
import org.balanceroute.router.ReplicasStatus;
import org.balanceroute.router.RouterService;
import org.balanceroute.router.StepResult;

/**
 * A RouterService with fixed answers: the primary pool {@code default}'s router, and through
 * {@link #addPool} other pools' routers, each with its own active policy, snapshot and drains; the
 * policies and their parameters are shared, as the router shares them.
 */
final class FakeRouter implements RouterService {

    private final String name;
    private final FakeRouter primary;
    private final Map<String, FakeRouter> pools;
    volatile String active = "br0";
    /** The pool's own policy (its configuration's {@code policy}); null: the router's, which is {@link #active}. */
    volatile String own;
    volatile List<String> available = List.of("br0", "brh-survival", "jsq", "p2c", "random");
    volatile Map<String, Map<String, Object>> parameters = Map.of();
    volatile PoolSnapshot snapshot;
    ReplicasStatus replicas;
    /** Each setWorkerDraining as "g:draining", in order. */
    final List<String> drains = new CopyOnWriteArrayList<>();

    FakeRouter() {
        this.name = "default";
        this.primary = this;
        this.pools = new ConcurrentSkipListMap<>();
        pools.put(name, this);
    }

    private FakeRouter(String name, FakeRouter primary) {
        this.name = name;
        this.primary = primary;
        this.pools = primary.pools;
    }

    /** Another pool's router, reached through {@link #pool}. */
    FakeRouter addPool(String pool) {
        FakeRouter r = new FakeRouter(pool, this);
        pools.put(pool, r);
        return r;
    }

    @Override public String activePolicy() { return active; }
    @Override public String configuredPolicy() { return own != null ? own : primary.active; }
    @Override public String fallbackPolicy() { return "jsq"; }
    @Override public List<String> availablePolicies() { return primary.available; }
    @Override public Map<String, Object> policyParameters(String policy) { return primary.parameters.getOrDefault(policy, Map.of()); }
    @Override public PoolSnapshot snapshot() { return snapshot; }
    @Override public CompletableFuture<Placement> submit(long id, int p, long k, int b) { throw new UnsupportedOperationException(); }
    @Override public void tokens(long id, int count) { throw new UnsupportedOperationException(); }
    @Override public CompletableFuture<Boolean> complete(long id) { throw new UnsupportedOperationException(); }
    @Override public CompletableFuture<Boolean> abort(long id) { throw new UnsupportedOperationException(); }
    @Override public CompletableFuture<StepResult> dispatchStep() { throw new UnsupportedOperationException(); }
    @Override public void requestStep() { throw new UnsupportedOperationException(); }
    @Override public long observedStepNanos() { return 0; }
    @Override public void setWorkerAvailable(int worker, boolean available) { }
    @Override public boolean automaticStepping() { return false; }
    @Override public void setLayout(java.util.List<String> workers, int[] groupSizes, int[] capacities) { }
    @Override public ReplicasStatus replicas() { return replicas; }
    @Override public List<String> pools() { return new ArrayList<>(pools.keySet()); }
    @Override public RouterService pool(String pool) { return pools.get(pool); }
    @Override public String poolName() { return name; }

    /** Recorded, and in force in the next snapshot. */
    @Override
    public void setWorkerDraining(int worker, boolean draining) {
        drains.add(worker + ":" + draining);
        PoolSnapshot s = snapshot;
        boolean[] d = s.draining();
        d[worker] = draining;
        snapshot = new PoolSnapshot(s.source(), s.step(), s.capturedNanos(), s.capacity(), s.loads(), s.running(),
                s.queued(), s.poolDepth(), s.available(), s.groups(), s.capacities(), d);
    }
}
