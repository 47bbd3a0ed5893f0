package org.balanceroute.proxy.internal;

/** The proxy's configuration, checked: {@link #from} names the invalid property and its range. */
public record ProxySettings(int maxBodyBytes, long placementTimeoutMillis, int relayQueueEvents, int maxPoolDepth,
        int retryAfterSeconds, long pingIntervalMillis, int maxRecomputes, int maxTokensLimit,
        long holdTimeoutMillis, int maxHeldRequests, long clientStallMillis) {

    /** Shortest heartbeat interval: below that, pings would be most of the traffic. */
    static final long MIN_PING_INTERVAL_MILLIS = 100;

    public static ProxySettings defaults() {
        return new ProxySettings(ProxyConfig.DEFAULT_MAX_BODY_BYTES, ProxyConfig.DEFAULT_PLACEMENT_TIMEOUT_MILLIS,
                ProxyConfig.DEFAULT_RELAY_QUEUE_EVENTS, ProxyConfig.DEFAULT_MAX_POOL_DEPTH,
                ProxyConfig.DEFAULT_RETRY_AFTER_SECONDS, ProxyConfig.DEFAULT_PING_INTERVAL_MILLIS,
                ProxyConfig.DEFAULT_MAX_RECOMPUTES, ProxyConfig.DEFAULT_MAX_TOKENS_LIMIT,
                ProxyConfig.DEFAULT_HOLD_TIMEOUT_MILLIS, ProxyConfig.DEFAULT_MAX_HELD_REQUESTS,
                ProxyConfig.DEFAULT_CLIENT_STALL_MILLIS);
    }

    static ProxySettings from(ProxyConfig c) {
        c = org.balanceroute.api.ConfigValues.named(ProxyConfig.class, c); // a value that does not convert names its property
        long placement = c.placementTimeoutMillis();
        if (placement >= ProxyConfig.KV_ABORT_TIMEOUT_MILLIS) {
            throw new IllegalArgumentException("placementTimeoutMillis = " + placement + ": must be below 480000 ms,"
                    + " the engine's KV abort timeout (VLLM_MOONCAKE_ABORT_REQUEST_TIMEOUT, 480 s), after which a"
                    + " request's prefilled KV is freed and its decode cannot pull it; must be in 1.."
                    + (ProxyConfig.KV_ABORT_TIMEOUT_MILLIS - 1));
        }
        long ping = range("pingIntervalMillis", c.pingIntervalMillis(), 0, 600_000);
        if (ping > 0 && ping < MIN_PING_INTERVAL_MILLIS) {
            throw new IllegalArgumentException("pingIntervalMillis = " + ping + ": must be 0 (off) or in "
                    + MIN_PING_INTERVAL_MILLIS + "..600000");
        }
        return new ProxySettings((int) range("maxBodyBytes", c.maxBodyBytes(), 1024, 1 << 30),
                range("placementTimeoutMillis", placement, 1, ProxyConfig.KV_ABORT_TIMEOUT_MILLIS - 1),
                (int) range("relayQueueEvents", c.relayQueueEvents(), 16, 1_000_000),
                (int) range("maxPoolDepth", c.maxPoolDepth(), 0, 1_000_000),
                (int) range("retryAfterSeconds", c.retryAfterSeconds(), 1, 3600),
                ping,
                (int) range("maxRecomputes", c.maxRecomputes(), 0, 16),
                (int) range("maxTokensLimit", c.maxTokensLimit(), 1, Integer.MAX_VALUE),
                range("holdTimeoutMillis", c.holdTimeoutMillis(), 0, ProxyConfig.KV_ABORT_TIMEOUT_MILLIS - 1),
                (int) range("maxHeldRequests", c.maxHeldRequests(), 0, 1_000_000),
                range("clientStallMillis", c.clientStallMillis(), 100, 3_600_000));
    }

    private static long range(String name, long v, long min, long max) {
        if (v < min || v > max) {
            throw new IllegalArgumentException(name + " = " + v + ": must be in " + min + ".." + max);
        }
        return v;
    }
}
