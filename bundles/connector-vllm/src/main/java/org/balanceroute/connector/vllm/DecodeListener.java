package org.balanceroute.connector.vllm;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import org.osgi.annotation.versioning.ConsumerType;

/**
 * Receives a decode answer as it comes, on the HTTP client's threads, in order:
 * {@link #onHeaders} once, then for a 200 {@code text/event-stream} answer the events of each
 * read of the body ({@link #onEvent(ByteBuffer, int, int)} per SSE event, then
 * {@link #onEventsRead(DecodeExchange)}), then exactly one of {@link #onEnd} or {@link #onFailure} (a failure
 * before the headers skips {@link #onHeaders}). Nothing is called after
 * {@link DecodeExchange#cancel()}. Must not block.
 *
 * <p>Implement one of the two {@code onEvent} methods: the connector calls the byte form, whose
 * default decodes the data and calls the text form; the text form's default encodes and calls
 * the byte form (then {@link #onEventsRead()}).
 */
@ConsumerType
public interface DecodeListener {

    /** The status line and headers came; {@code eventStream}: 200 with {@code text/event-stream}. */
    void onHeaders(int status, boolean eventStream);

    /**
     * One SSE event's data (the lines after {@code data: }, joined by newlines), e.g. a chunk's
     * JSON or {@code [DONE]}, in place: bytes {@code [offset, offset + length)} of {@code buffer}
     * (absolute indices), most often the very buffer the HTTP client read. Valid only during the
     * call: copy what must outlive it; do not change the buffer.
     */
    default void onEvent(ByteBuffer buffer, int offset, int length) {
        byte[] b = new byte[length];
        buffer.get(offset, b);
        onEvent(new String(b, StandardCharsets.UTF_8));
    }

    /** The events of one read of the answer have all been given: what they queued can be written now. */
    default void onEventsRead() {
    }

    /**
     * {@link #onEventsRead()} with flow control: return false to hold the reading of this answer
     * (its bytes wait in the socket, and TCP slows the engine's writes) until
     * {@code exchange.}{@link DecodeExchange#resume() resume()}, which the listener must arrange
     * before it returns false (a client's output that is behind: resumed once it took what is
     * queued). The connector calls this form; by default it calls {@link #onEventsRead()} and
     * reads on.
     */
    default boolean onEventsRead(DecodeExchange exchange) {
        onEventsRead();
        return true;
    }

    /** One SSE event's data as text; by default, the byte form then {@link #onEventsRead()}. */
    default void onEvent(String data) {
        byte[] b = data.getBytes(StandardCharsets.UTF_8);
        onEvent(ByteBuffer.wrap(b), 0, b.length);
        onEventsRead();
    }

    /**
     * The answer ended normally. {@code body}: the whole body when it was not an event stream
     * (a non-streaming completion, an error body), else empty.
     */
    void onEnd(int status, String contentType, byte[] body);

    /** No complete answer: connection refused or cut, idle timeout. */
    void onFailure(Throwable cause);
}
