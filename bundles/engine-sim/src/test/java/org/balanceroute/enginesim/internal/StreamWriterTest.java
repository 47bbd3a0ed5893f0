package org.balanceroute.enginesim.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.eclipse.jetty.io.Content;
import org.eclipse.jetty.util.Callback;
import org.junit.jupiter.api.Test;

/**
 * The pushed stream writer on its own: a sink whose writes complete when the test says, a pool
 * whose tasks run when the test says. One write in flight at a time, the events that came
 * meanwhile in the next one, nothing written on the caller of {@code accept} (the step loop), a
 * failed write aborting the request once.
 */
class StreamWriterTest {

    /** A write the sink took: its bytes, whether it was the last, and its callback to complete. */
    record Write(String text, boolean last, Callback callback) {
    }

    static final class Sink implements Content.Sink {
        final List<Write> writes = new ArrayList<>();

        @Override
        public void write(boolean last, ByteBuffer byteBuffer, Callback callback) {
            writes.add(new Write(StandardCharsets.UTF_8.decode(byteBuffer.duplicate()).toString(), last, callback));
        }

        Write last() {
            return writes.get(writes.size() - 1);
        }
    }

    static final class Pool implements Executor {
        final ArrayDeque<Runnable> tasks = new ArrayDeque<>();

        @Override
        public void execute(Runnable command) {
            tasks.add(command);
        }

        void runAll() {
            Runnable r;
            while ((r = tasks.poll()) != null) {
                r.run();
            }
        }
    }

    final Sink sink = new Sink();
    final Pool pool = new Pool();
    final AtomicInteger aborts = new AtomicInteger();
    final AtomicReference<String> done = new AtomicReference<>();
    final StreamWriter writer = new StreamWriter(sink, pool, StreamWriterTest::frame, aborts::incrementAndGet,
            Callback.from(() -> done.set("succeeded"), x -> done.set("failed: " + x.getMessage())));

    /** "t{cumulative};" per token event, "error;" for an error, "[DONE];" after a terminal one. */
    static void frame(StreamEvent e, StreamWriter.Frames out) throws IOException {
        out.write((e.isError() ? "error;" : "t" + e.cumulative() + ";").getBytes(StandardCharsets.UTF_8));
        if (e.terminal()) {
            out.write("[DONE];".getBytes(StandardCharsets.UTF_8));
        }
    }

    static StreamEvent token(int cumulative) {
        return StreamEvent.tokens(1, cumulative, null);
    }

    @Test
    void startCommitsTheHeadersWithAnEmptyWriteBeforeAnyEvent() {
        writer.start();
        assertEquals(1, sink.writes.size());
        assertEquals("", sink.last().text());
        assertFalse(sink.last().last());
        sink.last().callback().succeeded();
        assertEquals(1, sink.writes.size(), "nothing pending: no other write");
        assertEquals(null, done.get());
    }

    @Test
    void theCallerOfAcceptNeverWritesAndOneWakeUpServesManyEvents() {
        writer.start();
        sink.last().callback().succeeded();
        writer.accept(token(1));
        writer.accept(token(2));
        writer.accept(token(3));
        assertEquals(1, sink.writes.size(), "accept (the step loop) wrote nothing");
        assertEquals(1, pool.tasks.size(), "one wake-up queued for the three events");
        assertEquals(3, writer.backlog());
        pool.runAll();
        assertEquals(2, sink.writes.size());
        assertEquals("t1;t2;t3;", sink.last().text(), "everything pending in one write");
        assertEquals(0, writer.backlog());
    }

    @Test
    void eventsThatComeWhileAWriteIsInFlightGoTogetherInTheNextWrite() {
        writer.start();
        sink.last().callback().succeeded();
        writer.accept(token(1));
        pool.runAll();
        assertEquals("t1;", sink.last().text());
        Callback inFlight = sink.last().callback();
        for (int i = 2; i <= 5; i++) {
            writer.accept(token(i));
            pool.runAll();
        }
        assertEquals(2, sink.writes.size(), "no second write while one is in flight");
        assertEquals(4, writer.backlog(), "the events gather, counted against the stream queue cap");
        inFlight.succeeded();
        assertEquals(3, sink.writes.size(), "the completed write starts the next at once");
        assertEquals("t2;t3;t4;t5;", sink.last().text());
        assertEquals(0, writer.backlog());
    }

