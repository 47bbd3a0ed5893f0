package org.balanceroute.router.internal;

import java.util.concurrent.CompletableFuture;
import org.balanceroute.api.RequestView;
import org.balanceroute.core.TrackedRequest;
import org.balanceroute.router.Placement;

/**
 * A request in flight, as one router knows it: a request of this replica's own clients
 * ({@link #origin} null), or, on the dispatcher, one another replica reported. Owned by the
 * dispatch thread.
 *
 * <p>While this router is the dispatcher (or alone) the request is in its core as {@link #core}
 * and its worker, tokens and phase are the core's. While it is a follower, {@link #core} is null
 * and the request's own fields say what it knows: {@link #worker} once the dispatcher placed it,
 * the tokens its stream has shown. Either way it can be handed to another dispatcher
 * ({@link #waiting()}, {@link #placedWorker()}, {@link #decodedTokens()}).
 */
final class InFlight implements RequestView {

    final long id;
    final int promptTokens;
    final long promptKey;
    final int bodyBytes;
    final long arrivalNanos;
    /** The other replica it belongs to, on the dispatcher; null for this replica's own. */
    final Origin origin;
    /** Completed with the placement (own requests only). */
    final CompletableFuture<Placement> placed;

    /** Its key in the dispatcher's core (TrackedRequest ids): unique over every origin. */
    long coreKey;
    /** The core's record while this router is the dispatcher; else null. */
    TrackedRequest core;

    /** Clock of its last token report, 0 before the first: the step cadence is measured between two. */
    long lastTokensAt;

    /** The identity of the worker it was placed on (whatever index that worker has now); null while it waits. */
    String workerId;
    /**
     * On a worker the layout no longer has: out of every core, its tokens ignored, kept until it
     * completes or is aborted (its stream ends on that engine).
     */
    boolean retired;
    /** Order of its placement among the core's (a worker's FCFS queue order across a layout change). */
    long placedSeq;

    // --- a follower's own record (core == null)
    /** Its worker's index in this replica's layout; -1 while it waits or when the layout no longer has its worker. */
    int worker = -1;
    int decoded;
    /** Tokens not yet told to the dispatcher, the last of them seen at {@link #pendingSeenAt}. */
    int pendingTokens;
    long pendingSeenAt;
    /** The clock when the oldest of the pending tokens was seen (staleness). */
    long pendingSince;

    InFlight(long id, int promptTokens, long promptKey, int bodyBytes, long arrivalNanos, Origin origin) {
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
        this.origin = origin;
        this.placed = origin == null ? new CompletableFuture<>() : null;
    }

    /** A fresh core record (phase NEW) under its core key, for a core that (re)takes it. */
    TrackedRequest newCore() {
        core = new TrackedRequest(coreKey, promptTokens, promptKey, bodyBytes, arrivalNanos);
        return core;
    }

    /** Whether it still waits for a worker. */
    boolean waiting() {
        return core != null ? core.phase() == TrackedRequest.Phase.POOLED || core.phase() == TrackedRequest.Phase.NEW
                : workerId == null;
    }

    /** The worker it was given, -1 while it waits (or on a worker no longer in the layout). */
    int placedWorker() {
        return core != null ? core.worker() : worker;
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
        return core != null ? core.decodedTokens() : decoded;
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

    /** Leaves the core (this router stops being the dispatcher): what the core knew is kept here. */
    void leaveCore() {
        if (core != null) {
            worker = waiting() ? -1 : core.worker();
            if (worker < 0) {
                workerId = null;
            }
            decoded = core.decodedTokens();
            core = null;
        }
        pendingTokens = 0;
    }

    @Override
    public String toString() {
        return "InFlight[" + id + (origin == null ? "" : " of " + origin.member) + ", s=" + promptTokens
                + ", worker " + placedWorker() + (workerId == null ? "" : " " + workerId) + (retired ? " (retired)" : "")
                + ", j=" + decodedTokens() + "]";
    }
}
