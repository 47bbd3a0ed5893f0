package org.balanceroute.enginesim;

import static org.balanceroute.enginesim.SimHttp.JSON;
import static org.balanceroute.enginesim.SimHttp.await;
import static org.balanceroute.enginesim.SimHttp.get;
import static org.balanceroute.enginesim.SimHttp.json;
import static org.balanceroute.enginesim.SimHttp.metric;
import static org.balanceroute.enginesim.SimHttp.post;
import static org.balanceroute.enginesim.SimHttp.stats;
import static org.balanceroute.enginesim.SimHttp.stream;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.CompletableFuture;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The engine contract (docs/vllm-contract.md) over real HTTP against an in-process cluster. */
class EngineContractTest {

    static final AtomicLong CLOCK = new AtomicLong();
    static SimCluster cluster;
    static String model;

    @BeforeAll
    static void start() throws Exception {
        cluster = SimCluster.start(SimConfig.builder().prefill(2).decode(3).portBase(0).timeFactor(0.01)
                .handleTtlSeconds(480).handleClockNanos(CLOCK::get).build());
        model = cluster.config().model();
    }

    @AfterAll
    static void stop() {
        cluster.close();
    }

    @BeforeEach
    void clearFaults() throws Exception {
        cluster.applyFaults("{\"clear\": true}");
    }

    private static JsonNode prefill(int i, String body, String requestId) throws Exception {
        ObjectNode b = (ObjectNode) JSON.readTree(body);
        ObjectNode kv = b.putObject("kv_transfer_params");
        kv.put("do_remote_decode", true).put("do_remote_prefill", false).putNull("remote_engine_id")
                .putNull("remote_block_ids").putNull("remote_host").putNull("remote_port");
        b.put("stream", false).put("max_tokens", 1).put("min_tokens", 1);
        b.remove("stream_options");
        HttpResponse<String> r = post(cluster.prefillUrl(i) + "/v1/completions", b.toString(), "X-Request-Id", requestId);
        assertEquals(200, r.statusCode(), r.body());
        assertEquals(requestId, r.headers().firstValue("X-Request-Id").orElseThrow());
        return json(r);
    }

    private static String withKv(String body, JsonNode kv) throws Exception {
        ObjectNode b = (ObjectNode) JSON.readTree(body);
        b.set("kv_transfer_params", kv);
        return b.toString();
    }

    @Test
    void prefillThenDecodeWithAValidHandleStreamsExactlyMaxTokens() throws Exception {
        String client = "{\"model\": \"" + model + "\", \"prompt\": [1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,"
                + "19,20], \"max_tokens\": 7, \"ignore_eos\": true, \"stream\": true,"
                + " \"stream_options\": {\"include_usage\": true}}";
        JsonNode pre = prefill(1, client, "req-1");
        assertEquals("text_completion", pre.get("object").asText());
        assertEquals(20, pre.at("/usage/prompt_tokens").asInt(), "token-id prompt: length of the array");
        assertEquals(1, pre.at("/usage/completion_tokens").asInt());
        JsonNode kv = pre.get("kv_transfer_params");
        assertTrue(kv.get("do_remote_prefill").asBoolean());
        assertFalse(kv.get("do_remote_decode").asBoolean());
        assertTrue(kv.get("remote_engine_id").asText().endsWith("_dp1"), kv.toString());
        for (String f : new String[] {"remote_block_ids", "remote_host", "remote_port", "remote_request_id"}) {
            assertNotNull(kv.get(f), f);
        }

        SimHttp.Sse s = stream(cluster.decodeUrl(2) + "/v1/completions", withKv(client, kv), "X-Request-Id", "req-1");
        assertEquals(200, s.status());
        assertTrue(s.done(), "ends with [DONE]");
        StringBuilder text = new StringBuilder();
        int tokenChunks = 0;
        for (JsonNode e : s.events()) {
            assertEquals("text_completion", e.get("object").asText());
            assertEquals("cmpl-req-1", e.get("id").asText());
            if (e.get("choices").size() > 0) {
                text.append(e.at("/choices/0/text").asText());
                tokenChunks++;
            }
        }
        assertEquals(7, tokenChunks, "stream interval 1: one token per chunk");
        JsonNode last = s.events().get(s.events().size() - 1);
        assertEquals(0, last.get("choices").size(), "usage chunk has choices: []");
        assertEquals(20, last.at("/usage/prompt_tokens").asInt(), "prompt length from the handle");
        assertEquals(7, last.at("/usage/completion_tokens").asInt());
        assertEquals(27, last.at("/usage/total_tokens").asInt());
        assertEquals("length", s.events().get(s.events().size() - 2).at("/choices/0/finish_reason").asText());
        assertEquals(7, text.toString().split(" ").length - 1);
    }

