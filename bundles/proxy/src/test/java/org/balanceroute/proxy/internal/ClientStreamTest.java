package org.balanceroute.proxy.internal;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;

/**
 * The batching writer. The first two tests write on the calling thread to an output that is
 * always ready, so every assertion sees the writes as they happen; the others drive readiness
 * by hand, as the servlet's non-blocking output does.
 */
class ClientStreamTest {

    private final FlowFakes.Sink sink = new FlowFakes.Sink();
    private final AtomicInteger gone = new AtomicInteger();
    private final ClientStream relay = new ClientStream(16, gone::incrementAndGet);

    @Test
    void nothingIsWrittenBeforeStartThenAllInOrder() {
        relay.ping();
        relay.event("{\"a\": 1}");
        assertEquals("", sink.written.toString(), "held until the response is handed over");
        relay.start(sink);
        relay.event("[DONE]");
        relay.close();
        assertEquals(": ping\n\ndata: {\"a\": 1}\n\ndata: [DONE]\n\n", sink.written.toString());
        assertTrue(sink.closed);
    }

    @Test
    void aFailedPingWriteReportsTheClientGoneOnce() {
        relay.start(sink);
        sink.gone = true;
        relay.ping();
        relay.ping();
        relay.event("x");
        assertEquals(1, gone.get());
        assertTrue(sink.closed);
    }

    /** An output whose readiness the test sets; it records each write's bytes and the array it was given. */
    private static final class Manual implements ClientOutput {
        volatile boolean ready = true;
        Runnable writable;
        Consumer<Throwable> failed;
        final List<byte[]> writes = new ArrayList<>();
        final List<byte[]> arrays = new ArrayList<>();
        final ByteArrayOutputStream all = new ByteArrayOutputStream();
        int flushes;
        int closes;
        /** Becomes not ready after each write (as a socket write that is still in flight). */
        boolean busyAfterWrite;
        /** Counts the bytes written instead of keeping them ({@link #writes}, {@link #all} stay empty). */
        boolean countOnly;
        long written;
        /** Whether a thread waits in {@link #awaitBusy()}. */
        private boolean waiting;

        @Override
        public void start(Runnable writable, Consumer<Throwable> failed) {
            this.writable = writable;
            this.failed = failed;
        }

        /** Runs once, on the writer's thread, the next time {@link #isReady()} says false (before it returns). */
        Runnable whenFoundBusy;

        @Override
        public boolean isReady() {
            boolean r;
            synchronized (this) {
                r = ready;
            }
            Runnable hook = whenFoundBusy;
            if (!r && hook != null) {
                whenFoundBusy = null;
                hook.run();
            }
            return r;
        }

        @Override
        public synchronized void write(byte[] bytes, int offset, int length) {
            if (!ready) {
                throw new IllegalStateException("write while not ready");
            }
            written += length;
            if (!countOnly) {
                byte[] copy = java.util.Arrays.copyOfRange(bytes, offset, offset + length);
                writes.add(copy);
                arrays.add(bytes);
                all.write(copy, 0, copy.length);
            }
            if (busyAfterWrite) {
                ready = false;
                notifyAll();
            }
        }

        @Override
        public synchronized void flush() {
            if (!ready) {
                throw new IllegalStateException("flush while not ready");
            }
            flushes++;
        }

        @Override
        public synchronized void close() {
            closes++;
        }

        /** The write in flight is done: ready again, and the writer told. */
        void done() {
            synchronized (this) {
                ready = true;
            }
            writable.run();
        }

        /** Blocks until a write left the output not ready (for a thread that plays the client's side). */
        synchronized void awaitBusy() throws InterruptedException {
            waiting = true;
            try {
                while (ready) {
                    wait();
                }
            } finally {
                waiting = false;
            }
        }

        /** Whether a thread waits in {@link #awaitBusy()} for a write that nobody is making: the output is ready. */
        synchronized boolean idle() {
            return waiting && ready;
        }

