package org.balanceroute.router.internal;

import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.balanceroute.api.PoolSnapshot;
import org.balanceroute.router.Placement;
import org.balanceroute.router.ReplicasStatus;
import org.balanceroute.router.RouterService;
import org.balanceroute.router.StepResult;

/**
 * The router of one pool: its own {@link DispatchLoop} (dispatch thread, core, prompt pool,
 * active policy, snapshot), as the {@link RouterService} that {@link RouterComponent#pool}
 * returns for it.
 */
final class PoolRouter implements RouterService {

    final String name;
    final DispatchLoop loop;
    private final RouterComponent routers;
    /** The pool's own policy ("": the router's configured one), as its topology last said. */
    volatile String ownPolicy;

    PoolRouter(String name, String ownPolicy, DispatchLoop loop, RouterComponent routers) {
        this.name = name;
        this.ownPolicy = ownPolicy;
        this.loop = loop;
        this.routers = routers;
    }

    @Override
    public String activePolicy() {
        return loop.activePolicy();
    }

    @Override
    public String configuredPolicy() {
        return loop.settings().policy();
    }

    @Override
    public String fallbackPolicy() {
        return loop.settings().fallbackPolicy();
    }

    @Override
    public List<String> availablePolicies() {
        return routers.availablePolicies();
    }

    @Override
    public Map<String, Object> policyParameters(String policy) {
        return routers.policyParameters(policy);
    }

    @Override
    public PoolSnapshot snapshot() {
        return loop.snapshot();
    }

    @Override
    public CompletableFuture<Placement> submit(long requestId, int promptTokens, long promptKey, int bodyBytes) {
        return loop.submit(requestId, promptTokens, promptKey, bodyBytes);
    }

    @Override
    public void tokens(long requestId, int count) {
        loop.tokens(requestId, count);
    }

    @Override
    public CompletableFuture<Boolean> complete(long requestId) {
        return loop.complete(requestId);
    }

    @Override
    public CompletableFuture<Boolean> abort(long requestId) {
        return loop.abort(requestId);
    }

    @Override
    public CompletableFuture<StepResult> dispatchStep() {
        return loop.dispatchStep();
    }

    @Override
    public int poolDepth() {
        return loop.poolDepth();
    }

    @Override
    public void requestStep() {
        loop.requestStep();
    }

    @Override
    public long observedStepNanos() {
        return loop.observedStepNanos();
    }

    @Override
    public void setWorkerAvailable(int worker, boolean available) {
        loop.setWorkerAvailable(worker, available);
    }

    @Override
    public boolean automaticStepping() {
        return loop.settings().stepIntervalMillis() > 0;
    }

    @Override
    public void setLayout(List<String> workers, int[] groupSizes, int[] capacities) {
        loop.setLayout(workers, groupSizes, capacities);
    }

    @Override
    public void setWorkerDraining(int worker, boolean draining) {
        loop.setWorkerDraining(worker, draining);
    }

    @Override
    public ReplicasStatus replicas() {
        return loop.replicasStatus();
    }

    @Override
    public List<String> pools() {
        return routers.pools();
    }

    @Override
    public RouterService pool(String other) {
        return routers.pool(other);
    }

    @Override
    public String poolName() {
        return name;
    }

    /** Whether nothing is left in this pool's router: no request on a worker, none waiting. */
    boolean idle() {
        if (loop.poolDepth() > 0) {
            return false;
        }
        for (int r : loop.snapshot().running()) {
            if (r > 0) {
                return false;
            }
        }
        return true;
    }

    @Override
    public String toString() {
        return "router of pool " + name;
    }
}