    @Test
    void chatThroughTheAllRanksEndpointHonoursTheRankHeader() throws Exception {
        String client = "{\"messages\": [{\"role\": \"system\", \"content\": \"be brief\"}, {\"role\": \"user\","
                + " \"content\": \"What is a barrier?\"}], \"max_tokens\": 5, \"ignore_eos\": true, \"stream\": true,"
                + " \"stream_options\": {\"include_usage\": true, \"continuous_usage_stats\": true}}";
        JsonNode before = stats(cluster.allRanksUrl()).get("ranks");
        HttpResponse<String> pre = post(cluster.prefillUrl(0) + "/v1/chat/completions",
                "{\"messages\": [{\"role\": \"system\", \"content\": \"be brief\"}, {\"role\": \"user\","
                        + " \"content\": \"What is a barrier?\"}], \"max_tokens\": 1, \"stream\": false,"
                        + " \"kv_transfer_params\": {\"do_remote_decode\": true}}");
        assertEquals(200, pre.statusCode(), pre.body());
        JsonNode preJson = json(pre);
        assertEquals("chat.completion", preJson.get("object").asText());
        int promptTokens = (("be brief" + "What is a barrier?").length() + 3) / 4;
        assertEquals(promptTokens, preJson.at("/usage/prompt_tokens").asInt(), "text: ceil(chars / 4)");

        SimHttp.Sse s = stream(cluster.allRanksUrl() + "/v1/chat/completions",
                withKv(client, preJson.get("kv_transfer_params")), "X-data-parallel-rank", "1");
        assertEquals(200, s.status(), s.raw());
        assertTrue(s.done());
        JsonNode first = s.events().get(0);
        assertEquals("chat.completion.chunk", first.get("object").asText());
        assertEquals("assistant", first.at("/choices/0/delta/role").asText());
        assertEquals("", first.at("/choices/0/delta/content").asText());
        int tokens = 0;
        for (JsonNode e : s.events()) {
            assertEquals("chat.completion.chunk", e.get("object").asText());
            assertNotNull(e.get("usage"), "continuous usage on every chunk: " + e);
            if (e.get("choices").size() > 0 && e.at("/choices/0/delta/content").asText().length() > 0) {
                tokens++;
                assertEquals(tokens, e.at("/usage/completion_tokens").asInt(), "cumulative usage");
            }
        }
        assertEquals(5, tokens);
        JsonNode after = stats(cluster.allRanksUrl()).get("ranks");
        assertEquals(5, after.get(1).get("outputTokens").asLong() - before.get(1).get("outputTokens").asLong(),
                "X-data-parallel-rank: 1 ran on rank 1");
        assertEquals(before.get(0).get("outputTokens").asLong(), after.get(0).get("outputTokens").asLong());
    }

    @Test
    void nonStreamingOnBothEndpoints() throws Exception {
        String body = "{\"prompt\": \"Once upon a time\", \"max_tokens\": 6, \"ignore_eos\": true}";
        for (String url : new String[] {cluster.decodeUrl(0), cluster.allRanksUrl()}) {
            HttpResponse<String> r = post(url + "/v1/completions", body, "X-Request-Id", "plain-1");
            assertEquals(200, r.statusCode(), r.body());
            assertEquals("plain-1", r.headers().firstValue("X-Request-Id").orElseThrow());
            JsonNode j = json(r);
            assertEquals("text_completion", j.get("object").asText());
            assertEquals(6, j.at("/usage/completion_tokens").asInt());
            assertEquals(4, j.at("/usage/prompt_tokens").asInt());
            assertEquals("length", j.at("/choices/0/finish_reason").asText());
            HttpResponse<String> c = post(url + "/v1/chat/completions",
                    "{\"messages\": [{\"role\": \"user\", \"content\": \"hi\"}], \"max_completion_tokens\": 3,"
                            + " \"ignore_eos\": true}");
            assertEquals(200, c.statusCode(), c.body());
            assertEquals("chat.completion", json(c).get("object").asText());
            assertEquals(3, json(c).at("/usage/completion_tokens").asInt());
            assertEquals("assistant", json(c).at("/choices/0/message/role").asText());
        }
    }

