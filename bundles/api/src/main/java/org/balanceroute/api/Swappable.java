package org.balanceroute.api;

import java.util.Objects;
import java.util.function.Function;

/**
 * The one swappable-delegate base of the policy and predictor components: a component forwards
 * every call to a plain delegate built from its settings, swapped whole when they change. The
 * new delegate is built on the configuration thread and published through one volatile field,
 * which the dispatch thread reads once per call, so a call runs entirely on the old or entirely
 * on the new delegate. Equal settings again change nothing (the delegate, and what it has
 * learned, stays). {@link SwappablePolicy} and {@link SwappablePredictor} forward their SPI to it.
 *
 * @param <S> the settings, compared with {@code equals}
 * @param <D> the delegate
 */
public abstract class Swappable<S, D> {

    private final String name;
    private final Function<? super S, ? extends D> factory;
    private volatile Current<S, D> current;

    private record Current<S, D>(S settings, D delegate) {
    }

    /** @param factory builds the delegate for given settings */
    Swappable(String name, S settings, Function<? super S, ? extends D> factory) {
        this.name = Objects.requireNonNull(name, "name");
        this.factory = Objects.requireNonNull(factory, "factory");
        this.current = new Current<>(settings, factory.apply(settings));
    }

    /** The delegate in force: read it once per call. */
    final D delegate() {
        return current.delegate();
    }

    /** The settings in force. */
    public final S settings() {
        return current.settings();
    }

    /**
     * Builds and publishes a delegate for {@code settings} when they differ from those in force.
     *
     * @return whether they differed (a new delegate is now in force)
     */
    protected final boolean update(S settings) {
        if (Objects.equals(settings, current.settings())) {
            return false;
        }
        current = new Current<>(settings, factory.apply(settings));
        return true;
    }

    /** The component's name: the policy's or the predictor's. */
    public final String name() {
        return name;
    }

    @Override
    public final String toString() {
        return name;
    }
}
