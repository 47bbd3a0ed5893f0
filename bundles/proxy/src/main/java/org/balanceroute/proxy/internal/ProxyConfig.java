package org.balanceroute.proxy.internal;

import org.osgi.service.metatype.annotations.AttributeDefinition;
import org.osgi.service.metatype.annotations.ObjectClassDefinition;

@ObjectClassDefinition(name = "BalanceRoute proxy",
        description = "The OpenAI-compatible front: request limits and how long a request may wait for a decode worker.")
@interface ProxyConfig {

    int DEFAULT_MAX_BODY_BYTES = 4 * 1024 * 1024;
    long DEFAULT_PLACEMENT_TIMEOUT_MILLIS = 300_000;
    int DEFAULT_RELAY_QUEUE_EVENTS = 4096;

    @AttributeDefinition(description = "Largest request body accepted, bytes; larger ones get 413 (1024..1073741824)")
    int maxBodyBytes() default DEFAULT_MAX_BODY_BYTES;

    @AttributeDefinition(description = "Longest wait in the prompt pool before a 503, ms; keep it below the engine's"
            + " KV abort timeout (VLLM_MOONCAKE_ABORT_REQUEST_TIMEOUT, 480 s) (1..3600000)")
    long placementTimeoutMillis() default DEFAULT_PLACEMENT_TIMEOUT_MILLIS;

    @AttributeDefinition(description = "SSE events a client may lag behind before it is cut and its request released (16..1000000)")
    int relayQueueEvents() default DEFAULT_RELAY_QUEUE_EVENTS;
}
