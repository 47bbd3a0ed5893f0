package org.balanceroute.enginesim;

import static org.balanceroute.enginesim.SimHttp.CLIENT;
import static org.balanceroute.enginesim.SimHttp.JSON;
import static org.balanceroute.enginesim.SimHttp.await;
import static org.balanceroute.enginesim.SimHttp.get;
import static org.balanceroute.enginesim.SimHttp.json;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * The cluster's HTTP server (Jetty, asynchronous) as a client sees it: no thread per connection,
 * stream or waiting prefill; the JDK server's wire habits kept (no Server header, a Date header,
 * chunked streams with the headers at once, keep-alive); its own refusals and an oversized body
 * as OpenAI error bodies; close() prompt and leaving no thread behind.
 */
class AsyncServerTest {

    /** The live threads of the cluster (its pool, scheduler and step loop). */
    static Set<Thread> clusterThreads() {
        return Thread.getAllStackTraces().keySet().stream()
                .filter(t -> t.isAlive() && t.getName().startsWith("enginesim-")).collect(Collectors.toSet());
    }

    /** Bounds the pool: the selectors of the endpoints and the workers, never a thread per client. */
    static int maxPoolThreads(SimConfig c) {
        return c.prefill() + c.decode() + (c.allRanksEndpoint() ? 1 : 0) + 16;
    }

    @Test
    void hundredsOfStreamsAreServedByTheBoundedPoolAndStatsAnswerMeanwhile() throws Exception {
        // steps of a second (time factor 50) while the stats are asked: the 40-token streams cannot
        // end meanwhile, so every answer below came while all of them were open; then fast steps
        SimConfig config = SimConfig.builder().prefill(0).decode(2).portBase(0).timeFactor(50).build();
        try (SimCluster c = SimCluster.start(config)) {
            int streams = 400; // 20 times the pool's bound
            int tokens = 40;
            // a client of their own, patient with connects: on a loaded 2-core machine the JDK
            // client's one selector thread opening hundreds of connections is the slow side
            HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
                    .connectTimeout(Duration.ofSeconds(60)).build();
            List<CompletableFuture<HttpResponse<String>>> all = new ArrayList<>();
            for (int i = 0; i < streams; i++) {
                HttpRequest req = HttpRequest.newBuilder(URI.create(c.decodeUrl(i % 2) + "/v1/completions"))
                        .timeout(Duration.ofSeconds(120)).header("Content-Type", "application/json")
                        .POST(HttpRequest.BodyPublishers.ofString("{\"prompt\": [1, 2, 3], \"max_tokens\": " + tokens
                                + ", \"ignore_eos\": true, \"stream\": true}")).build();
                all.add(client.sendAsync(req, HttpResponse.BodyHandlers.ofString()));
            }
            int maxThreads = 0;
            // its own client too: the streams' client has hundreds of streams to read on its one selector thread
            HttpClient probe = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
            int answeredWhileOpen = 0;
            while (!CompletableFuture.allOf(all.toArray(CompletableFuture[]::new)).isDone()) {
                HttpResponse<String> stats = probe.send(HttpRequest.newBuilder(URI.create(c.decodeUrl(0)
                        + "/sim/stats")).timeout(Duration.ofSeconds(10)).build(), HttpResponse.BodyHandlers.ofString());
                assertEquals(200, stats.statusCode(), "/sim/stats answers while the streams are open");
                if (++answeredWhileOpen == 5) {
                    c.setTimeFactor(0.001); // answered beside every open stream: let them end
                }
                maxThreads = Math.max(maxThreads, (int) clusterThreads().stream()
                        .filter(t -> t.getName().startsWith("enginesim-http")).count());
                Thread.sleep(50);
            }
            assertTrue(answeredWhileOpen >= 5, answeredWhileOpen + " answers while the streams were open");
            assertTrue(maxThreads <= maxPoolThreads(config), maxThreads + " pool threads for " + streams + " streams");
            for (CompletableFuture<HttpResponse<String>> f : all) {
                HttpResponse<String> r = f.get();
                assertEquals(200, r.statusCode(), r.body());
                assertTrue(r.body().endsWith("data: [DONE]\n\n"), r.body());
                assertEquals(tokens + 1, r.body().split("\n\n").length, "a chunk a token, then [DONE]");
            }
            JsonNode stats = JSON.readTree(c.statsJson());
            assertEquals(streams, stats.get("completed").asInt());
            assertEquals(0, stats.get("aborted").asInt());
        }
    }

