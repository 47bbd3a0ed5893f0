package org.balanceroute.enginesim;

import java.util.ArrayList;
import java.util.List;
import java.util.function.LongSupplier;
import org.balanceroute.api.PoolView;

/**
 * Settings of a simulated cluster; immutable, built with {@link #builder()}. Every value is
 * checked by {@link Builder#build()}, which names the offending option.
 *
 * <p>Ports: prefill server i listens on {@code portBase + i}, decode rank g on
 * {@code portBase + 100 + g}, the all-ranks endpoint on {@code portBase + 99}. A port base of
 * 0 gives every server an ephemeral port (tests); ask {@link SimCluster} for the ports.
 */
public final class SimConfig {

    /** Default port base: prefill 18100.., all-ranks 18199, decode ranks 18200... */
    public static final int DEFAULT_PORT_BASE = 18100;

    private final int prefill;
    private final int decode;
    private final int portBase;
    private final String host;
    private final boolean allRanksEndpoint;
    private final double stepA;
    private final double stepB;
    private final double stepC;
    private final double timeFactor;
    private final int capacity;
    private final int streamInterval;
    private final long seed;
    private final double prefillPerToken;
    private final double prefillFixed;
    private final double handleTtlSeconds;
    private final int defaultMaxTokens;
    private final String model;
    private final int streamQueueChunks;
    private final LongSupplier handleClockNanos;
    private final List<String> faults;
    private final List<String> handlePeers;

    private SimConfig(Builder b) {
        this.prefill = b.prefill;
        this.decode = b.decode;
        this.portBase = b.portBase;
        this.host = b.host;
        this.allRanksEndpoint = b.allRanksEndpoint;
        this.stepA = b.stepA;
        this.stepB = b.stepB;
        this.stepC = b.stepC;
        this.timeFactor = b.timeFactor;
        this.capacity = b.capacity;
        this.streamInterval = b.streamInterval;
        this.seed = b.seed;
        this.prefillPerToken = b.prefillPerToken;
        this.prefillFixed = b.prefillFixed;
        this.handleTtlSeconds = b.handleTtlSeconds;
        this.defaultMaxTokens = b.defaultMaxTokens;
        this.model = b.model;
        this.streamQueueChunks = b.streamQueueChunks;
        this.handleClockNanos = b.handleClockNanos;
        this.faults = List.copyOf(b.faults);
        this.handlePeers = List.copyOf(b.handlePeers);
    }

    public static Builder builder() {
        return new Builder();
    }

    /** P, prefill servers (0..99). */
    public int prefill() {
        return prefill;
    }

    /** G, decode DP ranks (1..1024). */
    public int decode() {
        return decode;
    }

    /** N; 0 = ephemeral ports. */
    public int portBase() {
        return portBase;
    }

    /** Bind address, 127.0.0.1 by default. */
    public String host() {
        return host;
    }

    /** Whether the all-ranks endpoint (port N+99, {@code X-data-parallel-rank}) is served. */
    public boolean allRanksEndpoint() {
        return allRanksEndpoint;
    }

    /** a: seconds per KV token of the heaviest rank. */
    public double stepA() {
        return stepA;
    }

    /** b: fixed seconds per step. */
    public double stepB() {
        return stepB;
    }

    /** c: seconds per running request of the largest batch. */
    public double stepC() {
        return stepC;
    }

    /** Wall seconds per modelled second: 0.01 runs a hundred times faster than modelled. */
    public double timeFactor() {
        return timeFactor;
    }

    /** B, running requests per rank (vLLM {@code max_num_seqs}). */
    public int capacity() {
        return capacity;
    }

    /** Tokens per streamed chunk (vLLM {@code --stream-interval}). */
    public int streamInterval() {
        return streamInterval;
    }

    /** Seed of the output-length draws. */
    public long seed() {
        return seed;
    }

    /** a_p: prefill seconds per prompt token. */
    public double prefillPerToken() {
        return prefillPerToken;
    }

    /** b_p: fixed prefill seconds per request. */
    public double prefillFixed() {
        return prefillFixed;
    }

    /** Wall seconds a KV handle stays valid (vLLM's VLLM_MOONCAKE_ABORT_REQUEST_TIMEOUT, 480). */
    public double handleTtlSeconds() {
        return handleTtlSeconds;
    }

    /** Output cap of a request that gives no {@code max_tokens}. */
    public int defaultMaxTokens() {
        return defaultMaxTokens;
    }

    /** The served model name ({@code /v1/models}). */
    public String model() {
        return model;
    }

    /** Chunks a stream may have pending before its client counts as too slow and is cut. */
    public int streamQueueChunks() {
        return streamQueueChunks;
    }

    /** The clock of KV handle expiry (nanoseconds, {@code System::nanoTime} by default). */
    public LongSupplier handleClockNanos() {
        return handleClockNanos;
    }

    /** Faults applied at start, each a {@code POST /sim/faults} body, in order. */
    public List<String> faults() {
        return faults;
    }

    /**
     * The clusters whose prefill servers' KV handles this one also accepts (base URLs of any of
     * their endpoints, in the order asked); empty by default: only its own. A handle this cluster
     * did not issue is taken from them ({@code POST /sim/handles/take}), which check it as their own.
     */
    public List<String> handlePeers() {
        return handlePeers;
    }

