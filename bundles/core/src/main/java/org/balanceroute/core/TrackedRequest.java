package org.balanceroute.core;

import org.balanceroute.api.RequestView;

/**
 * A request as the router tracks it, from arrival to completion. Created once per request by
 * the driver; mutated only by {@link PoolState} and {@link PromptPool}.
 */
public final class TrackedRequest implements RequestView {

    /** Where a request is in its life. */
    public enum Phase { NEW, POOLED, QUEUED, RUNNING, DONE }

    private final long id;
    private final int promptTokens;
    private final long promptKey;
    private final int bodyBytes;
    private final long arrivalNanos;

    int decoded;
    int worker = -1;
    /** Index in the worker's running array while RUNNING (swap-remove bookkeeping). */
    int slot = -1;
    Phase phase = Phase.NEW;

    public TrackedRequest(long id, int promptTokens, long promptKey, int bodyBytes, long arrivalNanos) {
        if (promptTokens < 1) {
            throw new IllegalArgumentException("promptTokens must be >= 1, got " + promptTokens);
        }
        if (bodyBytes < 0) {
            throw new IllegalArgumentException("bodyBytes must be >= 0, got " + bodyBytes);
        }
        this.id = id;
        this.promptTokens = promptTokens;
        this.promptKey = promptKey;
        this.bodyBytes = bodyBytes;
        this.arrivalNanos = arrivalNanos;
    }

    @Override
    public long id() {
        return id;
    }

    @Override
    public int promptTokens() {
        return promptTokens;
    }

    @Override
    public int decodedTokens() {
        return decoded;
    }

    @Override
    public long promptKey() {
        return promptKey;
    }

    @Override
    public int bodyBytes() {
        return bodyBytes;
    }

    @Override
    public long arrivalNanos() {
        return arrivalNanos;
    }

    /** The worker it was given, or -1 while it has none. */
    public int worker() {
        return worker;
    }

    public Phase phase() {
        return phase;
    }

    @Override
    public String toString() {
        return "Request[" + id + ", s=" + promptTokens + ", j=" + decoded + ", " + phase
                + (worker >= 0 ? " on " + worker : "") + "]";
    }
}