    @Test
    void anEventIsNotHeldBackWhenNothingIsInFlight() {
        writer.start();
        sink.last().callback().succeeded();
        for (int i = 1; i <= 3; i++) {
            writer.accept(token(i));
            pool.runAll();
            assertEquals(i + 1, sink.writes.size());
            assertEquals("t" + i + ";", sink.last().text());
            sink.last().callback().succeeded();
        }
    }

    @Test
    void theTerminalEventGoesInTheLastWriteThenTheExchangeSucceeds() {
        writer.start();
        writer.accept(token(1));
        writer.accept(StreamEvent.tokens(1, 2, "length"));
        pool.runAll();
        sink.last().callback().succeeded(); // the headers
        assertEquals("t1;t2;[DONE];", sink.last().text());
        assertTrue(sink.last().last(), "the terminal event's write ends the response");
        assertEquals(null, done.get(), "not before that write completed");
        sink.last().callback().succeeded();
        assertEquals("succeeded", done.get());
        assertEquals(0, aborts.get());
    }

    @Test
    void aStreamWhoseEventsAllCameBeforeItStartedStaysChunked() {
        // the first write commits the headers: were it the last, Jetty would send a Content-Length
        writer.accept(token(1));
        writer.accept(StreamEvent.tokens(1, 2, "stop"));
        writer.start();
        assertEquals("t1;t2;[DONE];", sink.last().text());
        assertFalse(sink.last().last(), "the first write is not the last");
        sink.last().callback().succeeded();
        assertEquals(2, sink.writes.size());
        assertEquals("", sink.last().text());
        assertTrue(sink.last().last(), "an empty last write ends the chunked stream");
        assertEquals(null, done.get());
        sink.last().callback().succeeded();
        assertEquals("succeeded", done.get());
        pool.runAll(); // the wake-ups the events queued find nothing to do
        assertEquals(2, sink.writes.size());
    }

    @Test
    void anInBandErrorEndsTheStreamToo() {
        writer.start();
        sink.last().callback().succeeded();
        writer.accept(StreamEvent.error(3, "cut", "InternalServerError", 500));
        pool.runAll();
        assertEquals("error;[DONE];", sink.last().text());
        assertTrue(sink.last().last());
        sink.last().callback().succeeded();
        assertEquals("succeeded", done.get());
    }

    @Test
    void aFailedWriteAbortsTheRequestOnceAndFailsTheExchange() {
        writer.start();
        sink.last().callback().succeeded();
        writer.accept(token(1));
        pool.runAll();
        writer.accept(token(2));
        sink.last().callback().failed(new IOException("Broken pipe"));
        assertEquals(1, aborts.get(), "the client went away: the engine aborts the request");
        assertEquals("failed: Broken pipe", done.get());
        int writes = sink.writes.size();
        writer.accept(token(3));
        pool.runAll();
        assertEquals(writes, sink.writes.size(), "nothing more is written");
        assertEquals(1, aborts.get());
    }

    @Test
    void aWriteThatCompletesInPlaceDoesNotRecurse() {
        // a sink that completes every write at once: the writer loops, it does not nest
        AtomicInteger depth = new AtomicInteger();
        AtomicInteger maxDepth = new AtomicInteger();
        List<String> texts = new ArrayList<>();
        Content.Sink immediate = (last, buffer, callback) -> {
            maxDepth.accumulateAndGet(depth.incrementAndGet(), Math::max);
            texts.add(StandardCharsets.UTF_8.decode(buffer.duplicate()).toString());
            callback.succeeded();
            depth.decrementAndGet();
        };
        AtomicReference<String> ended = new AtomicReference<>();
        StreamWriter w = new StreamWriter(immediate, Runnable::run, StreamWriterTest::frame, () -> { },
                Callback.from(() -> ended.set("ok"), x -> ended.set("failed")));
        w.start();
        for (int i = 1; i < 1000; i++) {
            w.accept(token(i));
        }
        w.accept(StreamEvent.tokens(1, 1000, "stop"));
        assertEquals(1001, texts.size());
        assertEquals("ok", ended.get());
        assertEquals(1, maxDepth.get());
    }

    @Test
    void aWakeUpTheStoppedPoolRefusesLeavesTheEventPending() {
        StreamWriter w = new StreamWriter(sink, task -> {
            throw new java.util.concurrent.RejectedExecutionException("stopped");
        }, StreamWriterTest::frame, aborts::incrementAndGet, Callback.NOOP);
        w.accept(token(1)); // on the step loop at shutdown: must not throw
        assertEquals(1, w.backlog());
        assertSame(0, sink.writes.size());
    }
}
