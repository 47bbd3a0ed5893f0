package org.balanceroute.policy.balance.internal;

import java.util.Map;
import java.util.Objects;
import java.util.function.Function;
import org.balanceroute.api.ClusterView;
import org.balanceroute.api.DispatchStep;
import org.balanceroute.api.RequestView;
import org.balanceroute.api.RoutingPolicy;
import org.balanceroute.policy.balance.BalancePolicy;
import org.balanceroute.policy.balance.BalanceSettings;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Shape of the BR-0 / BR-H DS adapters: the component is the registered {@link RoutingPolicy}
 * and forwards to a {@link BalancePolicy} built from the shared {@link BalanceConfig}.
 *
 * <p>Config-or-error: a configuration that {@link BalanceSettings} rejects never takes effect.
 * The adapter logs an error naming the field and its range and keeps the last good settings
 * (the defaults if the very first configuration is invalid); activate and modified never throw.
 *
 * <p>Threading: {@link #route} and {@link #dispatch} are called only from the router's single
 * dispatch thread (policies are stateful and not thread-safe). A valid reconfiguration builds a
 * new {@link BalancePolicy} on the configuration thread and publishes it through a volatile
 * field; the dispatch thread reads it once per call, so each dispatch step runs entirely on the
 * old or entirely on the new settings. The dispatcher keeps no state between steps, so nothing
 * is lost by the swap.
 */
abstract class BalancePolicyAdapter implements RoutingPolicy {

    private static final Logger LOG = LoggerFactory.getLogger(BalancePolicyAdapter.class);

    private final String name;
    private final Function<BalanceSettings, RoutingPolicy> factory;
    private volatile Current current;

    private record Current(BalanceSettings settings, RoutingPolicy policy, Map<String, Object> parameters) {
    }

    /** @param factory builds the plain policy for given settings */
    BalancePolicyAdapter(String name, BalanceConfig config, Function<BalanceSettings, RoutingPolicy> factory) {
        this.name = name;
        this.factory = Objects.requireNonNull(factory, "factory");
        BalanceSettingsReader.Result read = BalanceSettingsReader.read(config);
        BalanceSettings settings = read.settings();
        if (!read.ok()) {
            settings = BalanceSettings.defaults();
            LOG.error("policy {}: configuration {} rejected: {}; using the defaults {}", name,
                    BalanceConfig.PID, read.error(), BalanceSettingsReader.parameters(settings));
        }
        this.current = build(settings);
    }

    private Current build(BalanceSettings settings) {
        return new Current(settings, factory.apply(settings), BalanceSettingsReader.parameters(settings));
    }

    /**
     * Applies a new configuration if it is valid and different; otherwise logs why not and
     * keeps the settings in force.
     *
     * @return whether the new configuration is valid (and now in force)
     */
    final boolean reconfigure(BalanceConfig config) {
        BalanceSettingsReader.Result read = BalanceSettingsReader.read(config);
        if (!read.ok()) {
            LOG.error("policy {}: configuration {} rejected: {}; keeping {}", name, BalanceConfig.PID,
                    read.error(), current.parameters());
            return false;
        }
        if (!read.settings().equals(current.settings())) {
            current = build(read.settings());
            LOG.info("policy {}: settings now {}", name, current.parameters());
        }
        return true;
    }

    /** The settings in force. */
    final BalanceSettings settings() {
        return current.settings();
    }

    @Override
    public final String name() {
        return name;
    }

    @Override
    public final boolean usesPromptPool() {
        return current.policy().usesPromptPool();
    }

    @Override
    public final int route(ClusterView cluster, RequestView request) {
        return current.policy().route(cluster, request);
    }

    @Override
    public final void dispatch(DispatchStep step) {
        current.policy().dispatch(step);
    }

    @Override
    public final Map<String, Object> parameters() {
        return current.parameters();
    }

    @Override
    public final String toString() {
        return name;
    }
}
