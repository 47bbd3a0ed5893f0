package org.balanceroute.enginesim.internal;

/**
 * What the step loop hands a request's writer: {@code tokens} new tokens (the generated count
 * is then {@code cumulative}), with {@code finishReason} on the last one; or a terminal error.
 */
record StreamEvent(int tokens, int cumulative, String finishReason, String errorMessage, String errorType,
                   int errorCode) {

    static StreamEvent tokens(int tokens, int cumulative, String finishReason) {
        return new StreamEvent(tokens, cumulative, finishReason, null, null, 0);
    }

    static StreamEvent error(int cumulative, String message, String type, int code) {
        return new StreamEvent(0, cumulative, null, message, type, code);
    }

    boolean terminal() {
        return finishReason != null || errorMessage != null;
    }

    boolean isError() {
        return errorMessage != null;
    }
}
