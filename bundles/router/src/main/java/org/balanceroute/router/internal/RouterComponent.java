package org.balanceroute.router.internal;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.function.LongSupplier;
import org.balanceroute.api.ClusterSnapshot;
import org.balanceroute.api.RoutingPolicy;
import org.balanceroute.api.SnapshotStore;
import org.balanceroute.api.CompletionListener;
import org.balanceroute.api.TerminationPredictor;
import org.balanceroute.router.ClusterStatus;
import org.balanceroute.router.DispatchObserver;
import org.balanceroute.router.Placement;
import org.balanceroute.router.RouterService;
import org.balanceroute.router.StepResult;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Deactivate;
import org.osgi.service.component.annotations.Modified;
import org.osgi.service.component.annotations.Reference;
import org.osgi.service.component.annotations.ReferenceCardinality;
import org.osgi.service.component.annotations.ReferencePolicy;
import org.osgi.service.component.annotations.ReferencePolicyOption;
import org.osgi.service.metatype.annotations.Designate;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The {@code router} component (PID {@value RouterService#PID}): the DS adapter around the
 * {@link DispatchLoop}. Policies and predictors are dynamic, greedy, multiple references, so a
 * policy bundle can come and go while requests flow; the loop picks the active policy by the
 * configuration's {@code policy} / {@code fallbackPolicy}.
 *
 * <p>Config-or-error: an invalid configuration is logged (field and range) and the previous
 * one stays in force; neither the constructor nor {@link #modified} throws for a bad value.
 *
 * <p>Lifecycle: the constructor builds the loop, the framework then binds the policies and
 * predictors present, and {@link #start()} starts the dispatch thread, which selects the policy
 * once all of them are known.
 */
@Component(name = RouterService.PID, configurationPid = RouterService.PID, immediate = true,
        service = RouterService.class)
@Designate(ocd = RouterConfig.class)
public final class RouterComponent implements RouterService {

    private static final Logger LOG = LoggerFactory.getLogger(RouterComponent.class);

    private final DispatchLoop loop;
    private final PolicyRegistry policies = new PolicyRegistry();
    private final List<CompletionListener> predictors = new ArrayList<>(); // guarded by itself; with the listeners

    @Activate
    public RouterComponent(RouterConfig config) {
        this(config, System::nanoTime);
    }

    /** @param clock nanoseconds, for request arrival times and snapshots */
    RouterComponent(RouterConfig config, LongSupplier clock) {
        RouterSettings settings;
        try {
            settings = RouterSettings.read(config);
        } catch (IllegalArgumentException e) {
            settings = RouterSettings.defaults();
            LOG.error("router: configuration {} rejected: {}; using the defaults {}", PID, e.getMessage(), settings);
        }
        loop = new DispatchLoop(settings, clock);
    }

    @Activate
    void start() {
        loop.start();
    }

    @Modified
    void modified(RouterConfig config) {
        RouterSettings next;
        try {
            next = RouterSettings.read(config);
        } catch (IllegalArgumentException e) {
            LOG.error("router: configuration {} rejected: {}; keeping {}", PID, e.getMessage(), loop.settings());
            return;
        }
        if (!next.equals(loop.settings())) {
            loop.configure(next);
        }
    }

    @Deactivate
    void stop() {
        loop.stop();
    }

    @Reference(name = "policy", service = RoutingPolicy.class, cardinality = ReferenceCardinality.MULTIPLE,
            policy = ReferencePolicy.DYNAMIC, policyOption = ReferencePolicyOption.GREEDY,
            target = "(" + RoutingPolicy.NAME_PROPERTY + "=*)", unbind = "unbindPolicy", updated = "updatedPolicy")
    void bindPolicy(RoutingPolicy policy, Map<String, Object> properties) {
        loop.offer(policies.put(policy, properties));
    }

    void updatedPolicy(RoutingPolicy policy, Map<String, Object> properties) {
        loop.offer(policies.put(policy, properties));
    }

    void unbindPolicy(RoutingPolicy policy) {
        loop.offer(policies.remove(policy));
    }

    /** At most one step observer (the metrics bundle); optional, so the router never waits for it. */
    @Reference(name = "observer", service = DispatchObserver.class, cardinality = ReferenceCardinality.OPTIONAL,
            policy = ReferencePolicy.DYNAMIC, policyOption = ReferencePolicyOption.GREEDY, unbind = "unbindObserver")
    synchronized void bindObserver(DispatchObserver observer) {
        current = observer;
        loop.observer(observer);
    }

    synchronized void unbindObserver(DispatchObserver observer) {
        if (current == observer) {
            current = null;
            loop.observer(null);
        }
    }

    private DispatchObserver current; // guarded by this

    /**
     * The shared snapshot store (the cluster feature), when one is registered: the router joins
     * its membership; when it goes, the router is a cluster of one again. Greedy: a new store
     * (an updated cluster bundle) replaces the old one without a gap.
     */
    @Reference(name = "store", service = SnapshotStore.class, cardinality = ReferenceCardinality.OPTIONAL,
            policy = ReferencePolicy.DYNAMIC, policyOption = ReferencePolicyOption.GREEDY, unbind = "unbindStore")
    void bindStore(SnapshotStore store) {
        loop.attach(store);
    }

    void unbindStore(SnapshotStore store) {
        loop.detach(store);
    }

    @Reference(name = "predictor", service = TerminationPredictor.class, cardinality = ReferenceCardinality.MULTIPLE,
            policy = ReferencePolicy.DYNAMIC, policyOption = ReferencePolicyOption.GREEDY, unbind = "unbindPredictor")
    void bindPredictor(TerminationPredictor predictor) {
        synchronized (predictors) {
            predictors.add(predictor);
            loop.predictors(predictors);
        }
    }

    void unbindPredictor(TerminationPredictor predictor) {
        synchronized (predictors) {
            predictors.removeIf(p -> p == predictor);
            loop.predictors(predictors);
        }
    }

    /**
     * Other services told of every completion on the dispatch thread, as the predictors are
     * (e.g. the tuner's record of recent requests); quick, non-blocking, as {@link CompletionListener} says.
     */
    @Reference(name = "completionListener", service = CompletionListener.class,
            cardinality = ReferenceCardinality.MULTIPLE, policy = ReferencePolicy.DYNAMIC,
            policyOption = ReferencePolicyOption.GREEDY, unbind = "unbindCompletionListener")
    void bindCompletionListener(CompletionListener listener) {
        synchronized (predictors) {
            predictors.add(listener);
            loop.predictors(predictors);
        }
    }

    void unbindCompletionListener(CompletionListener listener) {
        synchronized (predictors) {
            predictors.removeIf(p -> p == listener);
            loop.predictors(predictors);
        }
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
        return policies.names();
    }

    @Override
    public Map<String, Object> policyParameters(String policy) {
        RoutingPolicy p = policies.byName().get(policy);
        return p == null ? Map.of() : p.parameters();
    }

    @Override
    public ClusterSnapshot snapshot() {
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
    public ClusterStatus cluster() {
        return loop.clusterStatus();
    }

    @Override
    public List<String> pools() {
        return List.of(poolName());
    }

    @Override
    public RouterService pool(String name) {
        return this;
    }

    @Override
    public String poolName() {
        return "default";
    }
}
