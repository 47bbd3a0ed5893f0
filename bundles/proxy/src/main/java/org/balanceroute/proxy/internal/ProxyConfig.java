package org.balanceroute.proxy.internal;

import org.osgi.service.metatype.annotations.AttributeDefinition;
import org.osgi.service.metatype.annotations.ObjectClassDefinition;

@ObjectClassDefinition(name = "BalanceRoute proxy",
        description = "The OpenAI-compatible front: request limits, admission when the prompt pool is full, how long"
                + " a request may wait for a decode worker, heartbeats while it waits, recomputation, holding while the router or"
                + " the connector is updated. An invalid value"
                + " is rejected with an error in the log, and the previous configuration stays in force.")
@interface ProxyConfig {

    int DEFAULT_MAX_BODY_BYTES = 4 * 1024 * 1024;
    long DEFAULT_PLACEMENT_TIMEOUT_MILLIS = 300_000;
    /** The engine frees prefill KV nobody pulled after VLLM_MOONCAKE_ABORT_REQUEST_TIMEOUT (480 s): stay below. */
    long KV_ABORT_TIMEOUT_MILLIS = 480_000;
    int DEFAULT_RELAY_QUEUE_EVENTS = 4096;
    int DEFAULT_MAX_POOL_DEPTH = 4096;
    int DEFAULT_RETRY_AFTER_SECONDS = 1;
    long DEFAULT_PING_INTERVAL_MILLIS = 15_000;
    int DEFAULT_MAX_RECOMPUTES = 2;
    int DEFAULT_MAX_TOKENS_LIMIT = 131_072;
    long DEFAULT_HOLD_TIMEOUT_MILLIS = 30_000;
    int DEFAULT_MAX_HELD_REQUESTS = 4096;
    long DEFAULT_CLIENT_STALL_MILLIS = 30_000;
    boolean DEFAULT_ACCESS_LOG = false;

    @AttributeDefinition(min = "1024", max = "1073741824",
            description = "Largest request body accepted, bytes; larger ones get 413 (1024..1073741824)")
    int maxBodyBytes() default DEFAULT_MAX_BODY_BYTES;

    @AttributeDefinition(min = "1", max = "479999",
            description = "Longest wait in the prompt pool before a 503, ms; must stay below the engine's KV abort"
                    + " timeout (VLLM_MOONCAKE_ABORT_REQUEST_TIMEOUT, 480 s), after which the prefilled KV is gone"
                    + " (1..479999)")
    long placementTimeoutMillis() default DEFAULT_PLACEMENT_TIMEOUT_MILLIS;

    @AttributeDefinition(min = "16", max = "1000000",
            description = "SSE events a client may lag behind before it is cut and its request released (16..1000000)")
    int relayQueueEvents() default DEFAULT_RELAY_QUEUE_EVENTS;

    @AttributeDefinition(min = "0", max = "1000000",
            description = "Requests the router's prompt pool may hold; a new request arriving when it holds that many"
                    + " is refused before its prefill with 429 and Retry-After. 0: unbounded (0..1000000)")
    int maxPoolDepth() default DEFAULT_MAX_POOL_DEPTH;

    @AttributeDefinition(min = "1", max = "3600",
            description = "Retry-After of a 429 (pool full), whole seconds (1..3600)")
    int retryAfterSeconds() default DEFAULT_RETRY_AFTER_SECONDS;

    @AttributeDefinition(min = "0", max = "600000",
            description = "A streaming request still waiting (prefill, prompt pool) after this long gets its 200 event"
                    + " stream early and an SSE comment ': ping' every interval until its tokens come; later errors"
                    + " then come in-band. 0: off, errors keep their HTTP status. ms (0, or 100..600000)")
    long pingIntervalMillis() default DEFAULT_PING_INTERVAL_MILLIS;

    @AttributeDefinition(min = "0", max = "16",
            description = "Times a stream that the engine ended with stop_reason 'recomputed' (decode out of KV) is"
                    + " re-submitted (prompt + text generated so far, a new prefill and placement) before the client"
                    + " gets an in-band error. 0: never (0..16)")
    int maxRecomputes() default DEFAULT_MAX_RECOMPUTES;

    @AttributeDefinition(min = "1", max = "2147483647",
            description = "Largest max_tokens / max_completion_tokens a request may ask for; more is refused with 400"
                    + " naming the field, before any engine sees it (1..2147483647)")
    int maxTokensLimit() default DEFAULT_MAX_TOKENS_LIMIT;

    @AttributeDefinition(min = "0", max = "479999",
            description = "While the router or the connector is away (its bundle is being updated), a new request is"
                    + " held (no thread, no refusal) and goes on when both are back; held longer than this, it gets 503"
                    + " with Retry-After. 0: no holding, 503 at once. ms (0..479999)")
    long holdTimeoutMillis() default DEFAULT_HOLD_TIMEOUT_MILLIS;

    @AttributeDefinition(min = "0", max = "1000000",
            description = "Requests that may be held at once while the router or the connector is away; one more gets"
                    + " 503 with Retry-After at once (0..1000000)")
    int maxHeldRequests() default DEFAULT_MAX_HELD_REQUESTS;

    @AttributeDefinition(min = "100", max = "3600000",
            description = "A streaming client that takes nothing for this long while events wait for it is cut and"
                    + " its request released (its decode slot and KV freed); meanwhile the relay stops reading the"
                    + " engine's stream for it. ms (100..3600000)")
    long clientStallMillis() default DEFAULT_CLIENT_STALL_MILLIS;

    @AttributeDefinition(description = "One line per finished generation request at INFO on the logger "
            + AccessLog.LOGGER + " (logfmt: id, model, pool, worker, prompt_tokens, output_tokens, ttft_ms,"
            + " duration_ms, outcome); off: none")
    boolean accessLog() default DEFAULT_ACCESS_LOG;
}
