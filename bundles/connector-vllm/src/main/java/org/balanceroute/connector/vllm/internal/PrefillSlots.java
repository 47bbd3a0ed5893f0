package org.balanceroute.connector.vllm.internal;

import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.function.IntConsumer;

/**
 * The prefill in-flight budget: back-pressure on the prefill tier (SPEC section 9, "a prefill
 * budget"). At most {@code maxInFlight} prefills run per instance (0: no bound); a prefill that
 * finds every eligible instance at its budget waits in a FIFO of at most {@code queueMax} and
 * starts, on the thread that frees a slot, on the least-loaded instance then. Eligible: the
 * healthy instances, or all of them when none is (a down mark may be stale; failing at once
 * would be worse than trying).
 *
 * <p>Lock-free and no thread ever waits: slot counters are taken by compare-and-set, the FIFO is a
 * {@link ConcurrentLinkedQueue} with a compare-and-set size. No wake-up is lost: whoever adds to
 * the FIFO drains it after adding, whoever frees a slot drains after freeing, and a drain that took
 * a slot but found the FIFO empty gives the slot back before looking at the FIFO again.
 */
final class PrefillSlots {

    /** A prefill waiting for a slot: the instance it should avoid (a retry's last one, or -1), and how to start it. */
    private record Waiting(int avoid, IntConsumer start) {
    }

    private final AtomicIntegerArray inFlight;
    private final AtomicIntegerArray down;
    private final int maxInFlight;
    private final int queueMax;
    private final ConcurrentLinkedQueue<Waiting> waiting = new ConcurrentLinkedQueue<>();
    private final AtomicInteger queued = new AtomicInteger();
    private final AtomicInteger rotation = new AtomicInteger();

    /**
     * @param down per instance, non-zero while its health check fails (shared with the checks)
     * @param maxInFlight prefills per instance, 0 for no bound
     * @param queueMax prefills that may wait for a slot; 0: none waits
     */
    PrefillSlots(AtomicIntegerArray down, int maxInFlight, int queueMax) {
        this.down = down;
        this.inFlight = new AtomicIntegerArray(down.length());
        this.maxInFlight = maxInFlight;
        this.queueMax = queueMax;
    }

    /**
     * Starts a prefill on a free slot now (on this thread), or queues it to start when one frees
     * (on the freeing thread). {@code start} is given the instance whose slot it holds and must
     * {@link #release} it once the attempt ends.
     *
     * @param avoid an instance to avoid when another has a slot (a retry's last one), or -1
     * @param retry a retry of a prefill that held a slot: it queues even when the FIFO is full,
     *     since it was admitted once and failing it now would lose it
     * @return false, having done nothing, when the prefill must wait and the FIFO is full
     */
    boolean acquire(int avoid, boolean retry, IntConsumer start) {
        int i = tryTake(avoid);
        if (i >= 0) {
            start.accept(i);
            return true;
        }
        if (!reserveQueueSpot(retry)) {
            return false;
        }
        waiting.add(new Waiting(avoid, start));
        drain();
        return true;
    }

    /** The attempt on {@code instance} ended: its slot goes to the oldest waiting prefill, if any. */
    void release(int instance) {
        inFlight.decrementAndGet(instance);
        drain();
    }

    /** Prefills running on the instance. */
    int inFlight(int instance) {
        return inFlight.get(instance);
    }

    /** Prefills waiting for a slot. */
    int queued() {
        return queued.get();
    }

    private void drain() {
        while (!waiting.isEmpty()) {
            Waiting head = waiting.peek();
            int i = tryTake(head == null ? -1 : head.avoid());
            if (i < 0) {
                return; // every slot is taken: the next release drains
            }
            Waiting w = waiting.poll();
            if (w == null) {
                inFlight.decrementAndGet(i); // another drain took it; the loop looks again
                continue;
            }
            queued.decrementAndGet();
            w.start().accept(i);
        }
    }

    private boolean reserveQueueSpot(boolean force) {
        if (force) {
            queued.incrementAndGet();
            return true;
        }
        for (int q = queued.get(); q < queueMax; q = queued.get()) {
            if (queued.compareAndSet(q, q + 1)) {
                return true;
            }
        }
        return false;
    }

    /** Takes a slot on the least-loaded eligible instance below its budget, {@code avoid} only if no other has one; -1 if none. */
    private int tryTake(int avoid) {
        while (true) {
            int i = pick(avoid);
            if (i < 0) {
                return -1;
            }
            int v = inFlight.get(i);
            if ((maxInFlight == 0 || v < maxInFlight) && inFlight.compareAndSet(i, v, v + 1)) {
                return i;
            }
        }
    }

    private int pick(int avoid) {
        int n = inFlight.length();
        boolean anyHealthy = false;
        for (int i = 0; i < n; i++) {
            anyHealthy |= down.get(i) == 0;
        }
        int start = Math.floorMod(rotation.getAndIncrement(), n); // ties spread over the instances
        int best = -1;
        boolean avoidFree = false;
        for (int k = 0; k < n; k++) {
            int i = (start + k) % n;
            int load = inFlight.get(i);
            if ((anyHealthy && down.get(i) != 0) || (maxInFlight > 0 && load >= maxInFlight)) {
                continue;
            }
            if (i == avoid) {
                avoidFree = true;
            } else if (best < 0 || load < inFlight.get(best)) {
                best = i;
            }
        }
        return best >= 0 ? best : avoidFree ? avoid : -1;
    }
}
