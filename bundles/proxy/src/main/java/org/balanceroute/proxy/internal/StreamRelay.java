package org.balanceroute.proxy.internal;

import java.io.IOException;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The client side of one SSE stream: events are queued by the upstream callbacks (which never
 * block) and written in order to the client's {@link EventSink} by one task at a time on the
 * relay executor, so a slow client stalls only its own writer. A client more than
 * {@code limit} events behind, or one whose write fails (gone), is cut: {@code onClientGone}
 * runs once and later events are dropped. The same relay carries the {@code : ping} comments
 * written while the request still waits, and the events of every decode hop of the request
 * (a recomputed request is re-submitted, its client's stream stays open).
 *
 * <p>Why Jersey's {@code ChunkedOutput} behind an {@code AsyncResponse} rather than an
 * {@code SseEventSink}: the answer's status may wait for the decode worker's (an upstream error
 * before streaming is answered with the upstream status and body), and a resource method taking
 * an {@code SseEventSink} commits a 200 event stream when it returns, unless it holds its thread
 * through prefill and the prompt-pool wait. Suspended, the request holds no thread until the
 * decode's headers come (or the first {@code : ping} is due), then resumes with either the event
 * stream or the error.
 */
final class StreamRelay {

    private static final String CLOSE = new String("close");

    private static final String PING = ": ping\n\n";

    private final EventSink out;
    private final Executor executor;
    private final int limit;
    private final Runnable onClientGone;
    private final ConcurrentLinkedQueue<String> queue = new ConcurrentLinkedQueue<>();
    /**
     * Items queued and not yet written, plus 1 until {@link #start()}: while that gate is held no
     * enqueue starts a writer, so nothing is written before the response carrying the stream is
     * handed to the container, whichever thread queues first.
     */
    private final AtomicInteger pending = new AtomicInteger(1);
    private volatile boolean dead;

    StreamRelay(EventSink out, Executor executor, int limit, Runnable onClientGone) {
        this.out = out;
        this.executor = executor;
        this.limit = limit;
        this.onClientGone = onClientGone;
    }

    /** Lets the writer run: called once the response with this stream was handed to the container. */
    void start() {
        if (pending.decrementAndGet() > 0) {
            executor.execute(this::drain);
        }
    }

    /** Queues one SSE event whose data is {@code data}. */
    void event(String data) {
        if (dead) {
            return;
        }
        if (pending.get() >= limit) {
            gone();
            return;
        }
        enqueue("data: " + data + "\n\n");
    }

    /** Queues an SSE comment {@code : ping} (a heartbeat: clients ignore it, a write to a client gone fails). */
    void ping() {
        if (!dead) {
            enqueue(PING);
        }
    }

    /** Closes the stream after the events queued so far. */
    void close() {
        enqueue(CLOSE);
    }

    private void enqueue(String item) {
        queue.add(item);
        if (pending.getAndIncrement() == 0) {
            executor.execute(this::drain);
        }
    }

    private void drain() {
        do {
            String item = queue.poll();
            if (item == CLOSE) {
                closeQuietly();
            } else if (item != null && !dead) {
                try {
                    if (out.isClosed()) {
                        throw new IOException("closed");
                    }
                    out.write(item);
                } catch (IOException | RuntimeException e) {
                    gone();
                }
            }
        } while (pending.decrementAndGet() > 0);
    }

    private void gone() {
        if (!dead) {
            dead = true;
            closeQuietly();
            onClientGone.run();
        }
    }

    private void closeQuietly() {
        try {
            out.close();
        } catch (IOException | RuntimeException ignored) {
            // the client is gone already
        }
    }
}
