package org.balanceroute.enginesim.internal;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.Executor;

/**
 * The peer clusters whose prefill servers' KV handles this cluster also accepts
 * ({@code SimConfig.handlePeers}): a shared prefill tier in front of several decode instances,
 * each its own process. A handle this cluster did not issue is taken from the first peer that
 * issued it, with {@code POST /sim/handles/take} and the request's {@code kv_transfer_params} as
 * the body; the peer checks it as its own (engine id, host, port, TTL, once) and answers its
 * prompt length and age, or why not.
 */
final class HandlePeers {

    static final String TAKE_PATH = "/sim/handles/take";

    /** A handle taken from a peer: its prompt tokens and nanoseconds since its prefill arrived; or why not. */
    record Result(int promptTokens, long ageNanos, String error) {
    }

    private final List<String> peers;
    private final ObjectMapper json;
    private final HttpClient http;

    /** @param executor runs the answers' handling (the server's pool), so no thread of the client's own is made per ask */
    HandlePeers(List<String> peers, ObjectMapper json, Executor executor) {
        this.peers = peers.stream().map(p -> p.endsWith("/") ? p.substring(0, p.length() - 1) : p).toList();
        this.json = json;
        this.http = peers.isEmpty() ? null : HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
                .connectTimeout(Duration.ofSeconds(30)).executor(executor).build();
    }

    boolean isEmpty() {
        return peers.isEmpty();
    }

    /**
     * Takes the handle {@code kv} from the first peer that issued it (404 there: the next one),
     * without waiting: the future completes when a peer has answered (never exceptionally).
     *
     * @param kv the decode request's {@code kv_transfer_params}
     */
    CompletableFuture<Result> take(String remoteRequestId, JsonNode kv) {
        String body;
        try {
            body = json.writeValueAsString(kv);
        } catch (IOException e) {
            return CompletableFuture.completedFuture(new Result(0, 0, "KV handle " + remoteRequestId
                    + ": not writable as JSON (" + e + ")"));
        }
        return ask(0, remoteRequestId, body);
    }

    private CompletableFuture<Result> ask(int i, String remoteRequestId, String body) {
        if (i == peers.size()) {
            return CompletableFuture.completedFuture(new Result(0, 0, "unknown KV handle " + remoteRequestId
                    + ": no prefill server of this cluster or of its peers (" + String.join(", ", peers)
                    + ") issued it (or it expired and its blocks were freed)"));
        }
        String peer = peers.get(i);
        HttpRequest request = HttpRequest.newBuilder(URI.create(peer + TAKE_PATH)).timeout(Duration.ofSeconds(30))
                .header("Content-Type", "application/json").POST(HttpRequest.BodyPublishers.ofString(body)).build();
        return http.sendAsync(request, HttpResponse.BodyHandlers.ofString()).handle((r, failure) -> {
            if (failure != null) {
                Throwable e = failure instanceof CompletionException && failure.getCause() != null
                        ? failure.getCause() : failure;
                return CompletableFuture.completedFuture(new Result(0, 0, "KV handle " + remoteRequestId
                        + ": its issuer could not be asked: the peer " + peer + " did not answer (" + e + ")"));
            }
            if (r.statusCode() == 404) {
                return ask(i + 1, remoteRequestId, body);
            }
            return CompletableFuture.completedFuture(answer(peer, r));
        }).thenCompose(f -> f);
    }

    private Result answer(String peer, HttpResponse<String> r) {
        JsonNode body;
        try {
            body = json.readTree(r.body());
        } catch (IOException e) {
            body = json.createObjectNode();
        }
        if (r.statusCode() == 200) {
            return new Result(body.path("promptTokens").asInt(), body.path("ageNanos").asLong(), null);
        }
        String message = body.path("error").path("message").asText("HTTP " + r.statusCode());
        return new Result(0, 0, message + " (peer " + peer + ")");
    }
}
