package org.balanceroute.connector.vllm;

import com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * What the prefill hop gave: s_i ({@code usage.prompt_tokens}), the KV handle
 * ({@code kv_transfer_params}, opaque, null if the engine returned none), which instance
 * answered and after how many attempts.
 */
public record PrefillResult(int promptTokens, ObjectNode kvTransferParams, int instance, int attempts) {
}