        String text() {
            return all.toString(StandardCharsets.UTF_8);
        }
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    @Test
    void theEventsOfOneReadGoInOneWriteAndOneFlushWhenTheQueueDrains() {
        Manual out = new Manual();
        relay.start(out);
        relay.event(bytes("{\"a\":1}"), 0, 7);
        relay.event(bytes("xx{\"b\":2}xx"), 2, 7);
        relay.event(bytes("[DONE]"), 0, 6);
        assertEquals(0, out.writes.size(), "framed only: written when the read's events are all in");
        relay.flush();
        assertEquals(1, out.writes.size(), "one write");
        assertEquals(1, out.flushes, "one flush");
        assertEquals("data: {\"a\":1}\n\ndata: {\"b\":2}\n\ndata: [DONE]\n\n", out.text());
        relay.flush();
        assertEquals(1, out.writes.size(), "nothing more to write");
        assertEquals(1, out.flushes, "nor to flush");
    }

    @Test
    void eventsGatherBehindAWriteInFlightAndGoInTheNextOneAtOnce() {
        Manual out = new Manual();
        out.busyAfterWrite = true;
        relay.start(out);
        relay.event(bytes("1"), 0, 1);
        relay.flush();
        assertEquals(1, out.writes.size());
        assertEquals(0, out.flushes, "the write is in flight: the flush waits for it");
        byte[] inFlight = out.arrays.get(0);
        byte[] asWritten = inFlight.clone();
        for (int i = 2; i <= 5; i++) {
            relay.event(bytes(Integer.toString(i)), 0, 1);
            relay.flush();
        }
        assertEquals(1, out.writes.size(), "not ready: nothing more handed over");
        assertArrayEquals(asWritten, inFlight, "the array the output holds is not touched while it holds it");
        assertEquals(4, relay.buffered());
        out.done();
        // ready again: the four gathered events in one write, then one flush for both writes
        assertEquals(2, out.writes.size());
        assertEquals("data: 2\n\ndata: 3\n\ndata: 4\n\ndata: 5\n\n", new String(out.writes.get(1), StandardCharsets.UTF_8));
        assertEquals(0, out.flushes);
        out.done();
        assertEquals(1, out.flushes);
        assertEquals("data: 1\n\ndata: 2\n\ndata: 3\n\ndata: 4\n\ndata: 5\n\n", out.text());
        assertEquals(0, relay.buffered());
        assertEquals(0, gone.get());
    }

    @Test
    void aClientThatDoesNotReadIsCutOnceItLagsMoreThanTheLimitAndNothingElseWaits() {
        Manual out = new Manual();
        out.ready = false;
        relay.start(out);
        for (int i = 0; i < 16; i++) {
            assertTrue(relay.event(bytes("e" + i), 0, 2 + (i >= 10 ? 1 : 0)));
            relay.flush(); // returns at once: the output is not ready
        }
        assertEquals(16, relay.buffered(), "bounded: at the limit");
        assertEquals(0, gone.get());
        assertFalse(relay.event(bytes("one too many"), 0, 3), "the 17th event cuts the client");
        assertEquals(1, gone.get(), "the flow is told once");
        assertEquals(1, out.closes, "its response ended");
        assertEquals(0, relay.buffered(), "its buffer let go");
        assertFalse(relay.event(bytes("later"), 0, 5));
        relay.ping();
        relay.close();
        out.done();
        assertEquals(1, gone.get());
        assertEquals(1, out.closes);
        assertEquals(0, out.writes.size(), "nothing written to a client that was cut");
    }

    @Test
    void aClientThatCatchesUpIsNotCut() {
        Manual out = new Manual();
        out.ready = false;
        relay.start(out);
        for (int round = 0; round < 10; round++) {
            for (int i = 0; i < 16; i++) {
                assertTrue(relay.event(bytes("x"), 0, 1));
            }
            out.done(); // it reads: all of it goes in one write
            out.ready = false;
        }
        assertEquals(0, gone.get());
        assertEquals(10, out.writes.size());
    }

    @Test
    void theEndWaitsForTheWritesInFlight() {
        Manual out = new Manual();
        out.busyAfterWrite = true;
        relay.start(out);
        relay.event(bytes("a"), 0, 1);
        relay.flush();
        relay.event(bytes("[DONE]"), 0, 6);
        relay.close();
        assertEquals(0, out.closes, "a write is in flight");
        out.done(); // the second write
        out.done(); // one flush for both, then the end
        out.done();
        assertEquals("data: a\n\ndata: [DONE]\n\n", out.text());
        assertEquals(1, out.closes);
        assertTrue(out.flushes >= 1);
    }

