package org.balanceroute.proxy.internal;

/** The proxy's configuration, checked: {@link #from} names the invalid property and its range. */
public record ProxySettings(int maxBodyBytes, long placementTimeoutMillis, int relayQueueEvents) {

    public static ProxySettings defaults() {
        return new ProxySettings(ProxyConfig.DEFAULT_MAX_BODY_BYTES, ProxyConfig.DEFAULT_PLACEMENT_TIMEOUT_MILLIS,
                ProxyConfig.DEFAULT_RELAY_QUEUE_EVENTS);
    }

    static ProxySettings from(ProxyConfig c) {
        return new ProxySettings((int) range("maxBodyBytes", c.maxBodyBytes(), 1024, 1 << 30),
                range("placementTimeoutMillis", c.placementTimeoutMillis(), 1, 3_600_000),
                (int) range("relayQueueEvents", c.relayQueueEvents(), 16, 1_000_000));
    }

    private static long range(String name, long v, long min, long max) {
        if (v < min || v > max) {
            throw new IllegalArgumentException(name + " = " + v + ": must be in " + min + ".." + max);
        }
        return v;
    }
}