    @Test
    void withoutIgnoreEosTheOutputIsASeededDrawWithinMinAndMaxTokens() throws Exception {
        for (int i = 0; i < 10; i++) {
            JsonNode j = json(post(cluster.decodeUrl(1) + "/v1/completions",
                    "{\"prompt\": \"x\", \"max_tokens\": 20, \"min_tokens\": 5}", "X-Request-Id", "draw-" + i));
            int n = j.at("/usage/completion_tokens").asInt();
            assertTrue(n >= 5 && n <= 20, "drawn " + n);
            assertEquals(n == 20 ? "length" : "stop", j.at("/choices/0/finish_reason").asText());
            JsonNode again = json(post(cluster.decodeUrl(2) + "/v1/completions",
                    "{\"prompt\": \"x\", \"max_tokens\": 20, \"min_tokens\": 5}", "X-Request-Id", "draw-" + i));
            assertEquals(n, again.at("/usage/completion_tokens").asInt(), "same id, same seed: same length");
        }
    }

    @Test
    void forgedReusedAndExpiredHandlesFailWith400() throws Exception {
        String client = "{\"prompt\": \"hello\", \"max_tokens\": 3, \"ignore_eos\": true}";
        // forged: never issued
        JsonNode forged = JSON.readTree("{\"do_remote_prefill\": true, \"do_remote_decode\": false,"
                + " \"remote_engine_id\": \"x_dp0\", \"remote_block_ids\": [0], \"remote_host\": \"127.0.0.1\","
                + " \"remote_port\": 1, \"remote_request_id\": \"nope\"}");
        HttpResponse<String> r = post(cluster.decodeUrl(0) + "/v1/completions", withKv(client, forged));
        assertError(r, 400, "BadRequestError");

        // tampered: a real id with another engine id
        JsonNode kv = prefill(0, client, "tamper").get("kv_transfer_params");
        ObjectNode tampered = kv.deepCopy();
        tampered.put("remote_engine_id", "someone-else_dp0");
        assertError(post(cluster.decodeUrl(0) + "/v1/completions", withKv(client, tampered)), 400, "BadRequestError");

        // valid once, then reused
        kv = prefill(0, client, "reuse").get("kv_transfer_params");
        assertEquals(200, post(cluster.decodeUrl(0) + "/v1/completions", withKv(client, kv)).statusCode());
        HttpResponse<String> reused = post(cluster.decodeUrl(1) + "/v1/completions", withKv(client, kv));
        assertError(reused, 400, "BadRequestError");
        assertTrue(json(reused).at("/error/message").asText().contains("already used"), reused.body());

        // expired: the handle clock moves past the TTL
        kv = prefill(0, client, "expire").get("kv_transfer_params");
        CLOCK.addAndGet(481_000_000_000L);
        HttpResponse<String> expired = post(cluster.decodeUrl(0) + "/v1/completions", withKv(client, kv));
        assertError(expired, 400, "BadRequestError");
        assertTrue(json(expired).at("/error/message").asText().contains("expired"), expired.body());

        // streaming too: the refusal comes before the stream, as an HTTP 400
        JsonNode kv2 = prefill(0, client, "stream-forged").get("kv_transfer_params");
        ObjectNode bad = kv2.deepCopy();
        bad.put("remote_request_id", "forged");
        ObjectNode streamBody = (ObjectNode) JSON.readTree(withKv(client, bad));
        streamBody.put("stream", true);
        assertError(post(cluster.allRanksUrl() + "/v1/completions", streamBody.toString()), 400, "BadRequestError");
    }

    @Test
    void cutStreamEndsWithAnInBandErrorThenDone() throws Exception {
        cluster.applyFaults("{\"rank\": 2, \"cutAfterTokens\": 3}");
        SimHttp.Sse s = stream(cluster.decodeUrl(2) + "/v1/completions",
                "{\"prompt\": \"hi\", \"max_tokens\": 10, \"ignore_eos\": true, \"stream\": true}");
        assertEquals(200, s.status());
        assertTrue(s.done(), "[DONE] after the in-band error");
        JsonNode last = s.events().get(s.events().size() - 1);
        assertNotNull(last.get("error"), s.raw());
        assertEquals(500, last.at("/error/code").asInt());
        assertTrue(last.at("/error/message").isTextual());
        assertTrue(last.get("error").has("param"));
        assertEquals(4, s.events().size(), "3 token chunks then the error");
        // non-streaming: a cut request fails with the error body
        HttpResponse<String> r = post(cluster.decodeUrl(2) + "/v1/completions",
                "{\"prompt\": \"hi\", \"max_tokens\": 10, \"ignore_eos\": true}");
        assertError(r, 500, "InternalServerError");
    }

