package org.balanceroute.admin.internal;

import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.balanceroute.api.ClusterSnapshot;
import org.balanceroute.router.ClusterStatus;
import org.balanceroute.router.Placement;
import org.balanceroute.router.RouterService;
import org.balanceroute.router.StepResult;

/** A RouterService with fixed answers. */
final class FakeRouter implements RouterService {

    volatile String active = "br0";
    volatile List<String> available = List.of("br0", "brh-survival", "jsq", "p2c", "random");
    volatile Map<String, Map<String, Object>> parameters = Map.of();
    ClusterSnapshot snapshot;
    ClusterStatus cluster;

    @Override public String activePolicy() { return active; }
    @Override public String configuredPolicy() { return active; }
    @Override public String fallbackPolicy() { return "jsq"; }
    @Override public List<String> availablePolicies() { return available; }
    @Override public Map<String, Object> policyParameters(String policy) { return parameters.getOrDefault(policy, Map.of()); }
    @Override public ClusterSnapshot snapshot() { return snapshot; }
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
    @Override public void setWorkerDraining(int worker, boolean draining) { }
    @Override public ClusterStatus cluster() { return cluster; }
    @Override public List<String> pools() { return List.of("default"); }
    @Override public RouterService pool(String name) { return "default".equals(name) ? this : null; }
    @Override public String poolName() { return "default"; }
}
