package org.balanceroute.connector.vllm;

import com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * What the prefill hop gave: s_i ({@code usage.prompt_tokens}), the KV handle
 * ({@code kv_transfer_params}, opaque, null if the engine returned none), which instance
 * answered and after how many attempts.
 *
 * <p>In co-located mode (no prefill tier) there is no hop: s_i is {@link #estimated()} from the
 * client body, the handle is null, {@code instance} is {@value #NO_INSTANCE} and
 * {@code attempts} 0.
 */
public record PrefillResult(int promptTokens, ObjectNode kvTransferParams, int instance, int attempts) {

    /** The {@code instance} of a result that no prefill instance gave (co-located mode). */
    public static final int NO_INSTANCE = -1;

    /** A co-located result: s_i estimated from the client body, no KV handle. */
    public static PrefillResult coLocated(int promptTokens) {
        return new PrefillResult(promptTokens, null, NO_INSTANCE, 0);
    }

    /** Whether s_i is an estimate (no prefill hop ran) rather than the engine's {@code usage.prompt_tokens}. */
    public boolean estimated() {
        return instance == NO_INSTANCE;
    }
}
