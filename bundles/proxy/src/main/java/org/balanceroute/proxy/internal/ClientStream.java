package org.balanceroute.proxy.internal;

import java.io.IOException;
import java.nio.charset.StandardCharsets;

/**
 * The client side of one SSE stream: a bounded buffer of framed events, written to the client's
 * non-blocking {@link ClientOutput} by whichever thread finds the output ready: most often the
 * HTTP client thread that read the events from the engine (no hand-off), else the container's
 * thread when the output becomes writable again.
 *
 * <p><b>Batching without delay.</b> {@link #event} only frames an event into the buffer;
 * {@link #flush()} (the relay calls it once the events of one upstream read are queued, the
 * queue has drained from the engine's side) writes everything buffered in <em>one</em> write and
 * <em>one</em> flush. No event is ever held back to wait for another: a write happens at the end
 * of every read, and while a write is still in flight the next events gather behind it and go in
 * the next write, as soon as the output says it is ready.
 *
 * <p><b>Slow clients.</b> Nothing here blocks: a client that does not read leaves its events in
 * its own buffer (two arrays: the one being filled and the one the output may still hold, taken
 * from a {@link ByteArrayPool} and handed back when the stream ended whole), and every other
 * stream goes on. Once {@link #HOLD_BYTES} wait behind a write still in flight, the
 * reader of the engine's answer is held ({@link #flush(Runnable)} says so): the engine's next
 * events wait in the socket, not here, and the reader is resumed as soon as the output takes
 * what waited - so a relay that is behind reads bigger batches instead of copying a growing
 * buffer, and each stream's memory stays bounded. A stream held longer than the stall bound
 * is cut by {@link StalledClients}. A client more than {@code limit} events behind (events
 * buffered and not yet handed to the output) is cut too. Cut means: its response is ended,
 * {@code onClientGone} runs once (the flow aborts the request upstream and in the router) and
 * later events are dropped. The same happens when a write fails (the client left): the output
 * reports it, or the write throws. A client that reads nothing while the engine is silent is cut
 * by the container's idle timeout, through the same failure.
 *
 * <p>The same stream carries the {@code : ping} heartbeats written while the request still waits,
 * and the events of every decode hop of the request (a recomputed request is re-submitted, its
 * client's stream stays open). Nothing is written before {@link #start()}: the response that
 * carries the stream is committed first.
 *
 * <p>Threading: any thread may call any method; a small lock guards the buffer (held to copy an
 * event in, or to swap the arrays, never during a write), and one thread at a time writes.
 * The resume of a held reader runs on the writing thread, after its write.
 */
final class ClientStream {

