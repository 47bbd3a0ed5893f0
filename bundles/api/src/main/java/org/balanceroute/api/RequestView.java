package org.balanceroute.api;

import org.osgi.annotation.versioning.ProviderType;

/**
 * What the router knows about one request. Its output length is unknown (that is the
 * point of the termination predictor); everything here is observable in production.
 */
@ProviderType
public interface RequestView {

    /** Router-wide unique id of the request. */
    long id();

    /** s_i: prompt tokens, known once prefill is done. */
    int promptTokens();

    /** j: tokens decoded so far (0 until the first decode step ends). */
    int decodedTokens();

    /**
     * KV load this request puts on its worker at its next decode step:
     * w_i = s_i + j (the spec's s_i + j - 1 at the j-th step, with j counted from 1).
     */
    default long kvLoad() {
        return (long) promptTokens() + decodedTokens();
    }

    /** Prompt identity for prompt-recurrent workloads, {@link #NO_PROMPT_KEY} when unknown. */
    long promptKey();

    /** Size of the client's request body in bytes (what the vllm-ascend proxy balances on). */
    int bodyBytes();

    /** Arrival at the router, in the router clock's nanoseconds. */
    long arrivalNanos();

    long NO_PROMPT_KEY = 0L;
}
