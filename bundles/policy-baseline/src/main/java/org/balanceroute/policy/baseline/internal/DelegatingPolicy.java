package org.balanceroute.policy.baseline.internal;

import java.util.Map;
import org.balanceroute.api.ClusterView;
import org.balanceroute.api.DispatchStep;
import org.balanceroute.api.RequestView;
import org.balanceroute.api.RoutingPolicy;

/**
 * Shape of the baseline DS adapters: the component is the registered {@link RoutingPolicy} and
 * forwards every call to the plain policy object it wraps, so the algorithm classes stay free of
 * OSGi.
 *
 * <p>Threading: the routing methods are called only from the router's single dispatch thread
 * (the policies are stateful and not thread-safe). A reconfiguration builds a new delegate on
 * the configuration thread and publishes it through a volatile field; the dispatch thread reads
 * it once per call, so a call never sees half of a change.
 */
abstract class DelegatingPolicy implements RoutingPolicy {

    /** The policy calls are forwarded to; read once per call. */
    abstract RoutingPolicy delegate();

    @Override
    public final String name() {
        return delegate().name();
    }

    @Override
    public final boolean usesPromptPool() {
        return delegate().usesPromptPool();
    }

    @Override
    public final int route(ClusterView cluster, RequestView request) {
        return delegate().route(cluster, request);
    }

    @Override
    public final void dispatch(DispatchStep step) {
        delegate().dispatch(step);
    }

    @Override
    public Map<String, Object> parameters() {
        return Map.of();
    }

    @Override
    public final String toString() {
        return name();
    }
}
