package org.balanceroute.connector.vllm.internal;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.balanceroute.connector.vllm.UpstreamResponse;
import org.balanceroute.connector.vllm.VllmConnector;
import org.eclipse.jetty.client.BufferingResponseListener;
import org.eclipse.jetty.client.HttpClient;
import org.eclipse.jetty.client.Result;

/** A whole-answer request to one endpoint (health checks, {@code /v1/models}), with its rank header and key. */
final class UpstreamGet {

    private UpstreamGet() {
    }

    static CompletableFuture<UpstreamResponse> send(HttpClient client, String method, org.balanceroute.fleet.Endpoint w,
            String path, ConnectorSettings s, long timeoutMillis) {
        CompletableFuture<UpstreamResponse> f = new CompletableFuture<>();
        client.newRequest(w.url() + path)
                .method(method)
                .timeout(timeoutMillis, TimeUnit.MILLISECONDS)
                .headers(h -> {
                    if (w.rank() >= 0) {
                        h.put(VllmConnector.RANK_HEADER, Integer.toString(w.rank()));
                    }
                    if (!s.apiKey().isEmpty()) {
                        h.put("Authorization", "Bearer " + s.apiKey());
                    }
                })
                .send(new BufferingResponseListener(s.maxResponseBytes()) {
                    @Override
                    public void onComplete(Result r) {
                        if (r.isFailed()) {
                            f.completeExceptionally(r.getFailure());
                        } else {
                            f.complete(new UpstreamResponse(r.getResponse().getStatus(), getMediaType(), getContent()));
                        }
                    }
                });
        return f;
    }
}
