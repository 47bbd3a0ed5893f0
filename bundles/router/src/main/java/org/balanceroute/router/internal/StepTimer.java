package org.balanceroute.router.internal;

import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * When the next dispatch step is due on a deciding replica (alone, dispatcher): every
 * {@code stepIntervalMillis} if automatic, and at the next decode step boundary once one is
 * wanted; and that boundary's period, learned from the token streams. Owned by the dispatch
 * thread; {@link #observedStepNanos()} is read by any.
 */
final class StepTimer {

    // the router's lines keep the logger name operators filter on
    private static final Logger LOG = LoggerFactory.getLogger(DispatchLoop.class);

    /** Weight of a new sample in the step period's moving average: about the last 32 chunks count. */
    private static final int PERIOD_SMOOTHING = 32;
    /** Longer gaps between two chunks of a request are not decode steps (a stalled client, a pause). */
    private static final long MAX_STEP_NANOS = TimeUnit.SECONDS.toNanos(10);

    private final LongSupplier clock;
    private RouterSettings applied;
    private long nextAutoStep;
    private boolean wanted;
    private long lastStepAt;
    /** The decode step period observed from the token streams; 0 while unknown. Written by the dispatch thread only. */
    private volatile long observedStepNanos;

    StepTimer(RouterSettings settings, LongSupplier clock) {
        this.clock = clock;
        this.applied = settings;
        this.nextAutoStep = clock.getAsLong();
        this.lastStepAt = nextAutoStep;
    }

    long observedStepNanos() {
        return observedStepNanos;
    }

    /** A dispatch step at the next decode step boundary. */
    void want() {
        wanted = true;
    }

    /** Nanoseconds until a step is due: 0 now, Long.MAX_VALUE never. */
    long untilDue(long now) {
        long wait = Long.MAX_VALUE;
        if (applied.stepIntervalMillis() > 0) {
            wait = Deadlines.until(now, nextAutoStep);
        }
        if (wanted) {
            wait = Math.min(wait, Deadlines.until(now, lastStepAt + observedStepNanos));
        }
        return wait;
    }

    boolean due(long now) {
        boolean autoDue = applied.stepIntervalMillis() > 0 && Deadlines.due(now, nextAutoStep);
        return autoDue || (wanted && Deadlines.due(now, lastStepAt + observedStepNanos));
    }

    /** A due step is taken: what was wanted is served, and the next automatic one is set. */
    void taking() {
        long now = clock.getAsLong();
        wanted = false;
        if (applied.stepIntervalMillis() > 0 && now - nextAutoStep >= 0) {
            nextAutoStep = now + TimeUnit.MILLISECONDS.toNanos(applied.stepIntervalMillis());
        }
    }

    /** Any step starts now: the next wanted one waits a decode step from here. */
    void started() {
        lastStepAt = clock.getAsLong();
    }

    /** New settings on the dispatch thread: a new interval counts from now. */
    void apply(RouterSettings next) {
        if (next.stepIntervalMillis() != applied.stepIntervalMillis()) {
            nextAutoStep = clock.getAsLong() + TimeUnit.MILLISECONDS.toNanos(next.stepIntervalMillis());
            LOG.info("router: stepping {}", next.stepIntervalMillis() == 0 ? "manual"
                    : "automatic, every " + next.stepIntervalMillis() + " ms");
        }
        applied = next;
    }

    /**
     * Learns the decode step period from one request's stream: every running request gains one
     * token per step (the barrier), so the time between two of its reports over the tokens they
     * carried is a step's length. The first report of a request is skipped (it includes the time
     * before its first step).
     */
    void observe(InFlight r, int count, long at) {
        long last = r.lastTokensAt;
        r.lastTokensAt = at;
        if (last == 0 || at <= last) {
            return;
        }
        long sample = (at - last) / count;
        if (sample > MAX_STEP_NANOS) {
            return;
        }
        long period = observedStepNanos;
        observedStepNanos = period == 0 ? sample : period + (sample - period) / PERIOD_SMOOTHING;
    }
}
