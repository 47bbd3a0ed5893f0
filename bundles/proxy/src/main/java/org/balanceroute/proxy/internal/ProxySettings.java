package org.balanceroute.proxy.internal;

import org.balanceroute.api.config.ConfigProperties;
import org.balanceroute.api.config.ConfigurationException;

/** The proxy's configuration, checked: {@link #from} names the invalid property and its range. */
public record ProxySettings(int maxBodyBytes, long placementTimeoutMillis, int relayQueueEvents, int maxPoolDepth,
        int retryAfterSeconds, long pingIntervalMillis, int maxRecomputes, int maxTokensLimit,
        long holdTimeoutMillis, int maxHeldRequests, long clientStallMillis, boolean accessLog) {

    /** Shortest heartbeat interval: below that, pings would be most of the traffic. */
    static final long MIN_PING_INTERVAL_MILLIS = 100;
    static final long MAX_PING_INTERVAL_MILLIS = 600_000;

    /** @throws ConfigurationException naming the first invalid property and its range */
    static ProxySettings from(ConfigProperties c) {
        long placement = c.longValue("placementTimeoutMillis", ProxyConfig.DEFAULT_PLACEMENT_TIMEOUT_MILLIS, 1,
                Long.MAX_VALUE);
        c.require(placement < ProxyConfig.KV_ABORT_TIMEOUT_MILLIS, "placementTimeoutMillis", "below 480000 ms, the"
                + " engine's KV abort timeout (VLLM_MOONCAKE_ABORT_REQUEST_TIMEOUT, 480 s), after which a request's"
                + " prefilled KV is freed and its decode cannot pull it: an integer in [1, "
                + (ProxyConfig.KV_ABORT_TIMEOUT_MILLIS - 1) + "]", placement);
        long ping = c.longValue("pingIntervalMillis", ProxyConfig.DEFAULT_PING_INTERVAL_MILLIS, 0,
                MAX_PING_INTERVAL_MILLIS);
        c.require(ping == 0 || ping >= MIN_PING_INTERVAL_MILLIS, "pingIntervalMillis",
                "0 (off) or in [" + MIN_PING_INTERVAL_MILLIS + ", " + MAX_PING_INTERVAL_MILLIS + "]", ping);
        return new ProxySettings(c.intValue("maxBodyBytes", ProxyConfig.DEFAULT_MAX_BODY_BYTES, 1024, 1 << 30),
                placement,
                c.intValue("relayQueueEvents", ProxyConfig.DEFAULT_RELAY_QUEUE_EVENTS, 16, 1_000_000),
                c.intValue("maxPoolDepth", ProxyConfig.DEFAULT_MAX_POOL_DEPTH, 0, 1_000_000),
                c.intValue("retryAfterSeconds", ProxyConfig.DEFAULT_RETRY_AFTER_SECONDS, 1, 3600),
                ping,
                c.intValue("maxRecomputes", ProxyConfig.DEFAULT_MAX_RECOMPUTES, 0, 16),
                c.intValue("maxTokensLimit", ProxyConfig.DEFAULT_MAX_TOKENS_LIMIT, 1, Integer.MAX_VALUE),
                c.longValue("holdTimeoutMillis", ProxyConfig.DEFAULT_HOLD_TIMEOUT_MILLIS, 0,
                        ProxyConfig.KV_ABORT_TIMEOUT_MILLIS - 1),
                c.intValue("maxHeldRequests", ProxyConfig.DEFAULT_MAX_HELD_REQUESTS, 0, 1_000_000),
                c.longValue("clientStallMillis", ProxyConfig.DEFAULT_CLIENT_STALL_MILLIS, 100, 3_600_000),
                c.bool("accessLog", ProxyConfig.DEFAULT_ACCESS_LOG));
    }
}
