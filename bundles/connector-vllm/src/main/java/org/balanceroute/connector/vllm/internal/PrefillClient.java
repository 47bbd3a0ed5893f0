package org.balanceroute.connector.vllm.internal;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.balanceroute.connector.vllm.PrefillQueueFullException;
import org.balanceroute.connector.vllm.PrefillResult;
import org.balanceroute.connector.vllm.UpstreamException;
import org.balanceroute.connector.vllm.VllmConnector;
import org.balanceroute.wire.CompletionBodies;
import org.balanceroute.wire.KvHandle;
import org.balanceroute.wire.PromptTokens;
import org.eclipse.jetty.client.BufferingResponseListener;
import org.eclipse.jetty.client.BytesRequestContent;
import org.eclipse.jetty.client.HttpClient;
import org.eclipse.jetty.client.Request;
import org.eclipse.jetty.client.Result;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The prefill hop: the client body as {@link CompletionBodies#prefillHop} makes it, to the
 * least-loaded (fewest in flight) healthy instance, another one on retry when there is one;
 * {@link RetryPolicy} decides retries; {@link PrefillSlots} bounds the prefills in flight per
 * instance and queues the rest (full queue: {@link PrefillQueueFullException}). No prefill
 * instance configured: co-located mode, s_i estimated ({@link PromptTokens#estimate}).
 */
final class PrefillClient {

    private static final Logger LOG = LoggerFactory.getLogger(PrefillClient.class);
    private static final ObjectMapper MAPPER = new ObjectMapper();
    private static final String JSON = "application/json";

    private final HttpClient client;
    private final ScheduledExecutorService scheduler;

    PrefillClient(HttpClient client, ScheduledExecutorService scheduler) {
        this.client = client;
        this.scheduler = scheduler;
    }

    CompletableFuture<PrefillResult> prefill(Endpoints ep, String requestId, String path, ObjectNode clientBody) {
        if (ep.prefillSlots == null) {
            return CompletableFuture.completedFuture(PrefillResult.coLocated(PromptTokens.estimate(clientBody)));
        }
        CompletableFuture<PrefillResult> result = new CompletableFuture<>();
        byte[] body;
        try {
            body = MAPPER.writeValueAsBytes(CompletionBodies.prefillHop(clientBody));
        } catch (JsonProcessingException e) {
            result.completeExceptionally(e);
            return result;
        }
        start(ep, requestId, path, body, 1, -1, result);
        return result;
    }

    /** Attempt {@code attempt} on a free slot now, or queued for one; a full queue fails the first attempt at once. */
    private void start(Endpoints ep, String requestId, String path, byte[] body, int attempt, int previous,
            CompletableFuture<PrefillResult> result) {
        boolean admitted = ep.prefillSlots.acquire(previous, attempt > 1,
                i -> attempt(ep, requestId, path, body, attempt, i, result));
        if (!admitted) {
            result.completeExceptionally(new PrefillQueueFullException("every prefill instance is at its budget of "
                    + ep.settings.prefillMaxInFlight() + " in flight and " + ep.settings.prefillQueueMax()
                    + " prefills already wait"));
        }
    }

    /** One attempt on instance {@code i}, whose slot it holds and releases when the answer is in. */
    private void attempt(Endpoints ep, String requestId, String path, byte[] body, int attempt, int i,
            CompletableFuture<PrefillResult> result) {
        if (result.isDone()) {
            ep.prefillSlots.release(i);
            return;
        }
        ConnectorSettings s = ep.settings;
        Request request = client.newRequest(ep.prefill.get(i) + path)
                .method("POST")
                .timeout(s.prefillTimeoutMillis(), TimeUnit.MILLISECONDS)
                .headers(h -> {
                    h.put(VllmConnector.REQUEST_ID_HEADER, requestId);
                    if (!s.apiKey().isEmpty()) {
                        h.put("Authorization", "Bearer " + s.apiKey());
                    }
                })
                .body(new BytesRequestContent(JSON, body));
        // the proxy cancels the future when its client leaves: the prefill in flight stops too
        result.whenComplete((v, e) -> {
            if (result.isCancelled()) {
                request.abort(new CancellationException("the client left"));
            }
        });
        request.send(new BufferingResponseListener(s.maxResponseBytes()) {
            @Override
            public void onComplete(Result r) {
                ep.prefillSlots.release(i);
                if (result.isDone()) {
                    return; // cancelled: nobody waits for it, and it is not tried again
                }
                int status = r.isFailed() || r.getResponse() == null ? 0 : r.getResponse().getStatus();
                byte[] content = r.isFailed() ? null : getContent();
                if (status == 200) {
                    try {
                        result.complete(parse(content, i, attempt));
                    } catch (UpstreamException e) {
                        result.completeExceptionally(e);
                    }
                    return;
                }
                String what = status == 0 ? String.valueOf(r.getFailure()) : "HTTP " + status;
                if (s.retry().retryAfter(attempt, status)) {
                    long wait = s.retry().backoffMillis(attempt);
                    LOG.debug("prefill {} attempt {} on {} failed ({}), retrying in {} ms", requestId, attempt,
                            ep.prefill.get(i), what, wait);
                    try {
                        scheduler.schedule(() -> start(ep, requestId, path, body, attempt + 1, i, result),
                                wait, TimeUnit.MILLISECONDS);
                    } catch (RuntimeException rejected) {
                        result.completeExceptionally(new UpstreamException(0, null, "connector stopped", rejected));
                    }
                } else {
                    result.completeExceptionally(new UpstreamException(status, content,
                            "prefill failed after " + attempt + " attempt(s): " + what, r.getFailure()));
                }
            }
        });
    }

    /** s_i from {@code usage.prompt_tokens}; the handle from the top-level {@code kv_transfer_params}, verbatim. */
    static PrefillResult parse(byte[] content, int instance, int attempts) {
        JsonNode root;
        try {
            root = MAPPER.readTree(content);
        } catch (Exception e) {
            throw new UpstreamException(502, null, "prefill answered 200 with a body that is not JSON", e);
        }
        JsonNode promptTokens = root == null ? null : root.path("usage").get("prompt_tokens");
        if (promptTokens == null || !promptTokens.canConvertToInt() || promptTokens.intValue() < 1) {
            throw new UpstreamException(502, null, "prefill answered without usage.prompt_tokens >= 1", null);
        }
        return new PrefillResult(promptTokens.intValue(), KvHandle.in(root), instance, attempts);
    }
}