    @Test
    void failNextRequestsGive500BeforeStreaming() throws Exception {
        post(cluster.allRanksUrl() + "/sim/faults", "{\"rank\": 1, \"failNext\": 2}");
        String body = "{\"prompt\": \"hi\", \"max_tokens\": 2, \"stream\": true}";
        assertError(post(cluster.decodeUrl(1) + "/v1/completions", body), 500, "InternalServerError");
        assertError(post(cluster.allRanksUrl() + "/v1/completions", body, "X-data-parallel-rank", "1"), 500,
                "InternalServerError");
        assertEquals(200, post(cluster.decodeUrl(1) + "/v1/completions", body).statusCode());
        post(cluster.prefillUrl(0) + "/sim/faults", "{\"prefill\": 0, \"failNext\": 1}");
        String pre = "{\"prompt\": \"hi\", \"max_tokens\": 1, \"kv_transfer_params\": {\"do_remote_decode\": true}}";
        assertError(post(cluster.prefillUrl(0) + "/v1/completions", pre), 500, "InternalServerError");
        assertEquals(200, post(cluster.prefillUrl(0) + "/v1/completions", pre).statusCode());
    }

    @Test
    void aRankGoesDownAndComesBack() throws Exception {
        assertEquals(200, get(cluster.decodeUrl(0) + "/health").statusCode());
        HttpResponse<String> f = post(cluster.decodeUrl(0) + "/sim/faults", "{\"down\": true}");
        assertEquals(200, f.statusCode(), f.body());
        assertEquals(503, get(cluster.decodeUrl(0) + "/health").statusCode());
        assertEquals(503, get(cluster.allRanksUrl() + "/health").statusCode());
        assertEquals(200, get(cluster.decodeUrl(1) + "/health").statusCode());
        String body = "{\"prompt\": \"hi\", \"max_tokens\": 2}";
        assertError(post(cluster.decodeUrl(0) + "/v1/completions", body), 503, "ServiceUnavailableError");
        assertError(post(cluster.allRanksUrl() + "/v1/completions", body, "X-data-parallel-rank", "0"), 503,
                "ServiceUnavailableError");
        // the all-ranks balancer avoids the down rank
        assertEquals(200, post(cluster.allRanksUrl() + "/v1/completions", body).statusCode());
        post(cluster.decodeUrl(0) + "/sim/faults", "{\"down\": false}");
        assertEquals(200, get(cluster.decodeUrl(0) + "/health").statusCode());
        assertEquals(200, post(cluster.decodeUrl(0) + "/v1/completions", body).statusCode());
        // the prefill tier too
        post(cluster.prefillUrl(1) + "/sim/faults", "{\"prefill\": 1, \"down\": true}");
        assertEquals(503, get(cluster.prefillUrl(1) + "/health").statusCode());
        post(cluster.prefillUrl(1) + "/sim/faults", "{\"prefill\": 1, \"down\": false}");
        assertEquals(200, get(cluster.prefillUrl(1) + "/health").statusCode());
    }

    @Test
    void badRequestsGetOpenAiErrorBodies() throws Exception {
        assertError(post(cluster.decodeUrl(0) + "/v1/completions", "{not json"), 400, "BadRequestError");
        assertError(post(cluster.decodeUrl(0) + "/v1/completions", "{\"max_tokens\": 3}"), 400, "BadRequestError");
        assertError(post(cluster.decodeUrl(0) + "/v1/completions", "{\"prompt\": \"x\", \"max_tokens\": 0}"), 400,
                "BadRequestError");
        assertError(post(cluster.decodeUrl(0) + "/v1/completions", "{\"prompt\": \"x\", \"model\": \"gpt-9\"}"), 404,
                "NotFoundError");
        assertError(post(cluster.allRanksUrl() + "/v1/completions", "{\"prompt\": \"x\"}", "X-data-parallel-rank",
                "7"), 400, "BadRequestError");
        assertError(post(cluster.prefillUrl(0) + "/v1/completions", "{\"prompt\": \"x\"}"), 400, "BadRequestError");
        assertError(post(cluster.decodeUrl(0) + "/sim/faults", "{\"slowFactor\": 0.5}"), 400, "BadRequestError");
        assertError(get(cluster.decodeUrl(0) + "/nope"), 404, "NotFoundError");
    }

