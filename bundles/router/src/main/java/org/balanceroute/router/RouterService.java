package org.balanceroute.router;

import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.balanceroute.api.PoolSnapshot;
import org.osgi.annotation.versioning.ProviderType;

/**
 * The router: one dispatch thread that owns the routing core (a
 * {@code org.balanceroute.core.Router} over a {@code PoolState} of G workers with B slots
 * each) and applies everything through a queue: request submissions, decoded tokens,
 * completions, aborts, dispatch steps, policy switches and reconfigurations. Nothing on that
 * path takes a lock.
 *
 * <p><b>Threading.</b> Every method may be called from any thread. State changes are applied by
 * the dispatch thread in the order they were called (from one calling thread; calls from
 * different threads interleave in some order), so, e.g., a {@link #dispatchStep()} called after
 * {@link #submit} sees that request. Futures complete on the dispatch thread: a dependent stage
 * attached with a non-async method runs there and must not block (use the {@code *Async}
 * variants for real work).
 *
 * <p><b>Policy selection.</b> The configuration (PID {@value #PID}) names the policy
 * ({@code policy}, default {@code br0}) and a fallback ({@code fallbackPolicy}, default
 * {@code jsq}); policies are the {@code RoutingPolicy} services registered with
 * {@code balanceroute.policy=NAME}. The router uses the configured policy while it is
 * registered, else the fallback (logged once per transition), else none: requests then wait in
 * the prompt pool until a policy appears. A switch is applied by the dispatch thread at the
 * next command, so it is in force for the next dispatch step (and the next arrival): requests on
 * a worker stay there, requests in the pool are placed by the new policy (at once, if the new
 * policy routes at arrival), nothing is dropped.
 *
 * <p><b>Stepping.</b> A dispatch step places waiting requests once per decode step. With
 * {@code stepIntervalMillis = 0} (the default) steps happen when asked: {@link #requestStep()}
 * (the proxy, after each arrival and each release) runs one at the next decode step boundary,
 * at the cadence the router observes in the token streams ({@link #observedStepNanos()}), so
 * the requests that end in one decode step free their slots in one dispatch step (batch
 * admission); {@link #dispatchStep()} runs one at once (tests, tools). With
 * {@code stepIntervalMillis > 0} the dispatch thread also runs a step by itself at that
 * interval.
 *
 * <p><b>Learning.</b> Every registered {@code TerminationPredictor} is told each completion,
 * whatever policy is active, so a BR-H policy switched to later starts warm.
 *
 * <p><b>Workers.</b> The decode workers and the instances (DP groups) they form have one owner:
 * the pool's topology ({@link #setLayout}, told by whoever bridges the two, the proxy). Until it
 * is known nothing is placed: requests wait in the prompt pool.
 *
 * <p><b>Pools.</b> One router per pool of the fleet's topology: each pool has its own dispatch
 * thread, core, prompt pool, active policy (the pool's {@code policy}, else the configuration's)
 * and snapshot; the other settings, the policies and the predictors are shared. The registered
 * service is the router of the <em>primary</em> pool ({@code default}, else the first by name):
 * its methods act on that pool, and {@link #pool(String)} gives any pool's router.
 *
 * <p><b>Cluster of proxies.</b> When a shared {@code SnapshotStore} service is registered (the
 * cluster feature), the router joins its membership and routes as part of one cluster: the oldest
 * member is the dispatcher, whose core holds every replica's requests and decides every placement
 * with the same policies; the others forward their requests' events to it and read its view.
 * Then {@link #snapshot()} and {@link #poolDepth()} are the whole cluster's on every replica, and
 * {@link #replicas()} shows the members and their shares. Without a store (or when it goes) the
 * router is a cluster of one; moving between the two keeps every request in flight.
 */
@ProviderType
public interface RouterService {

    /** Configuration PID and component name of the router. */
    String PID = "org.balanceroute.router";

    /** Configuration property of PID {@value #PID}: the name of the active routing policy. */
    String POLICY_PROPERTY = "policy";

    /** Configuration property of PID {@value #PID}: the policy used while the configured one is absent. */
    String FALLBACK_POLICY_PROPERTY = "fallbackPolicy";

    /** Configuration property of PID {@value #PID}: 0, or the period of the router's own dispatch steps. */
    String STEP_INTERVAL_MILLIS_PROPERTY = "stepIntervalMillis";

    /** Name reported as the active policy while neither the configured nor the fallback one is available. */
    String NO_POLICY = "none";

    /** The policy the dispatch thread uses now: the configured one, the fallback, or {@link #NO_POLICY}. */
    String activePolicy();

    /** The configuration's {@code policy}, whether or not it is available. */
    String configuredPolicy();

    /** The configuration's {@code fallbackPolicy}. */
    String fallbackPolicy();

    /** Names of the registered policies, sorted. */
    List<String> availablePolicies();

    /**
     * The tunables in force of a registered policy (e.g. the BR-0 / BR-H settings, a seed), by
     * configuration property name; empty if it has none or is not registered.
     */
    Map<String, Object> policyParameters(String policy);

    /**
     * A consistent copy of the cluster as the dispatch thread sees it, taken between two
     * commands: per-worker KV loads, running and queued requests, the step index (the number of
     * dispatch steps run so far) and the prompt pool depth; on a follower of a cluster of proxies,
     * the dispatcher's last view (the sum over every replica). No workers while G is unknown.
     * Blocks until the dispatch thread answers.
     *
     * @throws IllegalStateException if the router is stopped or does not answer within seconds
     */
    PoolSnapshot snapshot();

