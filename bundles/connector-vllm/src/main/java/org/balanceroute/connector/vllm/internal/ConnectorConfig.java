package org.balanceroute.connector.vllm.internal;

import org.osgi.service.metatype.annotations.AttributeDefinition;
import org.osgi.service.metatype.annotations.ObjectClassDefinition;

@ObjectClassDefinition(name = "BalanceRoute vLLM connector",
        description = "How the proxy talks to the engines of a vLLM / vllm-ascend PD-disaggregated deployment: key,"
                + " timeouts, retries, budgets, health checks. Which engines (prefill instances, decode instances and"
                + " their ranks) is the pool's topology, configuration org.balanceroute.pool~NAME.")
@interface ConnectorConfig {

    String DEFAULT_API_KEY = "";
    long DEFAULT_CONNECT_TIMEOUT_MILLIS = 2000;
    long DEFAULT_PREFILL_TIMEOUT_MILLIS = 60_000;
    long DEFAULT_DECODE_IDLE_TIMEOUT_MILLIS = 300_000;
    int DEFAULT_PREFILL_RETRIES = 2;
    int DEFAULT_DECODE_CONNECT_RETRIES = 2;
    long DEFAULT_RETRY_BACKOFF_MILLIS = 100;
    int DEFAULT_PREFILL_MAX_IN_FLIGHT = 64;
    int DEFAULT_PREFILL_QUEUE_MAX = 4096;
    long DEFAULT_HEALTH_INTERVAL_MILLIS = 5000;
    int DEFAULT_HEALTH_FAILURE_THRESHOLD = 3;
    int DEFAULT_MAX_CONNECTIONS_PER_ENDPOINT = 4096;
    int DEFAULT_MAX_QUEUED_PER_ENDPOINT = 16_384;
    int DEFAULT_MAX_RESPONSE_BYTES = 16 * 1024 * 1024;
    long DEFAULT_DRAIN_MILLIS = 10_000;

    @AttributeDefinition(description = "Bearer key sent as Authorization on both hops; empty: none")
    String apiKey() default DEFAULT_API_KEY;

    @AttributeDefinition(description = "TCP connect timeout, ms (1..600000)")
    long connectTimeoutMillis() default DEFAULT_CONNECT_TIMEOUT_MILLIS;

    @AttributeDefinition(description = "Whole prefill attempt timeout, ms (1..3600000)")
    long prefillTimeoutMillis() default DEFAULT_PREFILL_TIMEOUT_MILLIS;

    @AttributeDefinition(description = "Decode: longest silence between two bytes of the answer, ms (1..3600000)")
    long decodeIdleTimeoutMillis() default DEFAULT_DECODE_IDLE_TIMEOUT_MILLIS;

    @AttributeDefinition(description = "Prefill attempts after the first (0..10); never after HTTP 400")
    int prefillRetries() default DEFAULT_PREFILL_RETRIES;

    @AttributeDefinition(description = "Decode: new connections tried after one timed out (0..10), only while the"
            + " request never went out, so the engine cannot run it twice")
    int decodeConnectRetries() default DEFAULT_DECODE_CONNECT_RETRIES;

    @AttributeDefinition(description = "First retry backoff, ms, doubled each attempt (0..60000)")
    long retryBackoffMillis() default DEFAULT_RETRY_BACKOFF_MILLIS;

    @AttributeDefinition(description = "Prefill in-flight budget per prefill instance (0..100000; 0: unbounded);"
            + " beyond it prefills wait in the connector's queue")
    int prefillMaxInFlight() default DEFAULT_PREFILL_MAX_IN_FLIGHT;

    @AttributeDefinition(description = "Prefills that may wait for a slot when every healthy instance is at its"
            + " budget (0..1000000; 0: none waits); beyond it the request fails fast (the proxy answers 429)")
    int prefillQueueMax() default DEFAULT_PREFILL_QUEUE_MAX;

    @AttributeDefinition(description = "Health check period per endpoint (GET /health), ms (100..3600000); a decode"
            + " worker that fails it is taken out of routing until it answers 200 again")
    long healthIntervalMillis() default DEFAULT_HEALTH_INTERVAL_MILLIS;

    @AttributeDefinition(min = "1", max = "100", description = "Health checks in a row that must fail (time out, or"
            + " answer other than 200) before an endpoint is marked down, so one slow answer under load does not"
            + " take a healthy engine out of routing; a refused connection marks it down at once (1..100)")
    int healthFailureThreshold() default DEFAULT_HEALTH_FAILURE_THRESHOLD;

    @AttributeDefinition(description = "Connections per upstream endpoint; each open stream holds one (1..100000)")
    int maxConnectionsPerEndpoint() default DEFAULT_MAX_CONNECTIONS_PER_ENDPOINT;

    @AttributeDefinition(description = "Requests queued per upstream endpoint waiting for a connection (1..1000000)")
    int maxQueuedPerEndpoint() default DEFAULT_MAX_QUEUED_PER_ENDPOINT;

    @AttributeDefinition(description = "Largest non-streamed upstream body kept, bytes (1024..1073741824)")
    int maxResponseBytes() default DEFAULT_MAX_RESPONSE_BYTES;

    @AttributeDefinition(description = "When the connector stops (its bundle updated or stopped), how long the decode"
            + " streams and prefills in flight may run on to their end before the HTTP client stops and fails the"
            + " rest (in-band errors); keep it below the proxy's holdTimeoutMillis, which new requests wait meanwhile."
            + " ms (0..600000)")
    long drainMillis() default DEFAULT_DRAIN_MILLIS;
}
