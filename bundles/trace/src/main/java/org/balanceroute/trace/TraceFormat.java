package org.balanceroute.trace;

/** The trace file formats the {@link TraceLoader} reads; detected from the content, not the name. */
public enum TraceFormat {

    /** Azure LLM inference trace CSV: {@code TIMESTAMP,ContextTokens,GeneratedTokens}. */
    AZURE,

    /**
     * Mooncake JSON lines: {@code {"timestamp": ms, "input_length": n, "output_length": n,
     * "hash_ids": [...]}}, one object per line.
     */
    MOONCAKE,

    /** Plain CSV: {@code arrival_s,input_tokens,output_tokens} with an optional {@code prompt_key}. */
    PLAIN
}
