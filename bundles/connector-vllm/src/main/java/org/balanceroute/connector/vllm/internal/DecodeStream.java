package org.balanceroute.connector.vllm.internal;

import java.io.ByteArrayOutputStream;
import java.net.SocketTimeoutException;
import java.nio.ByteBuffer;
import java.util.Locale;
import java.util.concurrent.CancellationException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import java.util.function.Function;
import org.balanceroute.connector.vllm.DecodeExchange;
import org.balanceroute.connector.vllm.DecodeListener;
import org.balanceroute.connector.vllm.SseScanner;
import org.balanceroute.connector.vllm.UpstreamException;
import org.eclipse.jetty.client.Request;
import org.eclipse.jetty.client.Response;
import org.eclipse.jetty.client.Result;
import org.eclipse.jetty.io.Content;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One decode answer, from the HTTP client's callbacks (serialised per exchange) to the listener.
 * The answer's content is pulled from the client's content source: every chunk available without
 * waiting (what the socket's reads brought, parsed; the engine sends one HTTP chunk per event),
 * then {@link DecodeListener#onEventsRead(DecodeExchange)} once before waiting for more, so a relay
 * writes all the events that arrived together in one write - never holding one back for another.
 * The listener may hold the reading there (its client is behind): nothing is demanded until
 * {@link #resume()}, so the engine's bytes wait in the socket instead of in the relay. An event
 * stream is scanned in the client's buffers ({@link SseScanner}): each event is handed on in place
 * as soon as its blank line is read. Any other answer is collected whole (up to {@code maxBytes}).
 */
final class DecodeStream implements DecodeExchange {

    private static final Logger LOG = LoggerFactory.getLogger(DecodeStream.class);

    private final DecodeListener listener;
    private final int maxBytes;
    private final Runnable refused;
    private Function<byte[], Request> requests;
    /** The body, kept for a new attempt until an answer began; then let go (a stream lasts long). */
    private volatile byte[] body;
    private Consumer<Runnable> later;
    private int connectRetriesLeft;
    /** The current attempt's request went out on a connection: it is never sent again. */
    private volatile boolean committed;
    private volatile Request request;
    private volatile boolean cancelled;
    private int status;
    private String contentType;
    private SseScanner scanner;
    private ByteArrayOutputStream buffer;
    /** The current attempt's answer content, pulled by {@link #readAvailable()}. */
    private Content.Source source;
    /** One demand callback for the stream's life, not a lambda per read. */
    private final Runnable readMore = this::readAvailable;
    private boolean overflow;
    /** Reading, held by the listener, or resumed while reading (a hold about to begin does not happen). */
    private final AtomicInteger flow = new AtomicInteger(READING);
    private static final int READING = 0;
    private static final int HELD = 1;
    private static final int RESUMED = 2;

    DecodeStream(DecodeListener listener, int maxBytes, Runnable refused) {
        this.listener = listener;
        this.maxBytes = maxBytes;
        this.refused = refused;
    }

    /** Sends the first attempt; a connect timeout sends a new one, up to {@code connectRetries} times. */
    void start(int connectRetries, Consumer<Runnable> later, byte[] body, Function<byte[], Request> requests) {
        this.requests = requests;
        this.body = body;
        this.later = later;
        this.connectRetriesLeft = connectRetries;
        send();
    }

    private void send() {
        byte[] b = body;
        if (b == null) {
            return; // already answered or given up
        }
        committed = false;
        Request r = requests.apply(b);
        request = r;
        if (cancelled) { // cancel() ran before this attempt existed
            r.abort(new CancellationException("cancelled by the proxy"));
        }
        r.send(this::complete);
    }

    void committed(Request r) {
        committed = true;
    }

    void headers(Response response) {
        body = null; // answered: no more attempts
        status = response.getStatus();
        contentType = response.getHeaders().get("Content-Type");
        boolean stream = status == 200 && contentType != null
                && contentType.toLowerCase(Locale.ROOT).startsWith("text/event-stream");
        if (stream) {
            scanner = new SseScanner((b, offset, length) -> {
                if (!cancelled) {
                    listener.onEvent(b, offset, length);
                }
            });
        } else {
            buffer = new ByteArrayOutputStream();
        }
        if (!cancelled) {
            listener.onHeaders(status, stream);
        }
    }

    /** The answer's content: read while chunks are available, then told once, then demanded again. */
    void source(Response response, Content.Source source) {
        this.source = source;
        readAvailable();
    }

    private void readAvailable() {
        Content.Source source = this.source;
        boolean fed = false;
        while (true) {
            Content.Chunk chunk = source.read();
            if (chunk == null) {
                if (!eventsRead(fed) && flow.compareAndSet(READING, HELD)) {
                    return; // resume() demands
                }
                flow.set(READING); // a resume() that came while reading is spent
                source.demand(readMore);
                return;
            }
            if (Content.Chunk.isFailure(chunk)) {
                eventsRead(fed);
                return; // the failure reaches complete(Result)
            }
            try {
                fed |= content(chunk.getByteBuffer());
            } finally {
                chunk.release();
            }
            if (chunk.isLast()) {
                eventsRead(fed);
                return;
            }
        }
    }

    /** Tells the listener a read's events are in; false when it holds the reading. */
    private boolean eventsRead(boolean fed) {
        return !fed || cancelled || listener.onEventsRead(this);
    }

    @Override
    public void resume() {
        while (true) {
            int f = flow.get();
            if (f == HELD) {
                if (flow.compareAndSet(HELD, READING)) {
                    source.demand(readMore);
                    return;
                }
            } else if (f == RESUMED || flow.compareAndSet(READING, RESUMED)) {
                return;
            }
        }
    }

    /** True when an event stream's bytes were scanned (the relay has something to write). */
    private boolean content(ByteBuffer chunk) {
        if (cancelled || !chunk.hasRemaining()) {
            return false;
        }
        if (scanner != null) {
            scanner.feed(chunk);
            return true;
        } else if (buffer != null) {
            if (buffer.size() + chunk.remaining() > maxBytes) {
                overflow = true;
                chunk.position(chunk.limit());
            } else {
                byte[] b = new byte[chunk.remaining()];
                chunk.get(b);
                buffer.writeBytes(b);
            }
        }
        return false;
    }

    void complete(Result result) {
        if (cancelled) {
            return;
        }
        if (result.isFailed()) {
            if (!committed && status == 0 && connectRetriesLeft > 0 && body != null
                    && connectTimedOut(result.getFailure())) {
                // never committed to a connection: a new attempt cannot run the request twice (the
                // failure's own message is not proof: Jetty can report another connection's
                // connect timeout for a request that went out, and the engine then saw it twice)
                connectRetriesLeft--;
                LOG.debug("decode connect timed out, trying a new connection ({} more allowed)", connectRetriesLeft);
                // not from this callback: the failed connect also fails whatever is queued for it
                later.accept(this::send);
                return;
            }
            body = null;
            if (contentType == null && status == 0 && HealthMonitor.refusedAtConnect(result.getFailure())) {
                refused.run(); // no need to wait for the next health check to stop routing there
            }
            listener.onFailure(result.getFailure());
        } else if (overflow) {
            listener.onFailure(new UpstreamException(502, null, "decode answer larger than maxResponseBytes", null));
        } else {
            if (scanner != null) {
                scanner.finish();
                if (!cancelled) {
                    listener.onEventsRead(this); // the end: nothing more to hold
                }
            }
            listener.onEnd(status, contentType, buffer == null ? new byte[0] : buffer.toByteArray());
        }
    }

    private static boolean connectTimedOut(Throwable t) {
        for (Throwable c = t; c != null; c = c.getCause()) {
            // Jetty's ClientConnector fails a connect that outlived connectTimeout so
            if (c instanceof SocketTimeoutException && "Connect Timeout".equals(c.getMessage())) {
                return true;
            }
        }
        return false;
    }

    @Override
    public void cancel() {
        if (!cancelled) {
            cancelled = true;
            body = null;
            Request r = request;
            if (r != null) {
                r.abort(new CancellationException("cancelled by the proxy"));
            }
        }
    }
}
