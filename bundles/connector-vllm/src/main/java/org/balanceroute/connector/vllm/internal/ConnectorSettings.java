package org.balanceroute.connector.vllm.internal;

import org.balanceroute.fleet.PoolTopology;

import java.util.List;

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

    /** No pool yet: no endpoint. */
    static final PoolTopology NO_POOL = new PoolTopology("none", PoolTopology.ANY_MODEL, List.of(), List.of(), List.of());

    /** The documented defaults (ConnectorConfig's). */
    static ConnectorSettings defaults() {
        return new ConnectorSettings(NO_POOL, "", 2000, 60000, 300000, new RetryPolicy(2, 100, 30_000), 5000, 4096, 16384, 16 * 1024 * 1024,
                ConnectorConfig.DEFAULT_PREFILL_MAX_IN_FLIGHT, ConnectorConfig.DEFAULT_PREFILL_QUEUE_MAX, 2,
                ConnectorConfig.DEFAULT_DRAIN_MILLIS, ConnectorConfig.DEFAULT_HEALTH_FAILURE_THRESHOLD);
    }

    static ConnectorSettings from(ConnectorConfig c) {
        c = org.balanceroute.api.ConfigValues.named(ConnectorConfig.class, c); // a value that does not convert names its property
        long maxBackoff = 30_000;
        return new ConnectorSettings(NO_POOL,
                c.apiKey() == null ? "" : c.apiKey().trim(),
                range("connectTimeoutMillis", c.connectTimeoutMillis(), 1, 600_000),
                range("prefillTimeoutMillis", c.prefillTimeoutMillis(), 1, 3_600_000),
                range("decodeIdleTimeoutMillis", c.decodeIdleTimeoutMillis(), 1, 3_600_000),
                new RetryPolicy((int) range("prefillRetries", c.prefillRetries(), 0, 10),
                        range("retryBackoffMillis", c.retryBackoffMillis(), 0, 60_000),
                        Math.max(maxBackoff, c.retryBackoffMillis())),
                range("healthIntervalMillis", c.healthIntervalMillis(), 100, 3_600_000),
                (int) range("maxConnectionsPerEndpoint", c.maxConnectionsPerEndpoint(), 1, 100_000),
                (int) range("maxQueuedPerEndpoint", c.maxQueuedPerEndpoint(), 1, 1_000_000),
                (int) range("maxResponseBytes", c.maxResponseBytes(), 1024, 1 << 30),
                (int) range("prefillMaxInFlight", c.prefillMaxInFlight(), 0, 100_000),
                (int) range("prefillQueueMax", c.prefillQueueMax(), 0, 1_000_000),
                (int) range("decodeConnectRetries", c.decodeConnectRetries(), 0, 10),
                range("drainMillis", c.drainMillis(), 0, 600_000),
                (int) range("healthFailureThreshold", c.healthFailureThreshold(), 1, 100));
    }

    private static long range(String name, long v, long min, long max) {
        if (v < min || v > max) {
            throw new IllegalArgumentException(name + " = " + v + ": must be in " + min + ".." + max);
        }
        return v;
    }
}
