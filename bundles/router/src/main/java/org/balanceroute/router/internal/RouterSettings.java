package org.balanceroute.router.internal;

import static org.balanceroute.router.RouterService.FALLBACK_POLICY_PROPERTY;
import static org.balanceroute.router.RouterService.POLICY_PROPERTY;
import static org.balanceroute.router.RouterService.STEP_INTERVAL_MILLIS_PROPERTY;

import org.balanceroute.api.config.ConfigProperties;
import org.balanceroute.api.config.ConfigurationException;

/** The router's configuration, as {@link #read} checked it. */
record RouterSettings(String policy, String fallbackPolicy, long stepIntervalMillis) {

    /** These settings for a pool whose topology names its own policy ("": none, these stay). */
    RouterSettings forPool(String ownPolicy) {
        return ownPolicy.isEmpty() ? this : new RouterSettings(ownPolicy, fallbackPolicy, stepIntervalMillis);
    }

    /** @throws ConfigurationException naming the first bad property and its range */
    static RouterSettings read(ConfigProperties c) {
        return new RouterSettings(name(c, POLICY_PROPERTY, RouterConfig.DEFAULT_POLICY),
                name(c, FALLBACK_POLICY_PROPERTY, RouterConfig.DEFAULT_FALLBACK_POLICY),
                c.longValue(STEP_INTERVAL_MILLIS_PROPERTY, RouterConfig.DEFAULT_STEP_INTERVAL_MILLIS, 0,
                        RouterConfig.MAX_STEP_INTERVAL_MILLIS));
    }

    private static String name(ConfigProperties c, String key, String defaultValue) {
        String name = c.text(key, defaultValue);
        c.require(!name.isEmpty(), key, "a non-empty policy name", name);
        return name;
    }
}
