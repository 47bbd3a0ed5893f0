package org.balanceroute.proxy.internal;

import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.balanceroute.proxy.ProxyObserver.Outcome;

/**
 * The work parked while the router or the connector is away (its bundle is being updated): each
 * held task is a request's next step, kept without a thread (its servlet request stays
 * asynchronous), run when both are back ({@link #release}), or refused after its hold timeout,
 * when the bound is reached, or when the proxy stops. Each task ends exactly once: run or refused.
 */
final class Holding {

    /** How a held task is refused: the outcome to count and the reason for the client. */
    interface Refusal {
        void refuse(Outcome outcome, String message);
    }

    private final Queue<Held> held = new ConcurrentLinkedQueue<>();
    private final AtomicInteger size = new AtomicInteger();

    /** Holds {@code task} for at most {@code timeoutMillis}; refused at once when {@code max} are held already. */
    void hold(Runnable task, Refusal refusal, long timeoutMillis, int max, ScheduledExecutorService timer) {
        if (timeoutMillis <= 0) {
            refusal.refuse(Outcome.REJECTED, "the router or the connector is not in service (holdTimeoutMillis = 0)");
            return;
        }
        if (size.incrementAndGet() > max) {
            size.decrementAndGet();
            refusal.refuse(Outcome.REJECTED, max + " requests are held already waiting for the router and the"
                    + " connector to come back (maxHeldRequests)");
            return;
        }
        Held h = new Held(task, refusal);
        held.add(h);
        try {
            h.timeout = timer.schedule(() -> expire(h, timeoutMillis), timeoutMillis, TimeUnit.MILLISECONDS);
        } catch (RejectedExecutionException stopping) {
            refuse(h, Outcome.ERROR, "the proxy is stopping");
        }
    }

    /** Runs every held task on {@code executor} (both services are back). */
    void release(Executor executor) {
        for (Held h; (h = held.poll()) != null; ) {
            if (h.taken.compareAndSet(false, true)) {
                size.decrementAndGet();
                ScheduledFuture<?> t = h.timeout;
                if (t != null) {
                    t.cancel(false);
                }
                executor.execute(h.task);
            }
        }
    }

    /** Refuses every held task (the proxy stops). */
    void refuseAll(String message) {
        for (Held h; (h = held.poll()) != null; ) {
            refuse(h, Outcome.ERROR, message);
        }
    }

    /** Tasks held now. */
    int size() {
        return size.get();
    }

    private void expire(Held h, long timeoutMillis) {
        refuse(h, Outcome.TIMEOUT, "the router or the connector was not in service for " + timeoutMillis
                + " ms (holdTimeoutMillis; a bundle update that did not end?)");
    }

    private void refuse(Held h, Outcome outcome, String message) {
        if (h.taken.compareAndSet(false, true)) {
            held.remove(h);
            size.decrementAndGet();
            h.refusal.refuse(outcome, message);
        }
    }

    private static final class Held {
        final Runnable task;
        final Refusal refusal;
        final AtomicBoolean taken = new AtomicBoolean();
        volatile ScheduledFuture<?> timeout;

        Held(Runnable task, Refusal refusal) {
            this.task = task;
            this.refusal = refusal;
        }
    }
}
