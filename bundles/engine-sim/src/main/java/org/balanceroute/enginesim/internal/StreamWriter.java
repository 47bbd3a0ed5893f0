package org.balanceroute.enginesim.internal;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicBoolean;
import org.eclipse.jetty.io.Content;
import org.eclipse.jetty.util.BufferUtil;
import org.eclipse.jetty.util.Callback;
import org.eclipse.jetty.util.IteratingCallback;

/**
 * A decode stream's writer, pushed by the step loop. Each event the loop hands over
 * ({@link #accept}) is queued and wakes the writer: a task on the server's pool, so the loop
 * neither frames nor writes. The writer frames every event pending into one buffer and writes it
 * with one {@link Content.Sink#write}; while that write is in flight, later events gather and go
 * in the next write. So at most one write is outstanding, and no event waits for another: a
 * write starts as soon as there is something to write and the previous one is done.
 *
 * <p>{@link #start} commits the response headers with an empty write when no event is pending
 * yet (a client sees the 200 while its request still waits for a slot). The first write is never
 * the last: the response stays chunked, without a Content-Length. The write that carries the
 * terminal event (finish or error) is the last, or an empty one after it when that was the
 * first; then {@code done} succeeds. A failed write (the client went
 * away) runs {@code onClientGone} (the engine aborts the request) and fails {@code done}.
 * {@link #backlog} counts the events not taken yet: a client that stops reading leaves its write
 * in flight, its events pile up and the step loop cuts it at the stream queue cap.
 */
final class StreamWriter extends IteratingCallback implements EngineRequest.Sink {

    /** Appends an event's SSE frames; a terminal event's include {@code data: [DONE]}. */
    interface Framer {
        void frame(StreamEvent event, Frames out) throws IOException;
    }

    /** The bytes of one write. */
    static final class Frames extends ByteArrayOutputStream {

        Frames(int size) {
            super(size);
        }

        ByteBuffer buffer() {
            return ByteBuffer.wrap(buf, 0, count);
        }
    }

    private final Content.Sink out;
    private final Executor executor;
    private final Framer framer;
    private final Runnable onClientGone;
    private final Callback done;
    /** Events handed over and not taken yet; guarded by itself. */
    private final ArrayDeque<StreamEvent> pending = new ArrayDeque<>();
    /** A wake-up task is queued and has not begun: more events need no other. */
    private final AtomicBoolean woken = new AtomicBoolean();
    // process() only (IteratingCallback runs it in one thread at a time)
    private final List<StreamEvent> batch = new ArrayList<>();
    private boolean committed;
    /** The terminal event is framed. */
    private boolean ended;
    /** The last write is issued. */
    private boolean finished;

    StreamWriter(Content.Sink out, Executor executor, Framer framer, Runnable onClientGone, Callback done) {
        this.out = out;
        this.executor = executor;
        this.framer = framer;
        this.onClientGone = onClientGone;
        this.done = done;
    }

    /** Commits the headers (and writes what is pending already); on the request's own thread. */
    void start() {
        iterate();
    }

    @Override
    public void accept(StreamEvent event) {
        synchronized (pending) {
            pending.addLast(event);
        }
        if (woken.compareAndSet(false, true)) {
            try {
                executor.execute(this::wake);
            } catch (RejectedExecutionException e) {
                // the server is stopping: it closes the connection, and the write in flight fails
                woken.set(false);
            }
        }
    }

    @Override
    public int backlog() {
        synchronized (pending) {
            return pending.size();
        }
    }

    private void wake() {
        woken.set(false);
        iterate(); // while a write is in flight: noted, process() runs again when it completes
    }

    @Override
    protected Action process() throws IOException {
        if (finished) {
            return Action.SUCCEEDED;
        }
        if (ended) {
            // the terminal event went in the first write, which must not be the last (it would
            // answer with a Content-Length): the chunked stream ends with an empty last write
            finished = true;
            out.write(true, BufferUtil.EMPTY_BUFFER, this);
            return Action.SCHEDULED;
        }
        synchronized (pending) {
            batch.addAll(pending);
            pending.clear();
        }
        if (batch.isEmpty()) {
            if (committed) {
                return Action.IDLE;
            }
            committed = true;
            out.write(false, BufferUtil.EMPTY_BUFFER, this);
            return Action.SCHEDULED;
        }
        Frames frames = new Frames(320 * batch.size());
        for (StreamEvent e : batch) {
            framer.frame(e, frames);
            if (e.terminal()) {
                ended = true;
                break;
            }
        }
        batch.clear();
        finished = ended && committed;
        committed = true;
        out.write(finished, frames.buffer(), this);
        return Action.SCHEDULED;
    }

    @Override
    protected void onCompleteSuccess() {
        done.succeeded();
    }

    @Override
    protected void onCompleteFailure(Throwable cause) {
        onClientGone.run();
        done.failed(cause);
    }

    /** process() frames and starts a write, it never waits: a completed write may run it in place. */
    @Override
    public InvocationType getInvocationType() {
        return InvocationType.NON_BLOCKING;
    }
}
