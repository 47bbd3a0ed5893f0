package org.balanceroute.connector.vllm;

import org.osgi.annotation.versioning.ConsumerType;

/**
 * Receives a decode answer as it comes, on the HTTP client's threads, in order:
 * {@link #onHeaders} once, then for a 200 {@code text/event-stream} answer {@link #onEvent} per
 * SSE event, then exactly one of {@link #onEnd} or {@link #onFailure} (a failure before the headers skips {@link #onHeaders}). Nothing is called after
 * {@link DecodeExchange#cancel()}. Must not block.
 */
@ConsumerType
public interface DecodeListener {

    /** The status line and headers came; {@code eventStream}: 200 with {@code text/event-stream}. */
    void onHeaders(int status, boolean eventStream);

    /** One SSE event's data (the lines after {@code data: }, joined by newlines), e.g. a chunk's JSON or {@code [DONE]}. */
    void onEvent(String data);

    /**
     * The answer ended normally. {@code body}: the whole body when it was not an event stream
     * (a non-streaming completion, an error body), else empty.
     */
    void onEnd(int status, String contentType, byte[] body);

    /** No complete answer: connection refused or cut, idle timeout. */
    void onFailure(Throwable cause);
}