    /**
     * A request that finished prefill. Pool policies keep it in the prompt pool until a dispatch
     * step places it; arrival policies place it at once.
     *
     * @param requestId unique among the requests in flight
     * @param promptTokens s_i, at least 1
     * @param promptKey prompt identity for the exact-match predictor, 0 if unknown
     * @param bodyBytes size of the client's request body (what the vllm-ascend rule balances), at least 0
     * @return completes with the worker once the request is placed; completes exceptionally with
     *     {@link IllegalArgumentException} if the id is already in flight,
     *     is cancelled ({@link java.util.concurrent.CancellationException}) if it is aborted before it
     *     is placed,
     *     {@link IllegalStateException} if the router stops first
     * @throws IllegalArgumentException if promptTokens &lt; 1 or bodyBytes &lt; 0
     */
    CompletableFuture<Placement> submit(long requestId, int promptTokens, long promptKey, int bodyBytes);

    /**
     * {@code count} more tokens decoded for a running request: its KV load and its worker's grow
     * by that much. Fire and forget; tokens for an unknown request are ignored.
     *
     * @throws IllegalArgumentException if count &lt; 1
     */
    void tokens(long requestId, int count);

    /**
     * The request finished normally: its slot and load are released, queued work on its worker
     * is admitted, and every predictor learns its output length (the tokens reported for it).
     *
     * @return true, or false if no such request is in flight
     */
    CompletableFuture<Boolean> complete(long requestId);

    /**
     * The request ended abnormally (error, disconnect, timeout): released wherever it is (pool,
     * worker queue, running), nothing learned. A pending {@link #submit} future is cancelled.
     *
     * @return true, or false if no such request is in flight
     */
    CompletableFuture<Boolean> abort(long requestId);

    /**
     * Runs one dispatch step: the active policy places waiting requests from the prompt pool on
     * workers with free slots; then the step index advances.
     *
     * @return what the step placed where
     */
    CompletableFuture<StepResult> dispatchStep();

    /**
     * Requests waiting in the prompt pool, as the dispatch thread published it after its last
     * command: never blocks, takes no lock, may lag the queued commands (admission control reads
     * it once per request, so a cheap, slightly stale value beats a blocking {@link #snapshot()}).
     * The default asks for a snapshot; the router component overrides it.
     */
    default int poolDepth() {
        return snapshot().poolDepth();
    }

    /**
     * Asks for a dispatch step at the next decode step boundary: at once while no step period is
     * known yet or one has passed since the last step, else when it has. Requests made before
     * the step runs coalesce into it, and the commands already queued (completions, arrivals)
     * are applied first. Fire and forget; no allocation.
     */
    void requestStep();

    /**
     * The decode step period observed in the token streams ({@link #tokens} reports: the time
     * between two reports of a request over the tokens they carry, smoothed over about the last
     * 32 reports); 0 while no stream has reported twice.
     */
    long observedStepNanos();

    /**
     * Takes decode worker {@code worker} out of routing ({@code false}: its engine failed its
     * health check) or puts it back ({@code true}). Fire and forget, applied in call order by the
     * dispatch thread: from then on no policy places a request there (it offers no free slots to
     * pool policies, arrival policies skip it); requests already on it stay until they end. While
     * every worker is marked down, requests wait in the pool whatever the policy (the proxy's
     * {@code placementTimeoutMillis} bounds the wait: 503); a dispatch step runs as soon as one is
     * back and places them. A worker outside
     * [0, G) is ignored (the connector may list more or fewer workers than the router has).
     * Workers are available until told otherwise; a new layout ({@link #setLayout}) keeps the marks
     * of the workers that stay, by identity, whatever their new index.
     */
    void setWorkerAvailable(int worker, boolean available);

    /** Whether the dispatch thread runs steps by itself ({@code stepIntervalMillis > 0}). */
    boolean automaticStepping();

    /**
     * The pool's decode workers, from the topology (their one owner): every worker's identity (its
     * endpoint, e.g. {@code http://host:port} or {@code http://host:port;rank=3}, unique), in
     * router order, and the decode instances they form: instance i is the next
     * {@code groupSizes[i]} workers, one DP group meeting at one barrier, each of B
     * {@code capacities[i]}. Fire and forget, in force at the next command: a worker that stays
     * (same identity) keeps its requests, its marks and its drain whatever its new index; new
     * workers take requests at once; the requests of a removed worker run to their end there
     * (their tokens and completion are still accepted) but count in no group. Until first told,
     * requests wait in the pool.
     *
     * @throws IllegalArgumentException if the lists disagree, an identity repeats, a group is
     *     empty, a capacity is outside [1, 4096], or there are more than 1024 workers
     */
    void setLayout(List<String> workers, int[] groupSizes, int[] capacities);

    /**
     * Starts ({@code true}) or ends an operator's drain of worker {@code worker} (its index in the
     * current layout): while draining it takes no new requests, those on it run to their end; it is
     * drained when none is left ({@link PoolSnapshot#drained}). Fire and forget, in force at the
     * next dispatch step, kept across layout changes while the worker stays; in a cluster of
     * proxies it holds on every replica (the dispatcher applies it). A worker outside the layout is
     * ignored.
     */
    void setWorkerDraining(int worker, boolean draining);

    /**
     * The cluster of proxy replicas this router belongs to: the store, this member, the dispatcher,
     * every member's share of the load, and how stale the shared view is. Blocks like {@link #snapshot()}.
     */
    ReplicasStatus replicas();

    /** The pools routed now, by name, sorted; the primary pool's alone before the topology is known. */
    List<String> pools();

    /**
     * The router of pool {@code name}: every method of the returned service acts on that pool
     * alone. Null when no such pool is routed. The same object while the pool exists (compare it
     * by identity to tell a pool's router was replaced).
     */
    RouterService pool(String name);

    /** The name of the pool this service acts on. */
    String poolName();
}
