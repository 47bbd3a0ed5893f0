package org.balanceroute.policy.balance.internal;

import java.util.function.Function;
import org.balanceroute.api.RoutingPolicy;
import org.balanceroute.api.SwappablePolicy;
import org.balanceroute.policy.balance.BalancePolicy;
import org.balanceroute.policy.balance.BalanceSettings;
import org.osgi.service.component.annotations.Modified;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Shape of the BR-0 / BR-H DS adapters: the component is the registered {@link RoutingPolicy}
 * and forwards to a {@link BalancePolicy} built from the shared {@link BalanceConfig}
 * ({@link SwappablePolicy}: each dispatch step runs entirely on the old or entirely on the new
 * settings; the dispatcher keeps no state between steps, so nothing is lost by the swap).
 *
 * <p>Config-or-error: a configuration that {@link BalanceSettings} rejects never takes effect.
 * The adapter logs an error naming the field and its range and keeps the last good settings
 * (the defaults if the very first configuration is invalid); activate and modified never throw.
 */
abstract class BalancePolicyAdapter extends SwappablePolicy<BalanceSettings> {

    private static final Logger LOG = LoggerFactory.getLogger(BalancePolicyAdapter.class);

    /** @param factory builds the plain policy for given settings */
    BalancePolicyAdapter(String name, BalanceConfig config, Function<BalanceSettings, RoutingPolicy> factory) {
        super(name, initial(name, config), factory, BalanceSettingsReader::parameters);
    }

    private static BalanceSettings initial(String name, BalanceConfig config) {
        BalanceSettingsReader.Result read = BalanceSettingsReader.read(config);
        if (read.ok()) {
            return read.settings();
        }
        BalanceSettings settings = BalanceSettings.defaults();
        LOG.error("policy {}: configuration {} rejected: {}; using the defaults {}", name,
                BalanceConfig.PID, read.error(), BalanceSettingsReader.parameters(settings));
        return settings;
    }

    @Modified
    final void modified(BalanceConfig config) {
        reconfigure(config);
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
            LOG.error("policy {}: configuration {} rejected: {}; keeping {}", name(), BalanceConfig.PID,
                    read.error(), parameters());
            return false;
        }
        if (update(read.settings())) {
            LOG.info("policy {}: settings now {}", name(), parameters());
        }
        return true;
    }
}
