package org.balanceroute.simulator;

import java.util.Objects;

/**
 * The proxy tier in front of the simulated decode tier: how many replicas, how late what one
 * replica knows reaches another, and how they share it. Validated on construction; a bad value
 * throws {@link IllegalArgumentException} naming the command-line option.
 *
 * @param count N, proxy replicas ({@code --replicas}, 1..64); arrival i goes to replica i mod N
 * @param syncDelayMs D, simulated milliseconds an event takes from one replica to another
 *     ({@code --sync-delay-ms}, finite, >= 0)
 * @param mode how the replicas share state ({@code --cluster-mode})
 */
public record ProxyReplicas(int count, double syncDelayMs, ReplicasMode mode) {

    public static final int MAX_REPLICAS = 64;

    /** One proxy: nothing to share, nothing delayed; the simulator of before replicas. */
    public static final ProxyReplicas SINGLE = new ProxyReplicas(1, 0, ReplicasMode.DISPATCHER);

    public ProxyReplicas {
        Objects.requireNonNull(mode, "--cluster-mode");
        if (count < 1 || count > MAX_REPLICAS) {
            throw new IllegalArgumentException("--replicas must be 1.." + MAX_REPLICAS + ", got " + count);
        }
        if (!(syncDelayMs >= 0) || !Double.isFinite(syncDelayMs)) {
            throw new IllegalArgumentException("--sync-delay-ms must be >= 0 and finite, got " + syncDelayMs);
        }
    }

    /** D in seconds, the simulator's clock. */
    public double syncDelaySeconds() {
        return syncDelayMs / 1000;
    }

    /** How many routers run: one in dispatcher mode, one per replica otherwise. */
    public int routers() {
        return mode == ReplicasMode.DISPATCHER ? 1 : count;
    }

    /** The seed of replica r's policy: the run's seed for replica 0 (so N=1 is the run of before), then seed + r. */
    public static long seedOf(long seed, int replica) {
        return seed + replica;
    }
}
