package org.balanceroute.api;

import java.util.Map;
import org.osgi.annotation.versioning.ConsumerType;

/**
 * A decode routing policy. Two ways to route, chosen by {@link #usesPromptPool()}:
 * <ul>
 *   <li>pool policies (BR-0, BR-H) leave requests in the prompt pool and place them in
 *       {@link #dispatch(DispatchStep)}, called once per decode step;</li>
 *   <li>arrival policies (the baselines, BR-0's pool-bypass path) place each request as it
 *       arrives with {@link #route(PoolView, RequestView)}; a full worker queues it FCFS.</li>
 * </ul>
 * Called only from the dispatch loop, never concurrently. Implementations read their
 * settings when constructed or reconfigured, never per pick.
 */
@ConsumerType
public interface RoutingPolicy {

    /** Service property carrying the policy name, e.g. {@code br0}, {@code jsq}. */
    String NAME_PROPERTY = "balanceroute.policy";

    /**
     * Service property naming the configuration PID the policy reads its tunables from, e.g.
     * {@code org.balanceroute.policy.balance}. The policy's bundle describes that PID in its
     * metatype (an {@code @ObjectClassDefinition} designated for it: names, descriptions, types,
     * defaults, ranges); the admin API and the web console read the schema from the MetaType
     * service, validate changes against it and write them to that PID. Several policies may
     * name the same PID: they then share its values. Absent: the policy has no tunables.
     */
    String CONFIG_PID_PROPERTY = "balanceroute.policy.pid";

    /** Stable name used in configuration, the CLI and reports. */
    String name();

    /** Whether requests wait in the prompt pool for {@link #dispatch}. */
    boolean usesPromptPool();

    /**
     * Picks the worker for one arriving request (arrival policies). The worker may be full:
     * the request then waits in that worker's queue.
     *
     * @return a worker index in [0, G)
     */
    int route(PoolView view, RequestView request);

    /** Assigns waiting requests to workers with free slots, once per decode step (pool policies). */
    default void dispatch(DispatchStep step) {
        // arrival policies have nothing in the pool to place
    }

    /**
     * The tunables in force, by configuration property name (e.g. {@code rMax}, {@code seed}),
     * for operators and the admin API (which waits on them to answer a change once it is in
     * force); empty when the policy has none. Unlike the routing
     * methods this may be called from any thread: implementations return an immutable map
     * built when their settings last changed.
     */
    default Map<String, Object> parameters() {
        return Map.of();
    }
}