    @Test
    void aStreamThatEndedWholeHandsItsBuffersToTheNextStream() {
        ByteArrayPool pool = new ByteArrayPool(1 << 20);
        Manual first = new Manual();
        first.busyAfterWrite = true;
        ClientStream s = new ClientStream(1_000, gone::incrementAndGet, null, pool);
        s.start(first);
        s.event(bytes("one"), 0, 3);
        s.flush();
        s.event(bytes("two"), 0, 3); // behind the write in flight: the second array
        s.event(bytes("[DONE]"), 0, 6);
        s.close();
        assertEquals(0, pool.keptBytes(), "the output still holds an array");
        first.done();
        first.done();
        first.done();
        assertEquals(1, first.closes);
        assertEquals(2048, pool.keptBytes(), "both 1 KiB arrays back");
        Manual second = new Manual();
        ClientStream next = new ClientStream(1_000, gone::incrementAndGet, null, pool);
        next.start(second);
        next.event(bytes("x"), 0, 1);
        next.flush();
        assertTrue(first.arrays.stream().anyMatch(a -> a == second.arrays.get(0)), "a recycled array");
        assertEquals("data: x\n\n", second.text(), "nothing of the first stream's bytes");
        assertEquals(1024, pool.keptBytes());
        assertEquals(0, gone.get());
    }

    @Test
    void aStreamCutWhileAWriteIsInFlightHandsNothingBack() {
        ByteArrayPool pool = new ByteArrayPool(1 << 20);
        Manual out = new Manual();
        out.busyAfterWrite = true;
        ClientStream s = new ClientStream(1_000, gone::incrementAndGet, null, pool);
        s.start(out);
        s.event(bytes("one"), 0, 3);
        s.flush();
        s.event(bytes("two"), 0, 3);
        out.failed.accept(new IOException("reset by peer"));
        out.done();
        assertEquals(1, gone.get());
        assertEquals(0, pool.keptBytes(), "the output may still read the array it was given");
    }

    @Test
    void aFailureTheOutputReportsCutsTheStreamOnce() {
        Manual out = new Manual();
        relay.start(out);
        out.failed.accept(new IOException("reset by peer"));
        out.failed.accept(new IOException("again"));
        assertEquals(1, gone.get());
        assertEquals(1, out.closes);
        assertFalse(relay.event(bytes("x"), 0, 1));
    }

    @Test
    void aStreamCutBeforeItsResponseIsOpenedClosesThatResponseWhenItComes() {
        ClientStream s = new ClientStream(1, gone::incrementAndGet);
        s.event(bytes("a"), 0, 1);
        assertFalse(s.event(bytes("b"), 0, 1), "over the limit before the start");
        assertEquals(1, gone.get());
        Manual out = new Manual();
        s.start(out);
        assertEquals(1, out.closes);
        assertEquals(0, out.writes.size());
    }

