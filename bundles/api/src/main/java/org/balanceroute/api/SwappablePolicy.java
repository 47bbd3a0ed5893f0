package org.balanceroute.api;

import java.util.Map;
import java.util.function.Function;

/**
 * Base of a policy component that forwards every call to a plain {@link RoutingPolicy} built
 * from its settings ({@link Swappable}), so that the algorithm classes stay free of OSGi. The
 * parameters are computed once per settings, when the policy is built.
 *
 * <p>Threading: the routing methods are called only from the router's single dispatch thread;
 * {@link #update} on the configuration thread; {@link #parameters} from any thread.
 *
 * @param <S> the settings, compared with {@code equals}
 */
public abstract class SwappablePolicy<S> extends Swappable<S, SwappablePolicy.Built> implements RoutingPolicy {

    /** The plain policy and its parameters, built together. */
    record Built(RoutingPolicy policy, Map<String, Object> parameters) {
    }

    /**
     * @param factory builds the plain policy for given settings
     * @param parameters the settings as configuration properties ({@link RoutingPolicy#parameters})
     */
    protected SwappablePolicy(String name, S settings, Function<? super S, ? extends RoutingPolicy> factory,
            Function<? super S, Map<String, Object>> parameters) {
        super(name, settings, s -> new Built(factory.apply(s), parameters.apply(s)));
    }

    @Override
    public final boolean usesPromptPool() {
        return delegate().policy().usesPromptPool();
    }

    @Override
    public final int route(PoolView view, RequestView request) {
        return delegate().policy().route(view, request);
    }

    @Override
    public final void dispatch(DispatchStep step) {
        delegate().policy().dispatch(step);
    }

    @Override
    public final Map<String, Object> parameters() {
        return delegate().parameters();
    }
}
