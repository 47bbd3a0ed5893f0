package org.balanceroute.connector.vllm.internal;

import org.balanceroute.fleet.Endpoint;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.balanceroute.connector.vllm.DecodeExchange;
import org.balanceroute.connector.vllm.DecodeListener;
import org.balanceroute.connector.vllm.UpstreamException;
import org.balanceroute.connector.vllm.UpstreamResponse;
import org.balanceroute.connector.vllm.VllmConnector;
import org.balanceroute.wire.CompletionBodies;
import org.eclipse.jetty.client.HttpClient;

/**
 * The decode hop: the client body plus the prefill's handle ({@link CompletionBodies#decodeHop}) to the
 * chosen worker, its answer streamed to the listener as it is read ({@link DecodeStream}); a
 * connection refused marks the worker down at once. Also the decode tier's plain GETs
 * ({@code /v1/models}).
 */
final class DecodeClient {

    /** Pause before a decode connect is tried again. */
    private static final long RETRY_DELAY_MILLIS = 10;
    private static final ObjectMapper MAPPER = new ObjectMapper();
    private static final String JSON = "application/json";

    private final HttpClient client;
    private final ScheduledExecutorService scheduler;

    /** Shared by every pool: the pool's state comes with each call. */
    DecodeClient(HttpClient client, ScheduledExecutorService scheduler) {
        this.client = client;
        this.scheduler = scheduler;
    }

    /** A decode on {@code ep}, the endpoints {@code health} had in force when the request came. */
    DecodeExchange decode(HealthMonitor health, Endpoints ep, String requestId, String workerId, String path,
            ObjectNode clientBody, ObjectNode kvTransferParams, DecodeListener listener) {
        ConnectorSettings s = ep.settings;
        Integer index = ep.decodeIndex.get(workerId);
        Endpoint w = index != null ? ep.decode.get(index) : ep.removed.get(workerId);
        if (w == null) {
            listener.onFailure(new UpstreamException(503, null, "decode worker " + workerId + " is not in pool '"
                    + s.pool().name() + "' now (removed from its topology, or not added yet)", null));
            return () -> { };
        }
        // a removed worker has no mark any more to set
        Runnable refused = index == null ? () -> { }
                : () -> health.markDecode(ep, index, false, System.nanoTime(), "a decode request was refused at connect");
        DecodeStream stream = new DecodeStream(listener, s.maxResponseBytes(), refused);
        byte[] body;
        try {
            body = MAPPER.writeValueAsBytes(CompletionBodies.decodeHop(clientBody, kvTransferParams));
        } catch (JsonProcessingException e) {
            listener.onFailure(e);
            return () -> { };
        }
        stream.start(s.decodeConnectRetries(), this::later, body, bytes -> client.newRequest(w.url() + path)
                .method("POST")
                .idleTimeout(s.decodeIdleTimeoutMillis(), TimeUnit.MILLISECONDS)
                .headers(h -> {
                    h.put(VllmConnector.REQUEST_ID_HEADER, requestId);
                    if (w.rank() >= 0) {
                        h.put(VllmConnector.RANK_HEADER, Integer.toString(w.rank()));
                    }
                    if (!s.apiKey().isEmpty()) {
                        h.put("Authorization", "Bearer " + s.apiKey());
                    }
                })
                .body(new OneShotBytesContent(JSON, bytes))
                .onRequestCommit(stream::committed)
                .onResponseHeaders(stream::headers)
                .onResponseContentSource(stream::source));
        return stream;
    }

    /** Runs a retry shortly, on the connector's scheduler; at once if the connector is closing. */
    private void later(Runnable r) {
        try {
            scheduler.schedule(r, RETRY_DELAY_MILLIS, TimeUnit.MILLISECONDS);
        } catch (RejectedExecutionException closing) {
            r.run();
        }
    }

    /** {@code GET path} on the decode workers in order, answering the first 200. */
    CompletableFuture<UpstreamResponse> getFromFirst(Endpoints ep, String path) {
        CompletableFuture<UpstreamResponse> result = new CompletableFuture<>();
        getFrom(ep, path, 0, null, result);
        return result;
    }

    private void getFrom(Endpoints ep, String path, int worker, UpstreamException last,
            CompletableFuture<UpstreamResponse> result) {
        List<Endpoint> workers = ep.decode;
        if (worker >= workers.size()) {
            result.completeExceptionally(last != null ? last
                    : new UpstreamException(0, null, "no decode worker answered", null));
            return;
        }
        UpstreamGet.send(client, "GET", workers.get(worker), path, ep.settings,
                Math.min(10_000, ep.settings.prefillTimeoutMillis())).whenComplete((r, e) -> {
                    if (e == null && r.status() == 200) {
                        result.complete(r);
                    } else {
                        UpstreamException u = e != null
                                ? new UpstreamException(0, null, "decode worker " + worker + ": " + e, e)
                                : new UpstreamException(r.status(), r.body(),
                                        "decode worker " + worker + ": HTTP " + r.status(), null);
                        getFrom(ep, path, worker + 1, u, result);
                    }
                });
    }
}