    @Test
    void waitingPrefillsHoldNoThread() throws Exception {
        // every prefill takes 0.5 s (b_p = 1 s at time factor 0.5): 300 of them wait at once
        SimConfig config = SimConfig.builder().prefill(1).decode(1).portBase(0).timeFactor(0.5)
                .prefillFixed(1.0).prefillPerToken(0).build();
        try (SimCluster c = SimCluster.start(config)) {
            int n = 300;
            long start = System.nanoTime();
            HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
                    .connectTimeout(Duration.ofSeconds(60)).build();
            List<CompletableFuture<HttpResponse<String>>> all = new ArrayList<>();
            for (int i = 0; i < n; i++) {
                HttpRequest req = HttpRequest.newBuilder(URI.create(c.prefillUrl(0) + "/v1/completions"))
                        .timeout(Duration.ofSeconds(60)).header("Content-Type", "application/json")
                        .header("X-Request-Id", "pre-" + i)
                        .POST(HttpRequest.BodyPublishers.ofString("{\"prompt\": [1, 2, 3], \"max_tokens\": 1,"
                                + " \"kv_transfer_params\": {\"do_remote_decode\": true}}")).build();
                all.add(client.sendAsync(req, HttpResponse.BodyHandlers.ofString()));
            }
            await("every prefill in flight at once", Duration.ofSeconds(30),
                    () -> json(get(c.prefillUrl(0) + "/load")).get("server_load").asInt() == n
                            || CompletableFuture.allOf(all.toArray(CompletableFuture[]::new)).isDone());
            long pool = clusterThreads().stream().filter(t -> t.getName().startsWith("enginesim-http")).count();
            assertTrue(pool <= maxPoolThreads(config), pool + " pool threads while " + n + " prefills wait");
            for (CompletableFuture<HttpResponse<String>> f : all) {
                HttpResponse<String> r = f.get();
                assertEquals(200, r.statusCode(), r.body());
                assertTrue(json(r).at("/kv_transfer_params/do_remote_prefill").asBoolean(), r.body());
            }
            assertTrue(System.nanoTime() - start >= 450_000_000L, "each waited out its simulated prefill");
            assertEquals(0, json(get(c.prefillUrl(0) + "/load")).get("server_load").asInt());
        }
    }

    @Test
    void headersAsTheJdkServerSentThemAndStreamsChunkedWithTheHeadersAtOnce() throws Exception {
        SimConfig config = SimConfig.builder().prefill(0).decode(1).portBase(0).timeFactor(1).capacity(1)
                .build();
        try (SimCluster c = SimCluster.start(config)) {
            HttpResponse<String> health = get(c.decodeUrl(0) + "/health");
            assertEquals(200, health.statusCode());
            assertFalse(health.headers().firstValue("Server").isPresent(), "no Server header");
            assertTrue(health.headers().firstValue("Date").isPresent(), "a Date header");
            assertEquals(32, health.headers().firstValue("X-Request-Id").orElseThrow().length(), "an id generated");
            HttpResponse<String> whole = SimHttp.post(c.decodeUrl(0) + "/v1/completions",
                    "{\"prompt\": \"hi\", \"max_tokens\": 1}", "X-Request-Id", "abc");
            assertEquals("abc", whole.headers().firstValue("X-Request-Id").orElseThrow());
            assertEquals("application/json", whole.headers().firstValue("Content-Type").orElseThrow());
            assertEquals(String.valueOf(whole.body().getBytes(StandardCharsets.UTF_8).length),
                    whole.headers().firstValue("Content-Length").orElseThrow());

            // capacity 1: a long request runs, the stream behind it waits for its slot, its headers already out
            CompletableFuture<HttpResponse<String>> running = CLIENT.sendAsync(HttpRequest.newBuilder(
                    URI.create(c.decodeUrl(0) + "/v1/completions")).POST(HttpRequest.BodyPublishers.ofString(
                    "{\"prompt\": \"hi\", \"max_tokens\": 200, \"ignore_eos\": true}")).build(),
                    HttpResponse.BodyHandlers.ofString());
            await("the long request to run", Duration.ofSeconds(10),
                    () -> SimHttp.metric(c.decodeUrl(0), "vllm:num_requests_running", 0) == 1);
            HttpResponse<InputStream> waiting = CLIENT.send(HttpRequest.newBuilder(
                    URI.create(c.decodeUrl(0) + "/v1/completions")).POST(HttpRequest.BodyPublishers.ofString(
                    "{\"prompt\": \"hi\", \"max_tokens\": 2, \"ignore_eos\": true, \"stream\": true}")).build(),
                    HttpResponse.BodyHandlers.ofInputStream());
            assertEquals(200, waiting.statusCode(), "the headers came before any token");
            assertEquals(1.0, SimHttp.metric(c.decodeUrl(0), "vllm:num_requests_waiting", 0), "still waiting");
            assertEquals("text/event-stream; charset=utf-8", waiting.headers().firstValue("Content-Type").orElseThrow());
            assertEquals("no-cache", waiting.headers().firstValue("Cache-Control").orElseThrow());
            assertFalse(waiting.headers().firstValue("Content-Length").isPresent());
            c.setTimeFactor(0.001);
            try (InputStream in = waiting.body()) {
                String body = new String(in.readAllBytes(), StandardCharsets.UTF_8);
                assertTrue(body.endsWith("data: [DONE]\n\n"), body);
            }
            assertEquals(200, running.get().statusCode());
        }
    }

