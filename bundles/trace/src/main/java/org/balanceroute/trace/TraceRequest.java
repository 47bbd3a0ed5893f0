package org.balanceroute.trace;

/**
 * One request of a trace.
 *
 * @param arrivalSeconds arrival time in seconds, relative to the trace's first request
 * @param inputTokens prompt length in tokens, at least 1
 * @param outputTokens tokens the request decodes, at least 1
 * @param promptKey prompt identity (equal keys mean the same prompt), {@link #NO_PROMPT_KEY}
 *     when the trace does not say
 */
public record TraceRequest(double arrivalSeconds, int inputTokens, int outputTokens, long promptKey) {

    /** The promptKey of a request whose prompt identity is unknown. */
    public static final long NO_PROMPT_KEY = 0L;

    public TraceRequest {
        if (!(arrivalSeconds >= 0) || Double.isInfinite(arrivalSeconds)) {
            throw new IllegalArgumentException("arrivalSeconds must be finite and >= 0, got " + arrivalSeconds);
        }
        if (inputTokens < 1) {
            throw new IllegalArgumentException("inputTokens must be >= 1, got " + inputTokens);
        }
        // A request that decodes nothing never reaches the decode tier this project balances.
        if (outputTokens < 1) {
            throw new IllegalArgumentException("outputTokens must be >= 1, got " + outputTokens);
        }
    }
}
