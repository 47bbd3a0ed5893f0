package org.balanceroute.proxy.internal;

import com.fasterxml.jackson.databind.JsonNode;

/**
 * Tokens decoded, counted from a stream's SSE chunks as they pass, for the router's per-token
 * KV load. A chunk with {@code usage.completion_tokens} (vLLM's {@code continuous_usage_stats},
 * or the last chunk of {@code include_usage}) is trusted: the count becomes that cumulative
 * value (a chunk may carry several tokens: {@code --stream-interval}, speculative / MTP
 * decoding). A chunk without usage counts one token when it carries generated content
 * ({@code text}, {@code delta.content}, {@code delta.reasoning_content} or
 * {@code delta.tool_calls}); a final usage chunk then corrects the total. The same rule over a
 * parsed chunk ({@link #onChunk}) and over what {@link ChunkScan} found in its bytes
 * ({@link #onScan}). Not thread-safe: one per stream.
 */
final class TokenCounter {

    private long counted;

    /** The tokens this chunk adds (0 or more). */
    int onChunk(JsonNode chunk) {
        JsonNode completion = chunk.path("usage").get("completion_tokens");
        if (completion != null && completion.canConvertToLong()) {
            return cumulative(completion.longValue());
        }
        for (JsonNode choice : chunk.path("choices")) {
            if (hasContent(choice)) {
                counted++;
                return 1;
            }
        }
        return 0;
    }

    /** The tokens a scanned chunk (a JSON object, not an error) adds. */
    int onScan(ChunkScan chunk) {
        if (chunk.hasCompletionTokens) {
            return cumulative(chunk.completionTokens);
        }
        if (chunk.content) {
            counted++;
            return 1;
        }
        return 0;
    }

    /** Tokens counted so far. */
    long total() {
        return counted;
    }

    private int cumulative(long total) {
        long delta = total - counted;
        if (delta <= 0) {
            return 0;
        }
        counted = total;
        return (int) Math.min(Integer.MAX_VALUE, delta);
    }

    private static boolean hasContent(JsonNode choice) {
        if (nonEmpty(choice.get("text"))) {
            return true;
        }
        JsonNode delta = choice.get("delta");
        return delta != null && (nonEmpty(delta.get("content")) || nonEmpty(delta.get("reasoning_content"))
                || (delta.get("tool_calls") != null && delta.get("tool_calls").size() > 0));
    }

    private static boolean nonEmpty(JsonNode n) {
        return n != null && n.isTextual() && !n.textValue().isEmpty();
    }
}
