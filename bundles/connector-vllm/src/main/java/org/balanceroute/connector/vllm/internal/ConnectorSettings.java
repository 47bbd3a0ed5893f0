package org.balanceroute.connector.vllm.internal;

import java.net.URI;
import java.util.ArrayList;
import java.util.List;

/**
 * The connector's configuration, checked: {@link #from} names the first invalid property and its
 * range, and never half-applies. An empty {@code prefillUrls} is valid: co-located mode.
 */
public record ConnectorSettings(List<String> prefillUrls, List<DecodeWorker> decodeWorkers, String apiKey,
        long connectTimeoutMillis, long prefillTimeoutMillis, long decodeIdleTimeoutMillis, RetryPolicy retry,
        long healthIntervalMillis, int maxConnectionsPerEndpoint, int maxQueuedPerEndpoint, int maxResponseBytes,
        int prefillMaxInFlight, int prefillQueueMax, int decodeConnectRetries, long drainMillis) {

    /** A decode worker: base URL, and the DP rank to pin with the header (-1: none). */
    public record DecodeWorker(String url, int rank) {
    }

    /** The documented defaults (ConnectorConfig's). */
    static ConnectorSettings defaults() {
        return new ConnectorSettings(List.of(ConnectorConfig.DEFAULT_PREFILL),
                java.util.Arrays.stream(ConnectorConfig.DEFAULT_DECODE).map(u -> new DecodeWorker(u, -1)).toList(),
                "", 2000, 60000, 300000, new RetryPolicy(2, 100, 30_000), 5000, 4096, 16384, 16 * 1024 * 1024,
                ConnectorConfig.DEFAULT_PREFILL_MAX_IN_FLIGHT, ConnectorConfig.DEFAULT_PREFILL_QUEUE_MAX, 2,
                ConnectorConfig.DEFAULT_DRAIN_MILLIS);
    }

    static ConnectorSettings from(ConnectorConfig c) {
        c = org.balanceroute.api.ConfigValues.named(ConnectorConfig.class, c); // a value that does not convert names its property
        List<String> prefill = new ArrayList<>();
        for (String u : nonNull(new String[] {c.prefillUrls()})) {
            prefill.add(url("prefillUrls", u));
        }
        // no prefill instance: co-located mode, the decode workers run the whole request
        List<DecodeWorker> decode = new ArrayList<>();
        for (String d : nonNull(new String[] {c.decodeWorkers()})) {
            decode.add(worker(d));
        }
        if (decode.isEmpty()) {
            throw new IllegalArgumentException("decodeWorkers: at least one decode worker");
        }
        long maxBackoff = 30_000;
        return new ConnectorSettings(List.copyOf(prefill), List.copyOf(decode),
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
                range("drainMillis", c.drainMillis(), 0, 600_000));
    }

    /** The entries, each also split on commas (a .cfg file gives one comma-separated string), blanks dropped. */
    static List<String> nonNull(String[] a) {
        List<String> out = new ArrayList<>();
        if (a != null) {
            for (String entry : a) {
                for (String part : entry == null ? new String[0] : entry.split(",")) {
                    if (!part.isBlank()) {
                        out.add(part.trim());
                    }
                }
            }
        }
        return out;
    }

    private static long range(String name, long v, long min, long max) {
        if (v < min || v > max) {
            throw new IllegalArgumentException(name + " = " + v + ": must be in " + min + ".." + max);
        }
        return v;
    }

    static DecodeWorker worker(String entry) {
        String e = entry.trim();
        int rank = -1;
        int semi = e.indexOf(';');
        if (semi >= 0) {
            String opt = e.substring(semi + 1).trim();
            e = e.substring(0, semi).trim();
            if (!opt.startsWith("rank=")) {
                throw new IllegalArgumentException("decodeWorkers: '" + entry + "': expected URL or URL;rank=N");
            }
            try {
                rank = Integer.parseInt(opt.substring(5).trim());
            } catch (NumberFormatException x) {
                rank = -2;
            }
            if (rank < 0) {
                throw new IllegalArgumentException("decodeWorkers: '" + entry + "': rank must be an integer >= 0");
            }
        }
        return new DecodeWorker(url("decodeWorkers", e), rank);
    }

    private static String url(String name, String u) {
        String s = u == null ? "" : u.trim();
        while (s.endsWith("/")) {
            s = s.substring(0, s.length() - 1);
        }
        try {
            URI uri = URI.create(s);
            if (!("http".equals(uri.getScheme()) || "https".equals(uri.getScheme())) || uri.getHost() == null) {
                throw new IllegalArgumentException();
            }
        } catch (IllegalArgumentException x) {
            throw new IllegalArgumentException(name + ": '" + u + "' is not an http(s) URL");
        }
        return s;
    }
}