    @Test
    void aConnectionIsKeptAliveAndStreamsGoChunked() throws Exception {
        try (SimCluster c = SimCluster.start(SimConfig.builder().prefill(0).decode(1).portBase(0).timeFactor(0.001)
                .build());
             Socket s = new Socket()) {
            s.connect(new InetSocketAddress(c.config().host(), c.decodePort(0)));
            s.setSoTimeout(10_000);
            String body = "{\"prompt\": \"hi\", \"max_tokens\": 3, \"ignore_eos\": true, \"stream\": true}";
            for (int i = 0; i < 2; i++) {
                s.getOutputStream().write(("POST /v1/completions HTTP/1.1\r\nHost: sim\r\nContent-Type: application/json"
                        + "\r\nContent-Length: " + body.length() + "\r\n\r\n" + body).getBytes(StandardCharsets.US_ASCII));
                s.getOutputStream().flush();
                String head = readUntil(s.getInputStream(), "\r\n\r\n");
                assertTrue(head.startsWith("HTTP/1.1 200"), head);
                assertTrue(head.contains("Transfer-Encoding: chunked"), head);
                assertFalse(head.toLowerCase().contains("content-length"), head);
                assertFalse(head.toLowerCase().contains("connection: close"), head);
                String chunks = readUntil(s.getInputStream(), "\r\n0\r\n\r\n");
                assertTrue(chunks.contains("data: [DONE]"), chunks);
            }
        }
    }

    @Test
    void anOversizedBodyJettysOwnRefusalsAndUnknownRoutesAreOpenAiErrorBodies() throws Exception {
        try (SimCluster c = SimCluster.start(SimConfig.builder().prefill(0).decode(1).portBase(0).timeFactor(0.01)
                .build())) {
            String tooLarge = raw(c.decodePort(0), "POST /v1/completions HTTP/1.1\r\nHost: sim\r\nContent-Type:"
                    + " application/json\r\nContent-Length: " + (64L << 20) + "\r\n\r\n{\"prompt\": ");
            assertOpenAiError(tooLarge, 413, "BadRequestError");
            String badLength = raw(c.decodePort(0), "POST /v1/completions HTTP/1.1\r\nHost: sim\r\n"
                    + "Content-Length: abc\r\n\r\n");
            assertOpenAiError(badLength, 400, "BadRequestError");
            String bigHeader = raw(c.decodePort(0), "GET /health HTTP/1.1\r\nHost: sim\r\nX-Big: "
                    + "a".repeat(500_000) + "\r\n\r\n");
            assertOpenAiError(bigHeader, 431, "BadRequestError");
            String longUri = raw(c.decodePort(0), "GET /health?pad=" + "a".repeat(500_000) + " HTTP/1.1\r\nHost: sim\r\n\r\n");
            assertOpenAiError(longUri, 414, "BadRequestError");
            String badLine = raw(c.decodePort(0), "GARBAGE\r\n\r\n");
            assertOpenAiError(badLine, 400, "BadRequestError");
            String badHeader = raw(c.decodePort(0), "GET /health HTTP/1.1\r\nHost: sim\r\nBad Header: y\r\n\r\n");
            assertOpenAiError(badHeader, 400, "BadRequestError");
            String wrongMethod = raw(c.decodePort(0), "DELETE /v1/completions HTTP/1.1\r\nHost: sim\r\n\r\n");
            assertOpenAiError(wrongMethod, 405, "MethodNotAllowedError");
            String unknownPath = raw(c.decodePort(0), "GET /v1/embeddings HTTP/1.1\r\nHost: sim\r\n\r\n");
            assertOpenAiError(unknownPath, 404, "NotFoundError");
            // the JDK server's limit, 384 KiB, not Jetty's default 8 KiB: a 100 KB header is served
            String header100k = raw(c.decodePort(0), "GET /health HTTP/1.1\r\nHost: sim\r\nConnection: close\r\n"
                    + "X-Big: " + "a".repeat(100_000) + "\r\n\r\n");
            assertTrue(header100k.startsWith("HTTP/1.1 200"), header100k);
        }
    }

