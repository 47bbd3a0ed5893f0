package org.balanceroute.connector.vllm.internal;

import java.util.List;
import org.balanceroute.api.config.ConfigProperties;
import org.balanceroute.api.config.ConfigurationException;
import org.balanceroute.fleet.PoolTopology;

/**
 * The connector's configuration, checked: {@link #from} names the first invalid property and its
 * range, and never half-applies; and the pool it connects ({@link #withPool}), whose topology is
 * the fleet's (an empty {@code prefillUrls} there is co-located mode).
 */
public record ConnectorSettings(PoolTopology pool, String apiKey,
        long connectTimeoutMillis, long prefillTimeoutMillis, long decodeIdleTimeoutMillis, RetryPolicy retry,
        long healthIntervalMillis, int maxConnectionsPerEndpoint, int maxQueuedPerEndpoint, int maxResponseBytes,
        int prefillMaxInFlight, int prefillQueueMax, int decodeConnectRetries, long drainMillis,
        int healthFailureThreshold) {

    /** The same settings for another pool (the fleet changed). */
    public ConnectorSettings withPool(PoolTopology next) {
        return new ConnectorSettings(next, apiKey, connectTimeoutMillis, prefillTimeoutMillis, decodeIdleTimeoutMillis,
                retry, healthIntervalMillis, maxConnectionsPerEndpoint, maxQueuedPerEndpoint, maxResponseBytes,
                prefillMaxInFlight, prefillQueueMax, decodeConnectRetries, drainMillis, healthFailureThreshold);
    }

    /** The longest retry backoff (unless the first one is longer). */
    private static final long MAX_BACKOFF_MILLIS = 30_000;

    /** No pool yet: no endpoint. */
    static final PoolTopology NO_POOL = new PoolTopology("none", PoolTopology.ANY_MODEL, List.of(), List.of(), List.of());

    /** @throws ConfigurationException naming the first invalid property and its range */
    static ConnectorSettings from(ConfigProperties c) {
        long backoff = c.longValue("retryBackoffMillis", ConnectorConfig.DEFAULT_RETRY_BACKOFF_MILLIS, 0, 60_000);
        return new ConnectorSettings(NO_POOL,
                c.text("apiKey", ConnectorConfig.DEFAULT_API_KEY),
                c.longValue("connectTimeoutMillis", ConnectorConfig.DEFAULT_CONNECT_TIMEOUT_MILLIS, 1, 600_000),
                c.longValue("prefillTimeoutMillis", ConnectorConfig.DEFAULT_PREFILL_TIMEOUT_MILLIS, 1, 3_600_000),
                c.longValue("decodeIdleTimeoutMillis", ConnectorConfig.DEFAULT_DECODE_IDLE_TIMEOUT_MILLIS, 1, 3_600_000),
                new RetryPolicy(c.intValue("prefillRetries", ConnectorConfig.DEFAULT_PREFILL_RETRIES, 0, 10), backoff,
                        Math.max(MAX_BACKOFF_MILLIS, backoff)),
                c.longValue("healthIntervalMillis", ConnectorConfig.DEFAULT_HEALTH_INTERVAL_MILLIS, 100, 3_600_000),
                c.intValue("maxConnectionsPerEndpoint", ConnectorConfig.DEFAULT_MAX_CONNECTIONS_PER_ENDPOINT, 1, 100_000),
                c.intValue("maxQueuedPerEndpoint", ConnectorConfig.DEFAULT_MAX_QUEUED_PER_ENDPOINT, 1, 1_000_000),
                c.intValue("maxResponseBytes", ConnectorConfig.DEFAULT_MAX_RESPONSE_BYTES, 1024, 1 << 30),
                c.intValue("prefillMaxInFlight", ConnectorConfig.DEFAULT_PREFILL_MAX_IN_FLIGHT, 0, 100_000),
                c.intValue("prefillQueueMax", ConnectorConfig.DEFAULT_PREFILL_QUEUE_MAX, 0, 1_000_000),
                c.intValue("decodeConnectRetries", ConnectorConfig.DEFAULT_DECODE_CONNECT_RETRIES, 0, 10),
                c.longValue("drainMillis", ConnectorConfig.DEFAULT_DRAIN_MILLIS, 0, 600_000),
                c.intValue("healthFailureThreshold", ConnectorConfig.DEFAULT_HEALTH_FAILURE_THRESHOLD, 1, 100));
    }
}
