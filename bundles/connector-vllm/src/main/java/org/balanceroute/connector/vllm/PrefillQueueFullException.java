package org.balanceroute.connector.vllm;

/**
 * Back-pressure: every healthy prefill instance is at its in-flight budget
 * ({@code prefillMaxInFlight}) and the connector's queue of waiting prefills is full
 * ({@code prefillQueueMax}). Nothing was sent; the client should retry later (the proxy answers
 * 429 with {@code Retry-After}).
 */
public final class PrefillQueueFullException extends UpstreamException {

    private static final long serialVersionUID = 1L;

    public PrefillQueueFullException(String message) {
        super(429, null, message, null);
    }
}