    @Test
    void closeIsPromptWithAStreamOpenAndLeavesNoThread() throws Exception {
        Set<Thread> before = clusterThreads();
        SimCluster c = SimCluster.start(SimConfig.builder().prefill(1).decode(4).portBase(0).timeFactor(0.05).build());
        HttpResponse<InputStream> open = CLIENT.send(HttpRequest.newBuilder(URI.create(c.decodeUrl(0)
                + "/v1/completions")).POST(HttpRequest.BodyPublishers.ofString("{\"prompt\": \"hi\", \"max_tokens\":"
                + " 100000, \"ignore_eos\": true, \"stream\": true}")).build(), HttpResponse.BodyHandlers.ofInputStream());
        try (InputStream in = open.body()) {
            assertTrue(in.read(new byte[64]) > 0);
            long start = System.nanoTime();
            c.close();
            long ms = (System.nanoTime() - start) / 1_000_000;
            assertTrue(ms < 3000, "close took " + ms + " ms");
            // the stream ends (its in-band error or the closed connection), it does not hang
            try {
                in.readAllBytes();
            } catch (IOException e) {
                // closed under it: fine
            }
        }
        await("the cluster's threads to end", Duration.ofSeconds(10), () -> {
            Set<Thread> left = clusterThreads();
            left.removeAll(before);
            return left.isEmpty();
        });
    }

    static void assertOpenAiError(String response, int status, String type) throws IOException {
        assertTrue(response.startsWith("HTTP/1.1 " + status), response);
        assertTrue(response.contains("Content-Type: application/json"), response);
        JsonNode e = JSON.readTree(response.substring(response.indexOf("\r\n\r\n") + 4)).get("error");
        assertNotNull(e, response);
        assertEquals(type, e.get("type").asText(), response);
        assertEquals(status, e.get("code").asInt(), response);
        assertTrue(e.get("message").isTextual());
        assertTrue(e.has("param"));
    }

    /** Sends the bytes on a new connection and reads until the server closes it or goes quiet. */
    static String raw(int port, String request) throws IOException {
        try (Socket s = new Socket()) {
            s.connect(new InetSocketAddress("127.0.0.1", port));
            s.setSoTimeout(3000);
            try {
                s.getOutputStream().write(request.getBytes(StandardCharsets.US_ASCII));
                s.getOutputStream().flush();
            } catch (java.net.SocketException e) {
                // refused before all of it was sent: its answer may be there to read
            }
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            byte[] buf = new byte[8192];
            try {
                int n;
                while ((n = s.getInputStream().read(buf)) > 0) {
                    out.write(buf, 0, n);
                    String text = out.toString(StandardCharsets.UTF_8);
                    int end = text.indexOf("\r\n\r\n");
                    int length = contentLength(text);
                    if (end >= 0 && length >= 0 && out.size() >= end + 4 + length) {
                        break;
                    }
                }
            } catch (java.net.SocketTimeoutException | java.net.SocketException e) {
                // what came is what there is
            }
            return out.toString(StandardCharsets.UTF_8);
        }
    }

    static int contentLength(String head) {
        for (String line : head.split("\r\n")) {
            if (line.toLowerCase().startsWith("content-length:")) {
                return Integer.parseInt(line.substring("content-length:".length()).trim());
            }
            if (line.isEmpty()) {
                break;
            }
        }
        return -1;
    }

    static String readUntil(InputStream in, String end) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        while (!out.toString(StandardCharsets.US_ASCII).endsWith(end)) {
            int b = in.read();
            if (b < 0) {
                throw new IOException("closed before " + end.replace("\r\n", "\\r\\n") + ": " + out);
            }
            out.write(b);
        }
        return out.toString(StandardCharsets.US_ASCII);
    }
}