    /** vLLM's request schema: a field of the wrong type is its 400, naming the field in pydantic's words. */
    @Test
    void fieldsOfTheWrongTypeAreRefusedAsVllmRefusesThem() throws Exception {
        String cmp = cluster.decodeUrl(0) + "/v1/completions";
        String chat = cluster.decodeUrl(0) + "/v1/chat/completions";
        assertSchemaError(post(cmp, "{\"prompt\": \"x\", \"temperature\": \"hot\"}"), "temperature",
                "temperature: Input should be a valid number, unable to parse string as a number");
        assertSchemaError(post(chat, "{\"messages\": [{\"role\": \"user\", \"content\": 42}]}"), "messages",
                "messages.0.content: Input should be a valid string or a list of content parts");
        assertSchemaError(post(cmp, "{\"prompt\": \"x\", \"stop\": [1]}"), "stop",
                "stop: Input should be a valid string or a list of strings");
        assertSchemaError(post(cmp, "{\"prompt\": \"x\", \"max_tokens\": 2.5}"), "max_tokens",
                "max_tokens: Input should be a valid integer, got a number with a fractional part");
        assertSchemaError(post(cluster.prefillUrl(0) + "/v1/completions", "{\"prompt\": \"x\", \"seed\": \"s\"}"),
                "seed", "seed: Input should be a valid integer, unable to parse string as an integer");
    }

    /** What pydantic's lax mode takes, vLLM serves: a numeric string, a float without a fraction, "true". */
    @Test
    void valuesVllmCoercesAreServed() throws Exception {
        HttpResponse<String> r = post(cluster.decodeUrl(0) + "/v1/completions", "{\"prompt\": \"x\","
                + " \"max_tokens\": \"3\", \"n\": 1.0, \"ignore_eos\": \"true\", \"temperature\": \"0.5\"}");
        assertEquals(200, r.statusCode(), r.body());
        assertEquals(3, json(r).at("/usage/completion_tokens").asInt(), r.body());
    }

    private static void assertSchemaError(HttpResponse<String> r, String param, String message) throws Exception {
        assertError(r, 400, "BadRequestError");
        assertEquals(param, json(r).at("/error/param").asText(), r.body());
        assertEquals(message, json(r).at("/error/message").asText(), r.body());
    }

    @Test
    void modelsMetricsAndStreamInterval() throws Exception {
        JsonNode models = json(get(cluster.decodeUrl(0) + "/v1/models"));
        assertEquals(model, models.at("/data/0/id").asText());
        String metrics = get(cluster.allRanksUrl() + "/metrics").body();
        for (int g = 0; g < 3; g++) {
            assertTrue(metrics.contains("vllm:num_requests_running{engine=\"" + g + "\""), metrics);
            assertTrue(metrics.contains("vllm:num_requests_waiting{engine=\"" + g + "\""), metrics);
            assertTrue(metrics.contains("enginesim:kv_tokens{engine=\"" + g + "\""), metrics);
        }
        assertEquals(0, json(get(cluster.decodeUrl(1) + "/load")).get("server_load").asInt());
        String rank1 = get(cluster.decodeUrl(1) + "/metrics").body();
        assertTrue(rank1.contains("engine=\"1\"") && !rank1.contains("engine=\"0\""), rank1);

        try (SimCluster c = SimCluster.start(SimConfig.builder().prefill(0).decode(1).portBase(0)
                .allRanksEndpoint(false).timeFactor(0.01).streamInterval(4).build())) {
            assertEquals(null, c.allRanksUrl());
            SimHttp.Sse s = stream(c.decodeUrl(0) + "/v1/completions", "{\"prompt\": \"hi\", \"max_tokens\": 10,"
                    + " \"ignore_eos\": true, \"stream\": true, \"stream_options\": {\"include_usage\": true}}");
            int chunks = 0;
            int words = 0;
            for (JsonNode e : s.events()) {
                if (e.get("choices").size() > 0) {
                    chunks++;
                    words += e.at("/choices/0/text").asText().split(" ").length - 1;
                }
            }
            assertEquals(3, chunks, "10 tokens at 4 per chunk: 4 + 4 + 2");
            assertEquals(10, words);
            assertEquals(10, s.events().get(s.events().size() - 1).at("/usage/completion_tokens").asInt());
        }
    }

