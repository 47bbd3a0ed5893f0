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

    HandlePeers(List<String> peers, ObjectMapper json) {
        this.peers = peers.stream().map(p -> p.endsWith("/") ? p.substring(0, p.length() - 1) : p).toList();
        this.json = json;
        this.http = peers.isEmpty() ? null : HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
                .connectTimeout(Duration.ofSeconds(30)).build();
    }

    boolean isEmpty() {
        return peers.isEmpty();
    }

    /**
     * Takes the handle {@code kv} from the first peer that issued it (404 there: the next one).
     *
     * @param kv the decode request's {@code kv_transfer_params}
     */
    Result take(String remoteRequestId, JsonNode kv) throws InterruptedException {
        for (String peer : peers) {
            HttpResponse<String> r;
            try {
                r = http.send(HttpRequest.newBuilder(URI.create(peer + TAKE_PATH)).timeout(Duration.ofSeconds(30))
                        .header("Content-Type", "application/json")
                        .POST(HttpRequest.BodyPublishers.ofString(json.writeValueAsString(kv))).build(),
                        HttpResponse.BodyHandlers.ofString());
            } catch (IOException e) {
                return new Result(0, 0, "KV handle " + remoteRequestId + ": its issuer could not be asked: the peer "
                        + peer + " did not answer (" + e + ")");
            }
            if (r.statusCode() == 404) {
                continue;
            }
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
        return new Result(0, 0, "unknown KV handle " + remoteRequestId + ": no prefill server of this cluster or of its"
                + " peers (" + String.join(", ", peers) + ") issued it (or it expired and its blocks were freed)");
    }
}
