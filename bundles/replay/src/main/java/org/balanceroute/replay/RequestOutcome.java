package org.balanceroute.replay;

import org.balanceroute.trace.TraceRequest;

/**
 * What one replayed request got.
 *
 * @param request the request sent
 * @param outputTokens tokens received (usage when sent, else chunks with text)
 * @param ttftSeconds send to first token; NaN when none came
 * @param tpotMillis first to last token over (tokens - 1); NaN for fewer than 2 tokens
 * @param error what went wrong, null when the request completed
 * @param target which of the replay's endpoints it was sent to (0 for a replay against one)
 */
public record RequestOutcome(TraceRequest request, int outputTokens, double ttftSeconds, double tpotMillis,
        String error, int target) {

    static RequestOutcome failure(TraceRequest request, String error, int target) {
        return new RequestOutcome(request, 0, Double.NaN, Double.NaN, error, target);
    }
}
