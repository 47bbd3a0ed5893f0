package org.balanceroute.router.internal;

import java.util.function.Supplier;

/**
 * The router's configuration, validated: a bad value throws {@link IllegalArgumentException}
 * naming the field and its range, so the caller can keep the previous settings.
 */
record RouterSettings(String policy, String fallbackPolicy, long stepIntervalMillis) {

    RouterSettings {
        policy = name("policy", policy);
        fallbackPolicy = name("fallbackPolicy", fallbackPolicy);
        range("stepIntervalMillis", stepIntervalMillis, 0, RouterConfig.MAX_STEP_INTERVAL_MILLIS);
    }

    /** These settings for a pool whose topology names its own policy ("": none, these stay). */
    RouterSettings forPool(String ownPolicy) {
        return ownPolicy.isEmpty() ? this : new RouterSettings(ownPolicy, fallbackPolicy, stepIntervalMillis);
    }

    static RouterSettings defaults() {
        return new RouterSettings(RouterConfig.DEFAULT_POLICY, RouterConfig.DEFAULT_FALLBACK_POLICY,
                RouterConfig.DEFAULT_STEP_INTERVAL_MILLIS);
    }

    /** @throws IllegalArgumentException naming the first bad field and its range */
    static RouterSettings read(RouterConfig c) {
        c = org.balanceroute.api.ConfigValues.named(RouterConfig.class, c); // a value that does not convert names its property
        return new RouterSettings(field("policy", c::policy), field("fallbackPolicy", c::fallbackPolicy),
                field("stepIntervalMillis", c::stepIntervalMillis));
    }

    private static String name(String field, String value) {
        String trimmed = value == null ? "" : value.trim();
        if (trimmed.isEmpty()) {
            throw new IllegalArgumentException(field + " must be a non-empty policy name, got '"
                    + (value == null ? "" : value) + "'");
        }
        return trimmed;
    }

    private static void range(String field, long value, long min, long max) {
        if (value < min || value > max) {
            throw new IllegalArgumentException(field + " must be an integer in [" + min + ", " + max
                    + "], got " + value);
        }
    }

    /** Reads one property; the framework's coercion of a malformed value fails on access. */
    private static <T> T field(String name, Supplier<T> value) {
        try {
            return value.get();
        } catch (RuntimeException e) {
            throw new IllegalArgumentException(name + " is not valid: " + e.getMessage(), e);
        }
    }
}
