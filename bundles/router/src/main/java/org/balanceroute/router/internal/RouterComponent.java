package org.balanceroute.router.internal;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.function.LongSupplier;
import org.balanceroute.api.CompletionListener;
import org.balanceroute.api.PoolSnapshot;
import org.balanceroute.api.RoutingPolicy;
import org.balanceroute.api.SnapshotStore;
import org.balanceroute.api.TerminationPredictor;
import org.balanceroute.api.config.ConfigProperties;
import org.balanceroute.api.config.ConfigurationException;
import org.balanceroute.fleet.Fleet;
import org.balanceroute.fleet.FleetListener;
import org.balanceroute.fleet.FleetService;
import org.balanceroute.fleet.PoolTopology;
import org.balanceroute.router.DispatchObserver;
import org.balanceroute.router.Placement;
import org.balanceroute.router.ReplicasStatus;
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
 * The {@code router} component (PID {@value RouterService#PID}): one {@link DispatchLoop} per
 * pool of the fleet's topology ({@link PoolRouter}), made, reconfigured and retired as the
 * topology changes ({@link FleetListener}). The registered service acts on the primary pool
 * ({@link Fleet#primaryPool()}); {@link #pool} gives each pool's. Policies and predictors are
 * dynamic, greedy, multiple references, shared by every pool through {@link SharedPlugins} (one
 * lock keeps the SPI's "never concurrently"), so a policy bundle can come and go while requests
 * flow; each loop picks its active policy by the pool's {@code policy}, else the configuration's
 * {@code policy}, then {@code fallbackPolicy}.
 *
 * <p>Config-or-error: an invalid update is logged (PID, property and range) and the previous
 * configuration stays in force; an invalid configuration at activation fails the activation
 * with the same message (there is no previous one to keep).
 *
 * <p>Lifecycle: the constructor builds a loop per pool known, the framework then binds the
 * policies and predictors present, and {@link #start()} starts the dispatch threads, which select
 * their policy once all of them are known. A pool removed from the topology takes no new request
 * (the proxy no longer finds its model); its loop runs until its last request ended (at most
 * {@value #RETIRE_MILLIS} ms), then stops.
 */
@Component(name = RouterService.PID, configurationPid = RouterService.PID, immediate = true,
        service = {RouterService.class, FleetListener.class})
@Designate(ocd = RouterConfig.class)
public final class RouterComponent implements RouterService, FleetListener {

    private static final Logger LOG = LoggerFactory.getLogger(RouterComponent.class);
    /** The longest a removed pool's loop waits for its requests to end. */
    static final long RETIRE_MILLIS = 600_000;
    private static final long RETIRE_POLL_MILLIS = 200;

    /** The pools routed now: replaced whole under {@link #lock}, read without it. */
    private record Pools(Map<String, PoolRouter> byName, PoolRouter primary) {
    }

    private final LongSupplier clock;
    private final PolicyRegistry policies = new PolicyRegistry();
    private final SharedPlugins plugins = new SharedPlugins();
    /** Guards every change of the pools and of what each loop is given (settings, listeners, observer, store). */
    private final Object lock = new Object();
    private final List<CompletionListener> listeners = new ArrayList<>(); // guarded by lock
    private RouterSettings settings; // guarded by lock
    private DispatchObserver observer; // guarded by lock
    /** The shared store's channels, one per pool over one membership; null without a store. */
    private PoolChannels channels; // guarded by lock
    private boolean started; // guarded by lock
    private volatile Pools pools;

    @Activate
    public RouterComponent(Map<String, Object> properties, @Reference(name = "fleet") FleetService fleet) {
        this(properties, System::nanoTime);
        fleetChanged(fleet.fleet());
    }

    /**
     * A router of one pool, {@value Fleet#DEFAULT_POOL}, until {@link #fleetChanged} says otherwise (tests).
     *
     * @param clock nanoseconds, for request arrival times and snapshots
     * @throws ConfigurationException if the configuration is invalid (the activation fails)
     */
    RouterComponent(Map<String, ?> properties, LongSupplier clock) {
        this.clock = clock;
        RouterSettings s = RouterSettings.read(ConfigProperties.of(PID, properties));
        synchronized (lock) {
            settings = s;
            PoolRouter only = newPool(Fleet.DEFAULT_POOL, "");
            pools = new Pools(Map.of(only.name, only), only);
        }
    }

    @Activate
    void start() {
        synchronized (lock) {
            started = true;
            for (PoolRouter p : pools.byName().values()) {
                p.loop.start();
            }
        }
    }

    @Modified
    void modified(Map<String, Object> properties) {
        ConfigProperties.readUpdate(PID, properties, RouterSettings::read,
                e -> LOG.error("router: configuration rejected: {}; keeping {}", e.getMessage(), settings()))
                .ifPresent(this::apply);
    }

    private void apply(RouterSettings next) {
        synchronized (lock) {
            settings = next;
            for (PoolRouter p : pools.byName().values()) {
                configure(p);
            }
        }
    }

    @Deactivate
    void stop() {
        synchronized (lock) {
            started = false;
            for (PoolRouter p : pools.byName().values()) {
                p.loop.stop();
            }
        }
    }

    /**
     * The topology changed: a loop for each pool added, each pool's own policy applied, and the
     * loops of pools removed retired. The pool {@value Fleet#DEFAULT_POOL} stays while the
     * topology has no pool at all (requests wait in it, as before the topology is known).
     */
    @Override
    public void fleetChanged(Fleet fleet) {
        List<PoolRouter> retired = new ArrayList<>();
        boolean running;
        synchronized (lock) {
            running = started;
            Map<String, PoolRouter> before = pools.byName();
            Map<String, PoolRouter> next = new TreeMap<>();
            for (PoolTopology t : fleet.pools()) {
                PoolRouter p = before.get(t.name());
                if (p == null) {
                    p = newPool(t.name(), t.policy());
                    // its layout from the topology at once: the connector may have told it (through the
                    // proxy's bridge) before this pool's router existed; later changes come that way
                    if (!t.instances().isEmpty()) {
                        p.loop.setLayout(t.workerIds(), t.groupSizes(), t.capacities());
                    }
                    if (started) {
                        p.loop.start();
                    }
                    LOG.info("router: pool {} added{}", t.name(), t.policy().isEmpty() ? "" : ", policy " + t.policy());
                } else if (!p.ownPolicy.equals(t.policy())) {
                    p.ownPolicy = t.policy();
                    configure(p);
                }
                next.put(t.name(), p);
            }
            if (next.isEmpty()) {
                PoolRouter p = before.get(Fleet.DEFAULT_POOL);
                next.put(Fleet.DEFAULT_POOL, p != null ? p : startedIfRunning(newPool(Fleet.DEFAULT_POOL, "")));
            }
            before.forEach((name, p) -> {
                if (!next.containsKey(name)) {
                    retired.add(p);
                }
            });
            PoolTopology primary = fleet.primaryPool();
            Map<String, PoolRouter> byName = java.util.Collections.unmodifiableMap(next);
            pools = new Pools(byName, primary == null ? next.values().iterator().next() : next.get(primary.name()));
        }
        for (PoolRouter p : retired) {
            if (running) {
                retire(p);
            } else {
                p.loop.stop(); // never started: nothing ran in it
            }
        }
    }

    private PoolRouter startedIfRunning(PoolRouter p) {
        if (started) {
            p.loop.start();
        }
        return p;
    }

    /** A pool's loop, given everything the others have (under the lock). */
    private PoolRouter newPool(String name, String ownPolicy) {
        DispatchLoop loop = new DispatchLoop(settings.forPool(ownPolicy), clock);
        PoolRouter p = new PoolRouter(name, ownPolicy, loop, this);
        loop.offer(plugins.policies(policies.byName()));
        loop.predictors(wrapped(listeners));
        loop.observer(plugins.observer(observer, name));
        if (channels != null) {
            loop.attach(channels.channel(name));
        }
        return p;
    }

    private void configure(PoolRouter p) {
        RouterSettings next = settings.forPool(p.ownPolicy);
        if (!next.equals(p.loop.settings())) {
            p.loop.configure(next);
        }
    }

    /** Stops a removed pool's loop once its last request ended (or after {@value #RETIRE_MILLIS} ms), off the caller's thread. */
    private void retire(PoolRouter p) {
        LOG.info("router: pool {} removed: it takes no new request; its router stops once its requests ended", p.name);
        Thread t = new Thread(() -> {
            long deadline = System.nanoTime() + java.util.concurrent.TimeUnit.MILLISECONDS.toNanos(RETIRE_MILLIS);
            try {
                while (!p.idle() && System.nanoTime() - deadline < 0) {
                    Thread.sleep(RETIRE_POLL_MILLIS);
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            if (!p.idle()) {
                LOG.warn("router: pool {} removed {} ms ago still has requests: they fail now", p.name, RETIRE_MILLIS);
            }
            p.loop.stop();
        }, "balanceroute-retire-" + p.name);
        t.setDaemon(true);
        t.start();
    }

    private List<CompletionListener> wrapped(List<CompletionListener> raw) {
        List<CompletionListener> out = new ArrayList<>(raw.size());
        for (CompletionListener l : raw) {
            out.add(plugins.listener(l));
        }
        return out;
    }

    private RouterSettings settings() {
        synchronized (lock) {
            return settings;
        }
    }

    @Reference(name = "policy", service = RoutingPolicy.class, cardinality = ReferenceCardinality.MULTIPLE,
            policy = ReferencePolicy.DYNAMIC, policyOption = ReferencePolicyOption.GREEDY,
            target = "(" + RoutingPolicy.NAME_PROPERTY + "=*)", unbind = "unbindPolicy", updated = "updatedPolicy")
    void bindPolicy(RoutingPolicy policy, Map<String, Object> properties) {
        policies.put(policy, properties);
        offerPolicies();
    }

    void updatedPolicy(RoutingPolicy policy, Map<String, Object> properties) {
        policies.put(policy, properties);
        offerPolicies();
    }

    void unbindPolicy(RoutingPolicy policy) {
        policies.remove(policy);
        offerPolicies();
    }

    private void offerPolicies() {
        synchronized (lock) {
            Map<String, RoutingPolicy> wrapped = plugins.policies(policies.byName());
            for (PoolRouter p : pools.byName().values()) {
                p.loop.offer(wrapped);
            }
        }
    }

    /** At most one step observer (the metrics bundle); optional, so the router never waits for it. */
    @Reference(name = "observer", service = DispatchObserver.class, cardinality = ReferenceCardinality.OPTIONAL,
            policy = ReferencePolicy.DYNAMIC, policyOption = ReferencePolicyOption.GREEDY, unbind = "unbindObserver")
    void bindObserver(DispatchObserver o) {
        synchronized (lock) {
            observer = o;
            for (PoolRouter p : pools.byName().values()) {
                p.loop.observer(plugins.observer(o, p.name));
            }
        }
    }

    void unbindObserver(DispatchObserver o) {
        synchronized (lock) {
            if (observer == o) {
                observer = null;
                for (PoolRouter p : pools.byName().values()) {
                    p.loop.observer(null);
                }
            }
        }
    }

    /**
     * The shared snapshot store (the cluster feature), when one is registered: every pool's router
     * joins its membership; when it goes, each is a cluster of one again. Greedy: a new store
     * (an updated cluster bundle) replaces the old one without a gap.
     */
    @Reference(name = "store", service = SnapshotStore.class, cardinality = ReferenceCardinality.OPTIONAL,
            policy = ReferencePolicy.DYNAMIC, policyOption = ReferencePolicyOption.GREEDY, unbind = "unbindStore")
    void bindStore(SnapshotStore s) {
        synchronized (lock) {
            PoolChannels before = channels;
            channels = new PoolChannels(s);
            for (PoolRouter p : pools.byName().values()) {
                p.loop.attach(channels.channel(p.name)); // a loop attached elsewhere moves over (greedy rebind)
            }
            if (before != null) {
                leave(before);
            }
        }
    }

    void unbindStore(SnapshotStore s) {
        synchronized (lock) {
            if (channels != null && channels.store() == s) {
                leave(channels);
                channels = null;
            }
        }
    }

    /** Every loop leaves those channels, then their one session closes. */
    private void leave(PoolChannels c) {
        for (PoolRouter p : pools.byName().values()) {
            p.loop.detach(c.channel(p.name));
        }
        c.close();
    }

    @Reference(name = "predictor", service = TerminationPredictor.class, cardinality = ReferenceCardinality.MULTIPLE,
            policy = ReferencePolicy.DYNAMIC, policyOption = ReferencePolicyOption.GREEDY, unbind = "unbindPredictor")
    void bindPredictor(TerminationPredictor predictor) {
        addListener(predictor);
    }

    void unbindPredictor(TerminationPredictor predictor) {
        removeListener(predictor);
    }

    /**
     * Other services told of every completion on a dispatch thread, as the predictors are
     * (e.g. the tuner's record of recent requests); quick, non-blocking, as {@link CompletionListener} says.
     */
    @Reference(name = "completionListener", service = CompletionListener.class,
            cardinality = ReferenceCardinality.MULTIPLE, policy = ReferencePolicy.DYNAMIC,
            policyOption = ReferencePolicyOption.GREEDY, unbind = "unbindCompletionListener")
    void bindCompletionListener(CompletionListener listener) {
        addListener(listener);
    }

    void unbindCompletionListener(CompletionListener listener) {
        removeListener(listener);
    }

    private void addListener(CompletionListener l) {
        synchronized (lock) {
            listeners.add(l);
            tellListeners();
        }
    }

    private void removeListener(CompletionListener l) {
        synchronized (lock) {
            listeners.removeIf(x -> x == l);
            plugins.forget(l);
            tellListeners();
        }
    }

    private void tellListeners() {
        List<CompletionListener> wrapped = wrapped(listeners);
        for (PoolRouter p : pools.byName().values()) {
            p.loop.predictors(wrapped);
        }
    }

    private PoolRouter primary() {
        return pools.primary();
    }

    @Override
    public List<String> pools() {
        return List.copyOf(pools.byName().keySet());
    }

    @Override
    public RouterService pool(String name) {
        return pools.byName().get(name);
    }

    @Override
    public String poolName() {
        return primary().name;
    }

    @Override
    public String activePolicy() {
        return primary().activePolicy();
    }

    @Override
    public String configuredPolicy() {
        return primary().configuredPolicy();
    }

    @Override
    public String fallbackPolicy() {
        return primary().fallbackPolicy();
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
    public PoolSnapshot snapshot() {
        return primary().snapshot();
    }

    @Override
    public CompletableFuture<Placement> submit(long requestId, int promptTokens, long promptKey, int bodyBytes) {
        return primary().submit(requestId, promptTokens, promptKey, bodyBytes);
    }

    @Override
    public void tokens(long requestId, int count) {
        primary().tokens(requestId, count);
    }

    @Override
    public CompletableFuture<Boolean> complete(long requestId) {
        return primary().complete(requestId);
    }

    @Override
    public CompletableFuture<Boolean> abort(long requestId) {
        return primary().abort(requestId);
    }

    @Override
    public CompletableFuture<StepResult> dispatchStep() {
        return primary().dispatchStep();
    }

    @Override
    public int poolDepth() {
        return primary().poolDepth();
    }

    @Override
    public void requestStep() {
        primary().requestStep();
    }

    @Override
    public long observedStepNanos() {
        return primary().observedStepNanos();
    }

    @Override
    public void setWorkerAvailable(int worker, boolean available) {
        primary().setWorkerAvailable(worker, available);
    }

    @Override
    public boolean automaticStepping() {
        return primary().automaticStepping();
    }

    @Override
    public void setLayout(List<String> workers, int[] groupSizes, int[] capacities) {
        primary().setLayout(workers, groupSizes, capacities);
    }

    @Override
    public void setWorkerDraining(int worker, boolean draining) {
        primary().setWorkerDraining(worker, draining);
    }

    @Override
    public ReplicasStatus replicas() {
        return primary().replicas();
    }
}