    @Test
    void aClientThatGoesAwayIsAbortedAndReleased() throws Exception {
        try (SimCluster c = SimCluster.start(SimConfig.builder().prefill(0).decode(1).portBase(0)
                .timeFactor(0.05).build())) {
            HttpRequest req = HttpRequest.newBuilder(URI.create(c.decodeUrl(0) + "/v1/completions"))
                    .POST(HttpRequest.BodyPublishers.ofString("{\"prompt\": \"hi\", \"max_tokens\": 100000,"
                            + " \"ignore_eos\": true, \"stream\": true}")).build();
            HttpResponse<InputStream> r = SimHttp.CLIENT.send(req, HttpResponse.BodyHandlers.ofInputStream());
            try (InputStream in = r.body()) {
                assertTrue(in.read(new byte[64]) > 0);
            }
            await("the rank to release the request", Duration.ofSeconds(20),
                    () -> metric(c.decodeUrl(0), "vllm:num_requests_running", 0) == 0
                            && stats(c.decodeUrl(0)).get("aborted").asLong() == 1);
        }
    }

    @Test
    void aClientThatDoesNotReadIsCutAndReleased() throws Exception {
        try (SimCluster c = SimCluster.start(SimConfig.builder().prefill(0).decode(1).portBase(0)
                .timeFactor(0.001).streamQueueChunks(16).build());
             Socket s = new Socket()) {
            s.setReceiveBufferSize(4096);
            s.connect(new InetSocketAddress(c.config().host(), c.decodePort(0)));
            String body = "{\"prompt\": \"hi\", \"max_tokens\": 10000000, \"ignore_eos\": true, \"stream\": true}";
            s.getOutputStream().write(("POST /v1/completions HTTP/1.1\r\nHost: sim\r\nContent-Type: application/json\r\n"
                    + "Content-Length: " + body.length() + "\r\n\r\n" + body).getBytes(StandardCharsets.US_ASCII));
            s.getOutputStream().flush();
            // never read: the writer blocks, its queue fills, the loop cuts the request (it keeps stepping)
            await("the slow stream to be cut", Duration.ofSeconds(60),
                    () -> stats(c.decodeUrl(0)).get("aborted").asLong() == 1
                            && metric(c.decodeUrl(0), "vllm:num_requests_running", 0) == 0);
        }
    }

    @Test
    void withoutTheRankHeaderTheAllRanksEndpointPicksTheLowestFourWaitingPlusRunning() throws Exception {
        try (SimCluster c = SimCluster.start(SimConfig.builder().prefill(0).decode(3).portBase(0)
                .timeFactor(1).stepB(0.02).build())) {
            String longBody = "{\"prompt\": \"hi\", \"max_tokens\": 40, \"ignore_eos\": true}";
            CompletableFuture<?>[] busy = new CompletableFuture<?>[2];
            for (int g = 0; g < 2; g++) {
                String rank = String.valueOf(g);
                busy[g] = CompletableFuture.runAsync(() -> {
                    try {
                        assertEquals(200, post(c.allRanksUrl() + "/v1/completions", longBody,
                                "X-data-parallel-rank", rank).statusCode());
                    } catch (Exception e) {
                        throw new IllegalStateException(e);
                    }
                });
            }
            await("ranks 0 and 1 to run", Duration.ofSeconds(10),
                    () -> metric(c.allRanksUrl(), "vllm:num_requests_running", 0) == 1
                            && metric(c.allRanksUrl(), "vllm:num_requests_running", 1) == 1);
            HttpResponse<String> r = post(c.allRanksUrl() + "/v1/completions",
                    "{\"prompt\": \"hi\", \"max_tokens\": 2, \"ignore_eos\": true}");
            assertEquals(200, r.statusCode(), r.body());
            assertEquals(2, stats(c.allRanksUrl()).at("/ranks/2/outputTokens").asLong(), "went to the idle rank 2");
            CompletableFuture.allOf(busy).get();
        }
    }

    static void assertError(HttpResponse<String> r, int status, String type) throws Exception {
        assertEquals(status, r.statusCode(), r.body());
        JsonNode e = json(r).get("error");
        assertNotNull(e, r.body());
        assertEquals(type, e.get("type").asText(), r.body());
        assertEquals(status, e.get("code").asInt());
        assertTrue(e.get("message").isTextual());
        assertTrue(e.has("param"));
    }
}
