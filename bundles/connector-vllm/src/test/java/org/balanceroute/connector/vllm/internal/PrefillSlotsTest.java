package org.balanceroute.connector.vllm.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicIntegerArray;
import org.junit.jupiter.api.Test;

class PrefillSlotsTest {

    /** The instance each started prefill got, in start order. */
    private final List<int[]> started = new ArrayList<>();

    private boolean acquire(PrefillSlots slots, int id) {
        return slots.acquire(-1, false, i -> started.add(new int[] {id, i}));
    }

    @Test
    void beyondTheBudgetPrefillsWaitFifoAndStartAsSlotsFree() {
        PrefillSlots slots = new PrefillSlots(new AtomicIntegerArray(2), 1, 2);
        assertTrue(acquire(slots, 1));
        assertTrue(acquire(slots, 2));
        assertEquals(2, started.size(), "one per instance");
        assertTrue(started.get(0)[1] != started.get(1)[1], "least-loaded first: the two instances");
        assertTrue(acquire(slots, 3));
        assertTrue(acquire(slots, 4));
        assertEquals(2, slots.queued());
        assertFalse(acquire(slots, 5), "the queue is full: fail fast");
        assertEquals(2, slots.queued(), "a refused prefill takes no queue spot");

        int instanceOf2 = started.get(1)[1];
        slots.release(instanceOf2);
        assertEquals(3, started.size());
        assertEquals(3, started.get(2)[0], "oldest waiting first");
        assertEquals(instanceOf2, started.get(2)[1], "on the slot that freed");
        slots.release(started.get(0)[1]);
        assertEquals(4, started.get(3)[0]);
        assertEquals(0, slots.queued());
        assertEquals(1, slots.inFlight(0));
        assertEquals(1, slots.inFlight(1));
    }

    @Test
    void aRetryQueuesEvenWhenTheQueueIsFull() {
        PrefillSlots slots = new PrefillSlots(new AtomicIntegerArray(1), 1, 0);
        assertTrue(acquire(slots, 1));
        assertFalse(acquire(slots, 2), "queueMax 0: nothing waits");
        assertTrue(slots.acquire(0, true, i -> started.add(new int[] {3, i})));
        assertEquals(1, slots.queued());
        slots.release(0);
        assertEquals(3, started.get(1)[0]);
    }

    @Test
    void downInstancesAreSkippedWhileAHealthyOneExistsAndARetryAvoidsItsLastInstance() {
        AtomicIntegerArray down = new AtomicIntegerArray(3);
        down.set(0, 1);
        PrefillSlots slots = new PrefillSlots(down, 0, 10);
        for (int k = 0; k < 20; k++) {
            slots.acquire(-1, false, i -> assertTrue(i != 0, "instance 0 is down"));
        }
        assertEquals(0, slots.inFlight(0));
        assertEquals(10, slots.inFlight(1), "0 = unbounded, least-loaded keeps them even");
        slots.acquire(1, true, i -> assertEquals(2, i));
        down.set(1, 1);
        down.set(2, 1);
        slots.acquire(-1, false, i -> assertEquals(0, i, "all down: least-loaded of all, rather than failing"));
    }

    @Test
    void underContentionTheBudgetHoldsAndEveryAdmittedPrefillStartsOnce() throws Exception {
        int instances = 3, budget = 2, threads = 8, perThread = 2000;
        PrefillSlots slots = new PrefillSlots(new AtomicIntegerArray(instances), budget, 1_000_000);
        AtomicIntegerArray running = new AtomicIntegerArray(instances);
        AtomicInteger overBudget = new AtomicInteger();
        AtomicInteger starts = new AtomicInteger();
        ConcurrentLinkedQueue<Integer> held = new ConcurrentLinkedQueue<>();
        CountDownLatch go = new CountDownLatch(1);
        List<Thread> workers = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            Thread th = new Thread(() -> {
                try {
                    go.await();
                } catch (InterruptedException e) {
                    return;
                }
                for (int k = 0; k < perThread; k++) {
                    slots.acquire(-1, false, i -> {
                        starts.incrementAndGet();
                        if (running.incrementAndGet(i) > budget) {
                            overBudget.incrementAndGet();
                        }
                        held.add(i);
                    });
                    Integer done = held.poll(); // finish some prefill, maybe another thread's
                    if (done != null) {
                        running.decrementAndGet(done);
                        slots.release(done);
                    }
                }
            });
            workers.add(th);
            th.start();
        }
        go.countDown();
        for (Thread th : workers) {
            th.join(TimeUnit.SECONDS.toMillis(30));
        }
        for (Integer done; (done = held.poll()) != null; ) {
            running.decrementAndGet(done);
            slots.release(done);
        }
        assertEquals(0, overBudget.get(), "never more than the budget in flight on an instance");
        assertEquals(threads * perThread, starts.get(), "nothing lost in the queue, nothing started twice");
        assertEquals(0, slots.queued());
        for (int i = 0; i < instances; i++) {
            assertEquals(0, slots.inFlight(i));
        }
    }
}
