package org.balanceroute.policy.balance.internal;

import java.util.Map;
import java.util.Optional;
import java.util.function.Function;
import org.balanceroute.api.RoutingPolicy;
import org.balanceroute.api.SwappablePolicy;
import org.balanceroute.api.config.ConfigProperties;
import org.balanceroute.api.config.ConfigurationException;
import org.balanceroute.policy.balance.BalancePolicy;
import org.balanceroute.policy.balance.BalanceProperties;
import org.balanceroute.policy.balance.BalanceSettings;
import org.osgi.service.component.annotations.Modified;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Shape of the BR-0 / BR-H DS adapters: the component is the registered {@link RoutingPolicy}
 * and forwards to a {@link BalancePolicy} built from the shared configuration
 * ({@link BalanceProperties}; {@link SwappablePolicy}: each dispatch step runs entirely on the old
 * or entirely on the new settings; the dispatcher keeps no state between steps, so nothing is
 * lost by the swap).
 *
 * <p>Config-or-error: an invalid update never takes effect; the adapter logs the error (PID,
 * property and range) and keeps the settings in force. An invalid configuration at activation
 * fails the activation with that error.
 */
abstract class BalancePolicyAdapter extends SwappablePolicy<BalanceSettings> {

    private static final Logger LOG = LoggerFactory.getLogger(BalancePolicyAdapter.class);

    /**
     * @param factory builds the plain policy for given settings
     * @throws ConfigurationException if the configuration is invalid
     */
    BalancePolicyAdapter(String name, Map<String, ?> properties, Function<BalanceSettings, RoutingPolicy> factory) {
        super(name, BalanceProperties.fromMap(properties), factory, BalanceProperties::toMap);
    }

    @Modified
    final void modified(Map<String, Object> properties) {
        reconfigure(properties);
    }

    /**
     * Applies a new configuration if it is valid and different; otherwise logs why not and
     * keeps the settings in force.
     *
     * @return whether the new configuration is valid (and now in force)
     */
    final boolean reconfigure(Map<String, ?> properties) {
        Optional<BalanceSettings> next = ConfigProperties.readUpdate(BalanceProperties.PID, properties,
                BalanceProperties::read,
                e -> LOG.error("policy {}: configuration rejected: {}; keeping {}", name(), e.getMessage(), parameters()));
        if (next.isPresent() && update(next.get())) {
            LOG.info("policy {}: settings now {}", name(), parameters());
        }
        return next.isPresent();
    }
}