    private static final byte[] DATA = "data: ".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] END = "\n\n".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] PING = ": ping\n\n".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] NONE = new byte[0];
    /** A buffer grown past this by a burst is let go once written, not kept for the stream's life. */
    private static final int KEEP_AT_MOST = ByteArrayPool.LARGEST;
    /**
     * Bytes waiting for the client past which its reader is held: about a hundred token events,
     * several writes' worth, so a stream that keeps up is never held.
     */
    static final int HOLD_BYTES = 32 * 1024;

    private volatile ClientOutput out;
    private final int limit;
    private final Runnable onClientGone;
    private final Object lock = new Object();
    /** Where the buffers come from and go back to once the stream ended whole. */
    private final ByteArrayPool arrays;

    // under the lock
    /** Taken from {@link #arrays} at the first event: a stream that only waits holds no buffer. */
    private byte[] pending = NONE;
    private int length;
    private int events;
    private boolean started;
    private boolean closing;
    private boolean dead;
    private boolean draining;
    private boolean again;

    // the writer's own (one writer at a time)
    /** The array the output may still hold, and the one to fill next once it is free. */
    private byte[] inFlight;
    private byte[] spare;
    private boolean unflushed;
    /** Under the lock: the output was closed (the end, or the client gone). */
    private boolean closed;

    /** Under the lock: what resumes the held reader; null when none is held. */
    private Runnable resume;
    /** Whether the reader is held, and since when (nanoTime): read by {@link StalledClients} without the lock. */
    private volatile boolean holding;
    private volatile long heldSince;
    /** Told when a hold begins and ends; null: holds are not watched (tests, the warm-up). */
    private final StalledClients stalls;

    ClientStream(int limit, Runnable onClientGone) {
        this(limit, onClientGone, null, new ByteArrayPool(0));
    }

    ClientStream(int limit, Runnable onClientGone, StalledClients stalls, ByteArrayPool arrays) {
        this.limit = limit;
        this.onClientGone = onClientGone;
        this.stalls = stalls;
        this.arrays = arrays;
    }

    /**
     * Lets the writer run, into {@code output}: called once the response carrying this stream is
     * committed; null when it could not be (the stream is cut at once).
     */
    void start(ClientOutput output) {
        if (output == null) {
            gone();
            return;
        }
        boolean cutAlready;
        synchronized (lock) {
            if (started) {
                return;
            }
            out = output;
            started = true;
            cutAlready = dead;
        }
        if (cutAlready) {
            closeOnce();
            return;
        }
        try {
            output.start(this::drain, this::failed);
        } catch (RuntimeException e) {
            failed(e);
            return;
        }
        drain();
    }

    /**
     * Frames one event whose data is bytes {@code [offset, offset + length)} of {@code data}; it
     * is written at the next {@link #flush()}. False when the stream is closed or cut (now, if this
     * event is one too many).
     */
    boolean event(byte[] data, int offset, int length) {
        boolean cut;
        synchronized (lock) {
            if (dead || closing) {
                return false;
            }
            cut = events >= limit;
            if (!cut) {
                append(DATA, 0, DATA.length);
                append(data, offset, length);
                append(END, 0, END.length);
                events++;
            }
        }
        if (cut) {
            gone();
            return false;
        }
        return true;
    }

    /** {@link #event(byte[], int, int)} of a text (an error, a rewritten chunk, {@code [DONE]}). */
    boolean event(String data) {
        byte[] b = data.getBytes(StandardCharsets.UTF_8);
        return event(b, 0, b.length);
    }

    /** Queues an SSE comment {@code : ping} and writes it (a heartbeat: clients ignore it, a write to a client gone fails). */
    void ping() {
        synchronized (lock) {
            if (dead || closing) {
                return;
            }
            append(PING, 0, PING.length);
        }
        drain();
    }

    /** Writes what is buffered now, in one write and one flush (or as soon as the output is ready). */
    void flush() {
        drain();
    }

    /**
     * {@link #flush()}, then whether the reader may read on: false when {@link #HOLD_BYTES} or
     * more still wait for the client; {@code resume} then runs once the output took them (or
     * never, if the stream is cut meanwhile: the flow cancels the reader then).
     */
    boolean flush(Runnable resume) {
        drain();
        boolean watch;
        synchronized (lock) {
            if (length < HOLD_BYTES || !started || dead || closing) {
                return true;
            }
            this.resume = resume;
            watch = !holding;
            if (watch) {
                heldSince = System.nanoTime(); // before holding: a sweep that sees the hold sees its start
                holding = true;
            }
        }
        if (watch && stalls != null) {
            stalls.held(this);
        }
        return false;
    }

    /** Nanoseconds the reader has been held at {@code now}; -1 when it is not held. */
    long heldFor(long now) {
        return holding ? Math.max(0, now - heldSince) : -1;
    }

    /** Cuts a stream that stalled (its client took nothing for too long): as if it lagged too far. */
    void cut() {
        gone();
    }

    /** Ends the stream after the events buffered so far. */
    void close() {
        synchronized (lock) {
            closing = true;
        }
        drain();
    }

    /** Events buffered and not yet handed to the output (tests, metrics). */
    int buffered() {
        synchronized (lock) {
            return events;
        }
    }

    private void append(byte[] b, int offset, int n) {
        if (length + n > pending.length) {
            byte[] grown = arrays.take(Math.max(length + n, pending.length * 2));
            System.arraycopy(pending, 0, grown, 0, length);
            arrays.give(pending); // never in flight: the writer swaps it out before writing it
            pending = grown;
        }
        System.arraycopy(b, offset, pending, length, n);
        length += n;
    }

    /** Writes until nothing is buffered or the output is not ready; one thread at a time, the others leave it a note. */
    private void drain() {
        synchronized (lock) {
            if (!started) {
                return;
            }
            if (draining) {
                again = true;
                return;
            }
            draining = true;
        }
        while (true) {
            try {
                writeWhileReady();
            } catch (IOException | RuntimeException e) {
                synchronized (lock) {
                    draining = false;
                }
                failed(e);
                return;
            }
            synchronized (lock) {
                if (!again) {
                    draining = false;
                    return;
                }
                again = false;
            }
        }
    }

    private void writeWhileReady() throws IOException {
        while (true) {
            boolean isDead;
            synchronized (lock) {
                if (closed) {
                    return;
                }
                isDead = dead;
            }
            if (isDead) {
                closeOnce();
                return;
            }
            if (!out.isReady()) {
                return; // the output calls drain() again when it can take more
            }
            if (inFlight != null) {
                // the output is done with the previous array: it is the next one to fill
                byte[] free = inFlight;
                inFlight = null;
                if (free.length > KEEP_AT_MOST) {
                    free = null; // a burst's: let go
                }
                spare = free;
            }
            byte[] buf = null;
            int n;
            boolean end;
            Runnable resumeReader = null;
            synchronized (lock) {
                n = length;
                end = closing;
                if (n > 0) {
                    buf = pending;
                    pending = spare != null ? spare : NONE;
                    spare = null;
                    length = 0;
                    events = 0;
                    resumeReader = resume;
                    resume = null;
                    holding = false;
                }
            }
            if (n > 0) {
                inFlight = buf;
                unflushed = true;
                out.write(buf, 0, n);
                if (resumeReader != null) {
                    resumeReader.run(); // the next events gather while this write is in flight
                }
            } else if (unflushed) {
                unflushed = false;
                out.flush();
            } else {
                if (end) {
                    closeOnce();
                    recycle();
                }
                return;
            }
        }
    }

    /**
     * After the end, every byte written and flushed (the output took the last array back): the
     * buffers go back to the pool. Not after a cut, where the output may still hold one.
     */
    private void recycle() {
        byte[] last;
        synchronized (lock) {
            last = pending; // closing: nothing is appended any more
            pending = NONE;
        }
        arrays.give(last);
        if (spare != null) {
            arrays.give(spare);
            spare = null;
        }
    }

    /** A write failed or the output reported the client gone. */
    private void failed(Throwable cause) {
        gone();
    }

    /** Cut or gone: ends the response (by the writer if one is writing), tells the flow once. */
    private void gone() {
        boolean closeHere;
        synchronized (lock) {
            if (dead) {
                return;
            }
            dead = true;
            length = 0;
            events = 0;
            resume = null; // the flow cancels the reader
            holding = false;
            closeHere = !draining;
            if (draining) {
                again = true;
            }
        }
        if (closeHere) {
            closeOnce();
        }
        onClientGone.run();
    }

    private void closeOnce() {
        ClientOutput o;
        synchronized (lock) {
            o = out;
            if (closed || o == null) {
                return; // closed already, or not opened yet (start closes it then)
            }
            closed = true;
        }
        try {
            o.close();
        } catch (RuntimeException ignored) {
            // the client is gone already
        }
    }
}