    /** Builder with the documented defaults. */
    public static final class Builder {
        private int prefill = 2;
        private int decode = 8;
        private int portBase = DEFAULT_PORT_BASE;
        private String host = "127.0.0.1";
        private boolean allRanksEndpoint = true;
        private double stepA = 2e-7;
        private double stepB = 0.020;
        private double stepC = 0;
        private double timeFactor = 1.0;
        private int capacity = PoolView.DEFAULT_CAPACITY;
        private int streamInterval = 1;
        private long seed = 1;
        private double prefillPerToken = 2e-5;
        private double prefillFixed = 0.010;
        private double handleTtlSeconds = 480;
        private int defaultMaxTokens = 256;
        private String model = "balanceroute-sim";
        private int streamQueueChunks = 1024;
        private LongSupplier handleClockNanos = System::nanoTime;
        private final List<String> faults = new ArrayList<>();
        private final List<String> handlePeers = new ArrayList<>();

        private Builder() {
        }

        /**
         * Also accepts the KV handles the prefill servers of the cluster at {@code baseUrl} (any of its
         * endpoints, e.g. {@code http://127.0.0.1:18199}) issued; repeatable.
         */
        public Builder handlesFrom(String baseUrl) {
            handlePeers.add(baseUrl);
            return this;
        }

        /** Adds a fault applied at start: a {@code POST /sim/faults} body, checked at start. */
        public Builder fault(String json) {
            faults.add(json);
            return this;
        }

        public Builder prefill(int v) {
            prefill = v;
            return this;
        }

        public Builder decode(int v) {
            decode = v;
            return this;
        }

        public Builder portBase(int v) {
            portBase = v;
            return this;
        }

        public Builder host(String v) {
            host = v;
            return this;
        }

        public Builder allRanksEndpoint(boolean v) {
            allRanksEndpoint = v;
            return this;
        }

        public Builder stepA(double v) {
            stepA = v;
            return this;
        }

        public Builder stepB(double v) {
            stepB = v;
            return this;
        }

        public Builder stepC(double v) {
            stepC = v;
            return this;
        }

        public Builder timeFactor(double v) {
            timeFactor = v;
            return this;
        }

        public Builder capacity(int v) {
            capacity = v;
            return this;
        }

        public Builder streamInterval(int v) {
            streamInterval = v;
            return this;
        }

        public Builder seed(long v) {
            seed = v;
            return this;
        }

        public Builder prefillPerToken(double v) {
            prefillPerToken = v;
            return this;
        }

        public Builder prefillFixed(double v) {
            prefillFixed = v;
            return this;
        }

        public Builder handleTtlSeconds(double v) {
            handleTtlSeconds = v;
            return this;
        }

        public Builder defaultMaxTokens(int v) {
            defaultMaxTokens = v;
            return this;
        }

        public Builder model(String v) {
            model = v;
            return this;
        }

        public Builder streamQueueChunks(int v) {
            streamQueueChunks = v;
            return this;
        }

        public Builder handleClockNanos(LongSupplier v) {
            handleClockNanos = v;
            return this;
        }

        /** @throws IllegalArgumentException naming the option and its range */
        public SimConfig build() {
            check(prefill >= 0 && prefill <= 99, "prefill", "0..99", prefill);
            check(decode >= 1 && decode <= 1024, "decode", "1..1024", decode);
            check(portBase == 0 || (portBase >= 1 && portBase + 100 + decode - 1 <= 65535), "port-base",
                    "0 (ephemeral) or 1..65535 with room for port-base+100+decode-1", portBase);
            check(host != null && !host.isBlank(), "host", "a host name or address", host);
            check(finiteAtLeast(stepA, 0), "step-a", ">= 0", stepA);
            check(finiteAtLeast(stepB, 0), "step-b", ">= 0", stepB);
            check(finiteAtLeast(stepC, 0), "step-c", ">= 0", stepC);
            check(finiteAtLeast(timeFactor, 0) && timeFactor > 0, "time-factor", "> 0", timeFactor);
            check(capacity >= 1 && capacity <= PoolView.MAX_CAPACITY, "capacity", "1.." + PoolView.MAX_CAPACITY, capacity);
            check(streamInterval >= 1 && streamInterval <= 4096, "stream-interval", "1..4096", streamInterval);
            check(finiteAtLeast(prefillPerToken, 0), "prefill-per-token", ">= 0", prefillPerToken);
            check(finiteAtLeast(prefillFixed, 0), "prefill-fixed", ">= 0", prefillFixed);
            check(finiteAtLeast(handleTtlSeconds, 0) && handleTtlSeconds > 0, "handle-ttl", "> 0", handleTtlSeconds);
            check(defaultMaxTokens >= 1, "default-max-tokens", ">= 1", defaultMaxTokens);
            check(model != null && !model.isBlank(), "model", "a non-empty name", model);
            check(streamQueueChunks >= 1, "stream-queue", ">= 1", streamQueueChunks);
            check(handleClockNanos != null, "handleClockNanos", "a clock", null);
            for (String peer : handlePeers) {
                check(isHttpUrl(peer), "handles-from", "an http:// base URL (host and port, no path)", peer);
            }
            return new SimConfig(this);
        }

        private static boolean isHttpUrl(String url) {
            if (url == null) {
                return false;
            }
            try {
                java.net.URI u = new java.net.URI(url);
                return "http".equals(u.getScheme()) && u.getHost() != null && u.getPort() > 0
                        && (u.getRawPath() == null || u.getRawPath().isEmpty() || u.getRawPath().equals("/"))
                        && u.getRawQuery() == null && u.getRawFragment() == null;
            } catch (java.net.URISyntaxException e) {
                return false;
            }
        }

        private static boolean finiteAtLeast(double v, double min) {
            return Double.isFinite(v) && v >= min;
        }

        private static void check(boolean ok, String option, String range, Object value) {
            if (!ok) {
                throw new IllegalArgumentException("--" + option + " must be " + range + ", got " + value);
            }
        }
    }
}
