package org.balanceroute.router.internal;

import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.balanceroute.router.ReplicaShare;
import org.balanceroute.router.StepResult;

/**
 * This replica's part in a cluster of proxies: {@link Alone}, the dispatcher ({@link Dispatching})
 * or a follower ({@link Following}). The dispatch loop holds the current one and hands it what
 * depends on the part: its own requests' events, health marks and drains, a new layout, frames
 * from the other members, and the part's timers; a membership change swaps it. What a role may
 * ask of the loop is {@link RoleHost}. Dispatch thread only.
 */
interface ReplicaRole {

    /** A view (dispatcher) or an empty frame (follower) at least this often, so silence means trouble. */
    long KEEPALIVE_MILLIS = 1000;
    /** Shortest gap between two RESYNCs asked of one replica. */
    long RESYNC_GAP_MILLIS = 200;

    /** Whether this replica's core places the requests (alone, dispatcher); a follower's holds everything. */
    boolean decides();

    /** An own request, just in the own records; where it is refused, it leaves them with its future failed. */
    void submit(InFlight f);

    /** Tokens an own request's stream showed at {@code at}. */
    void tokens(InFlight f, int count, long at);

    /**
     * An own request finished: it leaves the own records, and the core or the dispatcher learns it.
     *
     * @throws IllegalStateException while it is not on a worker (it stays in flight: abort it)
     */
    void complete(InFlight f);

    /** An own request ended abnormally; it left the own records already. */
    void abort(InFlight f);

    /** A caller waits for a dispatch step (RouterService.dispatchStep). */
    void step(CompletableFuture<StepResult> answer);

    /** The proxy wants a dispatch step at the next decode step boundary. */
    void askStep();

    /** This replica's health checks changed their mark of worker g. */
    void marked(int g, String workerId, boolean up);

    /** An operator's drain of worker g, asked of this replica. */
    void drain(int g, String workerId, boolean draining);

    /** A new layout is in force (the marks follow it already); {@code before} is null at the first. */
    void relaid(WorkerLayout before, WorkerLayout next);

    /** Nanoseconds until one of this role's timers is due: 0 now, Long.MAX_VALUE none. */
    long untilDue(long now);

    /** This role's timers due now, before a due dispatch step. */
    void runTimers(long now);

    /** This role's timers due now, after a due dispatch step (what it placed goes out with them). */
    default void runTimersAfterStep(long now) {
    }

    /** A frame from another member; {@code frame} is its bytes, {@code r} reads it. */
    void receive(String from, Frames.Reader r, byte[] frame) throws Frames.MalformedFrameException;

    /** A frame from another member could not be read. */
    default void malformed(String from) {
    }

    /** Each member's share of the requests, oldest member first, as this replica knows them. */
    List<ReplicaShare> shares();

    /** The age of the dispatcher's view this replica routes on; 0 where it decides. */
    default double viewAgeMillis() {
        return 0;
    }

    /** The router stopped: whoever still waits on this role fails. */
    default void stopped(RuntimeException cause) {
    }
}
