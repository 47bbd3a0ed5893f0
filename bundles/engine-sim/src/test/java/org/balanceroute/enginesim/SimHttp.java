package org.balanceroute.enginesim;

import static org.junit.jupiter.api.Assertions.fail;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.awaitility.Awaitility;

/** Test support: real HTTP against an in-process cluster, SSE parsing, waiting on conditions. */
final class SimHttp {

    static final ObjectMapper JSON = new ObjectMapper();
    static final HttpClient CLIENT = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(5)).build();

    private SimHttp() {
    }

    /** A parsed SSE stream: the JSON events, and whether it ended with [DONE]. */
    record Sse(int status, List<JsonNode> events, boolean done, String raw) {
    }

    static HttpResponse<String> post(String url, String body, String... headers) throws IOException,
            InterruptedException {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(30))
                .header("Content-Type", "application/json").POST(HttpRequest.BodyPublishers.ofString(body));
        for (int i = 0; i < headers.length; i += 2) {
            b.header(headers[i], headers[i + 1]);
        }
        return CLIENT.send(b.build(), HttpResponse.BodyHandlers.ofString());
    }

    static HttpResponse<String> get(String url) throws IOException, InterruptedException {
        return CLIENT.send(HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(30)).GET().build(),
                HttpResponse.BodyHandlers.ofString());
    }

    static JsonNode json(HttpResponse<String> r) throws IOException {
        return JSON.readTree(r.body());
    }

    static Sse stream(String url, String body, String... headers) throws IOException, InterruptedException {
        HttpResponse<String> r = post(url, body, headers);
        List<JsonNode> events = new ArrayList<>();
        boolean done = false;
        for (String block : r.body().split("\n\n")) {
            if (block.isBlank()) {
                continue;
            }
            if (!block.startsWith("data: ")) {
                fail("not an SSE data event: " + block);
            }
            String data = block.substring("data: ".length());
            if (data.equals("[DONE]")) {
                done = true;
            } else {
                if (done) {
                    fail("event after [DONE]: " + data);
                }
                events.add(JSON.readTree(data));
            }
        }
        return new Sse(r.statusCode(), events, done, r.body());
    }

    static JsonNode stats(String baseUrl) throws IOException, InterruptedException {
        return json(get(baseUrl + "/sim/stats"));
    }

    /** The value of a Prometheus sample line, e.g. {@code vllm:num_requests_running{engine="0"}}. */
    static double metric(String baseUrl, String name, int engine) throws IOException, InterruptedException {
        String prefix = name + "{engine=\"" + engine + "\"";
        for (String line : get(baseUrl + "/metrics").body().split("\n")) {
            if (line.startsWith(prefix)) {
                return Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1));
            }
        }
        throw new AssertionError("no metric " + prefix + " at " + baseUrl);
    }

    interface Check {
        boolean ok() throws Exception;
    }

    /** Waits until the condition holds, failing after the deadline. */
    static void await(String what, Duration deadline, Check check) {
        Awaitility.await(what).atMost(deadline).pollInterval(Duration.ofMillis(5)).until(check::ok);
    }

}
