package org.balanceroute.api;

import java.util.function.Function;

/**
 * Base of a predictor component that forwards every call to a plain
 * {@link TerminationPredictor} built from its settings ({@link Swappable}). New settings build
 * a new predictor, so what it has learned restarts from nothing.
 *
 * <p>Threading: {@link #predictEnd} and {@link #onCompleted} are called only from the router's
 * single dispatch thread (predictors are not thread-safe); {@link #update} on the configuration
 * thread.
 *
 * @param <S> the settings, compared with {@code equals}
 */
public abstract class SwappablePredictor<S> extends Swappable<S, TerminationPredictor>
        implements TerminationPredictor {

    /** @param factory builds the plain predictor for given settings */
    protected SwappablePredictor(String name, S settings, Function<? super S, ? extends TerminationPredictor> factory) {
        super(name, settings, factory);
    }

    @Override
    public final int predictEnd(RequestView request, int horizon, double confidence) {
        return delegate().predictEnd(request, horizon, confidence);
    }

    @Override
    public final void onCompleted(RequestView request, int outputTokens) {
        delegate().onCompleted(request, outputTokens);
    }
}
