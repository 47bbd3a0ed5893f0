package org.balanceroute.proxy;

import org.osgi.annotation.versioning.ConsumerType;

/**
 * Whiteboard hook of the proxy (e.g. the metrics bundle): register a service of this type and the
 * proxy tells it, per generation request, the time to first token, the time per output token and
 * how the request ended. Optional: without one, the proxy measures nothing.
 *
 * <p>Called on the proxy's relay threads: must be quick, must not block, should not allocate.
 * An exception it throws is ignored.
 */
@ConsumerType
public interface ProxyObserver {

    /** How a request ended; {@link #label()} is the metric label value. */
    enum Outcome {
        /** Answered in full (non-streaming 200, or a stream that reached {@code [DONE]} without error). */
        OK("ok"),
        /** Refused: invalid body (400), too large (413), the prompt pool full (429, before the prefill) or the prefill queue full (429). */
        REJECTED("rejected"),
        /** Waited longer than {@code placementTimeoutMillis} for a decode worker (503). */
        TIMEOUT("timeout"),
        /** An upstream failure (prefill or decode, before or during streaming), or the router refused it. */
        ERROR("error"),
        /**
         * The client left (or stopped reading) before the end, also while it waited (prefill, pool: noticed at a
         * {@code : ping}); the request was aborted in the router and the upstream request cancelled.
         */
        CLIENT_DISCONNECT("client_disconnect");

        private final String label;

        Outcome(String label) {
            this.label = label;
        }

        public String label() {
            return label;
        }
    }

    /**
     * The first generated token reached the proxy (streaming requests only).
     *
     * @param nanos from the request's arrival at the proxy to its first token chunk
     */
    void firstToken(long nanos);

    /**
     * A streaming request finished with more than one output token.
     *
     * @param nanosPerToken (last token time - first token time) / (output tokens - 1)
     */
    void timePerOutputToken(long nanosPerToken);

    /** A request ended (called once per request). */
    void requestEnded(Outcome outcome);

    /**
     * Output tokens reached the proxy: a streamed chunk's tokens as it is relayed, or a non-streamed
     * answer's {@code completion_tokens} (their sum over time is the tokens generated through the
     * proxy, for a tokens/s rate). Does nothing unless implemented.
     *
     * @param tokens more than 0
     */
    default void outputTokens(int tokens) {
    }
}