    /** A producer (the HTTP client thread) and the container's writable callbacks race: every byte arrives once, in order. */
    @Test
    void concurrentProducerAndWritableCallbacksLoseNothing() throws Exception {
        Manual out = new Manual();
        out.busyAfterWrite = true;
        ClientStream s = new ClientStream(1_000_000, gone::incrementAndGet);
        s.start(out);
        int n = 20_000;
        Thread producer = new Thread(() -> {
            for (int i = 0; i < n; i++) {
                byte[] e = bytes(Integer.toString(i));
                s.event(e, 0, e.length);
                if (i % 3 == 0) {
                    s.flush();
                }
            }
            s.event(bytes("[DONE]"), 0, 6);
            s.close();
        });
        producer.start();
        long deadline = System.nanoTime() + 20_000_000_000L;
        while (out.closes == 0) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("not closed; written " + out.all.size() + " bytes");
            }
            if (!out.isReady()) {
                out.done();
            } else {
                Thread.onSpinWait();
            }
        }
        producer.join();
        StringBuilder expected = new StringBuilder();
        for (int i = 0; i < n; i++) {
            expected.append("data: ").append(i).append("\n\n");
        }
        expected.append("data: [DONE]\n\n");
        assertEquals(expected.toString(), out.text());
        assertEquals(0, gone.get());
    }

    /** One event of {@code size} bytes of data (framing adds 8). */
    private static byte[] payload(int size) {
        byte[] b = new byte[size];
        java.util.Arrays.fill(b, (byte) 'x');
        return b;
    }

    @Test
    void aReaderIsHeldOnceHoldBytesWaitBehindAWriteAndResumedWhenTheOutputTakesThem() {
        Manual out = new Manual();
        out.busyAfterWrite = true;
        AtomicInteger resumed = new AtomicInteger();
        StalledClients stalls = new StalledClients(() -> 60_000);
        ClientStream s = new ClientStream(1_000_000, gone::incrementAndGet, stalls, new ByteArrayPool(0));
        s.start(out);
        byte[] event = payload(1016); // 1 KiB framed
        s.event(event, 0, event.length);
        assertTrue(s.flush(resumed::incrementAndGet), "written at once: nothing waits, read on");
        assertEquals(1, out.writes.size());
        int n = 0;
        boolean readOn = true;
        while (readOn) {
            s.event(event, 0, event.length);
            n++;
            readOn = s.flush(resumed::incrementAndGet);
        }
        assertEquals(ClientStream.HOLD_BYTES / 1024, n, "held exactly when HOLD_BYTES wait behind the write in flight");
        assertTrue(s.heldFor(System.nanoTime()) >= 0);
        assertEquals(1, stalls.size(), "watched while held");
        assertEquals(0, resumed.get(), "nothing taken yet: still held");
        out.done(); // the write in flight is done: the waiting bytes go in one write, then the reader is resumed
        assertEquals(2, out.writes.size());
        assertEquals(ClientStream.HOLD_BYTES, out.writes.get(1).length);
        assertEquals(1, resumed.get(), "resumed once, after the write");
        assertEquals(-1, s.heldFor(System.nanoTime()));
        assertEquals(0, stalls.sweep(System.nanoTime()), "no longer held: nothing to cut");
        assertEquals(0, stalls.size(), "dropped by the sweep");
        assertEquals(0, gone.get());
    }

    @Test
    void aStreamHeldLongerThanTheStallBoundIsCutAndItsReaderNeverResumed() {
        Manual out = new Manual();
        out.ready = false; // the client reads nothing
        AtomicInteger resumed = new AtomicInteger();
        StalledClients stalls = new StalledClients(() -> 1_000);
        ClientStream s = new ClientStream(1_000_000, gone::incrementAndGet, stalls, new ByteArrayPool(0));
        s.start(out);
        byte[] event = payload(ClientStream.HOLD_BYTES);
        s.event(event, 0, event.length);
        assertFalse(s.flush(resumed::incrementAndGet));
        long now = System.nanoTime();
        assertEquals(0, stalls.sweep(now + 999_000_000L), "within the bound: kept");
        assertEquals(0, gone.get());
        assertEquals(1, stalls.sweep(now + 1_001_000_000L), "past it: cut");
        assertEquals(1, gone.get(), "the flow is told once");
        assertEquals(1, out.closes, "the response ended");
        assertEquals(0, stalls.size());
        assertEquals(0, stalls.sweep(now + 5_000_000_000L));
        assertEquals(0, resumed.get(), "a cut stream's reader is cancelled by the flow, not resumed");
        assertFalse(s.event(event, 0, event.length), "later events are dropped");
    }

    /**
     * The output becomes writable, and calls back on another thread, right after the writing thread
     * found it busy and before that thread is done: the callback leaves its drain to that thread,
     * which must go round again and write what waits. Else the bytes, and the reader held behind
     * them, would wait for a callback that never comes (the output is ready).
     */
    @Test
    void aWritableCallbackWhileAnotherThreadDrainsIsNotLost() {
        Manual out = new Manual();
        out.busyAfterWrite = true;
        AtomicInteger resumed = new AtomicInteger();
        ClientStream s = new ClientStream(1_000_000, gone::incrementAndGet);
        s.start(out);
        s.event(bytes("1"), 0, 1);
        s.flush(); // in flight: the output is busy
        AtomicReference<Throwable> callbackFailed = new AtomicReference<>();
        out.whenFoundBusy = () -> {
            Thread callback = new Thread(() -> {
                try {
                    out.done();
                } catch (Throwable t) {
                    callbackFailed.set(t);
                }
            }, "ClientStreamTest-writable");
            callback.start();
            try {
                callback.join();
            } catch (InterruptedException e) {
                throw new AssertionError(e);
            }
        };
        byte[] event = payload(ClientStream.HOLD_BYTES);
        s.event(event, 0, event.length);
        boolean readOn = s.flush(resumed::incrementAndGet);
        assertNull(out.whenFoundBusy, "the callback came while this thread drained");
        assertNull(callbackFailed.get(), "the callback failed");
        assertEquals(2, out.writes.size(), "the waiting bytes went out in the drain the callback left to this thread");
        assertTrue(readOn, "the reader is not held: nothing waits");
        assertEquals(0, resumed.get());
        assertEquals(0, gone.get());
    }

    @Test
    void aResumeThatComesBeforeTheOutputIsReadyAgainIsNotLostUnderConcurrentWriters() throws Exception {
        // the reader holds on one thread while the output's callbacks run on another: every hold must end.
        // The output thread blocks until a write leaves the output busy, then says it is done (it does not
        // spin), and the output counts the bytes instead of keeping them: 80 MB kept in a stream grown by
        // doubling made single writes take up to 0.6 s of CPU on this thread, and at nice 10 beside busy
        // loops a resume behind such a write came more than 10 s late. No time decides a loss here.
        Manual out = new Manual();
        out.busyAfterWrite = true;
        out.countOnly = true;
        ClientStream s = new ClientStream(1_000_000, gone::incrementAndGet);
        s.start(out);
        byte[] event = payload(4088);
        int n = 20_000;
        Semaphore resumes = new Semaphore(0);
        AtomicReference<Throwable> outputFailed = new AtomicReference<>();
        Thread output = new Thread(() -> {
            try {
                while (true) {
                    out.awaitBusy();
                    out.done();
                }
            } catch (InterruptedException end) {
                // the test is over
            } catch (Throwable t) {
                outputFailed.set(t);
            }
        }, "ClientStreamTest-output");
        output.start();
        try {
            for (int i = 0; i < n; i++) {
                s.event(event, 0, event.length);
                if (!s.flush(resumes::release)) {
                    awaitResumeOrQuiet(resumes, out, output, outputFailed, "held read " + i);
                }
            }
            awaitResumeOrQuiet(null, out, output, outputFailed, "the last events");
            synchronized (out) {
                assertEquals((long) n * (event.length + 8), out.written, "every event written once");
            }
        } finally {
            output.interrupt();
            output.join();
        }
        assertNull(outputFailed.get(), "the output thread failed");
        assertEquals(0, gone.get());
    }

    /** Only catches a hang (a thread busy forever): a lost resume is told by {@link Manual#idle()}, not by a time. */
    private static final long HANG_BOUND_NANOS = 120_000_000_000L;

    /**
     * Waits for a resume ({@code resumes} null: for the output to be idle, everything written).
     * A resume runs on the thread that wrote what waited, right after that write: once the output
     * thread waits for a write while the output is ready, and this thread waits too, nobody can
     * write or resume any more, so a hold not resumed by then is lost. Whatever the machine's load,
     * that is the verdict: the wait for it has no time bound but a hang's.
     */
    private static void awaitResumeOrQuiet(Semaphore resumes, Manual out, Thread output,
            AtomicReference<Throwable> outputFailed, String what) throws InterruptedException {
        long start = System.nanoTime();
        while (true) {
            if (resumes == null) {
                Thread.sleep(10);
            } else if (resumes.tryAcquire(10, TimeUnit.MILLISECONDS)) {
                return;
            }
            Throwable failed = outputFailed.get();
            if (failed != null || !output.isAlive()) {
                throw new AssertionError(what + ": the output thread ended", failed);
            }
            if (out.idle()) {
                // the idle state is read under the output's lock, after (in the output thread's
                // order) the release of any resume that thread ran: the permit is visible now
                if (resumes != null) {
                    assertTrue(resumes.tryAcquire(), what + " was never resumed: the output is ready,"
                            + " nothing writes any more");
                }
                return;
            }
            if (System.nanoTime() - start > HANG_BOUND_NANOS) {
                throw new AssertionError(what + ": neither resumed nor idle after " + HANG_BOUND_NANOS / 1_000_000_000
                        + " s (a hang); output thread " + output.getState() + " at "
                        + java.util.Arrays.toString(output.getStackTrace()));
            }
        }
    }
}
