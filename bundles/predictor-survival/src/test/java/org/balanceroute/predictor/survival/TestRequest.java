package org.balanceroute.predictor.survival;

import org.balanceroute.api.RequestView;

/** Minimal {@link RequestView} for tests: only decoded tokens and prompt key matter here. */
record TestRequest(long id, int promptTokens, int decodedTokens, long promptKey)
        implements RequestView {

    static TestRequest decoded(int decodedTokens) {
        return new TestRequest(1, 100, decodedTokens, NO_PROMPT_KEY);
    }

    @Override
    public int bodyBytes() {
        return 0;
    }

    @Override
    public long arrivalNanos() {
        return 0;
    }
}
