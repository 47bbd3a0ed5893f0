package org.balanceroute.proxy.internal;

import static org.balanceroute.proxy.internal.FlowFakes.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import org.awaitility.Awaitility;
import org.balanceroute.connector.vllm.DecodeListener;
import org.balanceroute.connector.vllm.PrefillQueueFullException;
import org.balanceroute.connector.vllm.UpstreamException;
import org.balanceroute.proxy.ProxyObserver.Outcome;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The flow against fakes: admission, heartbeats, errors before and after the commit, disconnects, recomputation. */
class CompletionFlowTest {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String STREAM = "{\"model\": \"m\", \"prompt\": \"Say:\", \"max_tokens\": 10, \"stream\": true}";

    private final FlowFakes.Router router = new FlowFakes.Router();
    private final FlowFakes.Connector connector = new FlowFakes.Connector();
    private final FlowFakes.Observer observer = new FlowFakes.Observer();
    private final List<FlowFakes.Sink> sinks = new ArrayList<>();
    private CompletionFlow flow;

    private CompletionFlow flow(int maxPoolDepth, long placementTimeoutMillis, long pingIntervalMillis,
            int maxRecomputes) {
        flow = new CompletionFlow(router, connector, new ProxySettings(1 << 20, placementTimeoutMillis, 64,
                maxPoolDepth, 3, pingIntervalMillis, maxRecomputes, ProxyConfig.DEFAULT_MAX_TOKENS_LIMIT,
                ProxyConfig.DEFAULT_HOLD_TIMEOUT_MILLIS, ProxyConfig.DEFAULT_MAX_HELD_REQUESTS,
                ProxyConfig.DEFAULT_CLIENT_STALL_MILLIS, false), FlowFakes.sinks(sinks));
        flow.observer(observer);
        return flow;
    }

    @AfterEach
    void close() {
        if (flow != null) {
            flow.close();
        }
    }

    private FlowFakes.Async send(Endpoint endpoint, String body) {
        FlowFakes.Async async = new FlowFakes.Async();
        flow.handle(endpoint, body.getBytes(StandardCharsets.UTF_8), "req-1", async);
        return async;
    }

    private static JsonNode entity(FlowFakes.Async async) throws Exception {
        return JSON.readTree((byte[]) async.response.getEntity());
    }

    private String written() {
        return sinks.get(0).written.toString();
    }

    /** The data of every event written to the client, in order. */
    private List<String> events() {
        List<String> out = new ArrayList<>();
        for (String frame : written().split("\n\n")) {
            if (frame.startsWith("data: ")) {
                out.add(frame.substring(6));
            }
        }
        return out;
    }

    /** Completes hop i's prefill (placed at once) and returns its decode listener. */
    private DecodeListener hop(int i) throws InterruptedException {
        await("prefill " + (i + 1), () -> connector.prefills.size() == i + 1);
        connector.prefilled(i);
        await("decode " + (i + 1), () -> connector.decodes.size() == i + 1);
        return connector.decodes.get(i);
    }

    private static void stream(DecodeListener decode, String... events) {
        decode.onHeaders(200, true);
        for (String e : events) {
            decode.onEvent(e);
        }
    }

    @Test
    void aFullPoolRefusesBeforePrefillWith429AndRetryAfter() throws Exception {
        flow(4, 1000, 0, 0);
        router.poolDepth = 4;
        FlowFakes.Async async = send(Endpoint.COMPLETIONS, STREAM);
        assertEquals(429, async.response.getStatus());
        assertEquals("3", async.response.getHeaderString("Retry-After"));
        JsonNode error = entity(async).path("error");
        assertEquals("rate_limit_error", error.path("type").asText());
        assertTrue(error.path("message").asText().contains("prompt pool is full (4 requests"), error.toString());
        assertTrue(error.path("param").isNull());
        assertEquals(429, error.path("code").asInt());
        assertTrue(connector.prefills.isEmpty(), "no prefill for a refused request");
        assertEquals(List.of(Outcome.REJECTED), List.copyOf(observer.outcomes));

        router.poolDepth = 3;
        send(Endpoint.COMPLETIONS, STREAM);
        assertEquals(1, connector.prefills.size(), "below the limit: admitted");
    }

    @Test
    void zeroMaxPoolDepthIsUnbounded() {
        flow(0, 1000, 0, 0);
        router.poolDepth = 1_000_000;
        FlowFakes.Async async = send(Endpoint.COMPLETIONS, STREAM);
        assertEquals(1, connector.prefills.size());
        assertFalse(async.isDone());
    }

    @Test
    void aFullPrefillQueueIs429WithRetryAfterAndNothingReachesTheRouter() throws Exception {
        flow(0, 1000, 60_000, 0);
        FlowFakes.Async async = send(Endpoint.COMPLETIONS, STREAM);
        connector.prefills.get(0).completeExceptionally(new PrefillQueueFullException("prefill queue full (4096)"));
        await("the answer", async::isDone);
        assertEquals(429, async.response.getStatus());
        assertEquals("3", async.response.getHeaderString("Retry-After"));
        JsonNode error = entity(async).path("error");
        assertEquals("rate_limit_error", error.path("type").asText());
        assertEquals("prefill queue full (4096)", error.path("message").asText());
        assertEquals(List.of(Outcome.REJECTED), List.copyOf(observer.outcomes));
        assertTrue(router.order.isEmpty(), "back-pressure before the pool");
    }

    @Test
    void beforeTheFirstPingAPrefillErrorKeepsItsStatus() throws Exception {
        flow(0, 1000, 60_000, 0);
        FlowFakes.Async async = send(Endpoint.COMPLETIONS, STREAM);
        connector.prefills.get(0).completeExceptionally(new UpstreamException(500,
                "{\"error\": {\"message\": \"boom\", \"type\": \"server_error\", \"param\": null, \"code\": 500}}"
                        .getBytes(StandardCharsets.UTF_8), "prefill failed", null));
        await("the answer", async::isDone);
        assertEquals(500, async.response.getStatus());
        assertEquals("boom", entity(async).path("error").path("message").asText());
        assertTrue(sinks.isEmpty(), "no event stream was opened");
    }

    @Test
    void pingsCommitTheStreamEarlyAndALaterPrefillErrorGoesInBand() throws Exception {
        flow(0, 1000, 100, 0);
        FlowFakes.Async async = send(Endpoint.COMPLETIONS, STREAM);
        await("the 200 event stream", async::isDone);
        assertEquals(200, async.response.getStatus());
        assertEquals(CompletionFlow.EVENT_STREAM, async.response.getMediaType().toString());
        await("two pings", () -> written().split(": ping\n\n", -1).length >= 3);
        connector.prefills.get(0).completeExceptionally(new UpstreamException(503, null, "prefill failed", null));
        await("the stream closed", () -> sinks.get(0).closed);
        List<String> events = events();
        assertEquals(2, events.size(), written());
        assertTrue(JSON.readTree(events.get(0)).path("error").path("message").asText().contains("503"), written());
        assertEquals("[DONE]", events.get(1));
        await("the outcome", () -> observer.outcomes.contains(Outcome.ERROR));
        int length = written().length();
        // no ping may follow the end: the output stays as it is, for longer than a ping's interval
        Awaitility.await("pings stopped").during(Duration.ofMillis(300)).atMost(Duration.ofSeconds(10))
                .until(() -> written().length() == length);
    }

    @Test
    void aPoolTimeoutAfterThePingsIsAnInBand503AndReleasesTheRequest() throws Exception {
        flow(0, 400, 100, 0);
        router.placeAtOnce = false;
        send(Endpoint.COMPLETIONS, STREAM);
        connector.prefilled(0);
        await("the stream closed", () -> !sinks.isEmpty() && sinks.get(0).closed);
        assertTrue(written().startsWith(": ping\n\n"), written());
        JsonNode error = JSON.readTree(events().get(0)).path("error");
        assertEquals(503, error.path("code").asInt());
        assertEquals("service_unavailable_error", error.path("type").asText());
        assertEquals("[DONE]", events().get(1));
        assertEquals(0, router.inFlight(), "aborted in the router");
        await("the outcome", () -> observer.outcomes.contains(Outcome.TIMEOUT));
    }

    @Test
    void aPoolTimeoutWithoutPingsIs503() throws Exception {
        flow(0, 100, 0, 0);
        router.placeAtOnce = false;
        FlowFakes.Async async = send(Endpoint.CHAT_COMPLETIONS,
                "{\"model\": \"m\", \"messages\": [{\"role\": \"user\", \"content\": \"hi\"}], \"stream\": true}");
        connector.prefilled(0);
        await("the answer", async::isDone);
        assertEquals(503, async.response.getStatus());
        assertTrue(entity(async).path("error").path("message").asText().contains("waited more than 100 ms"));
        assertEquals(0, router.inFlight());
    }

    @Test
    void aClientGoneWhileWaitingInThePoolIsAbortedAtOnce() throws Exception {
        flow(0, 60_000, 100, 0);
        router.placeAtOnce = false;
        send(Endpoint.COMPLETIONS, STREAM);
        connector.prefilled(0);
        await("submitted", () -> router.order.size() == 1);
        await("a ping", () -> !sinks.isEmpty() && written().contains(": ping"));
        sinks.get(0).gone = true;
        await("the request aborted", () -> router.aborted.containsAll(router.order));
        assertEquals(0, router.inFlight());
        await("the outcome", () -> observer.outcomes.contains(Outcome.CLIENT_DISCONNECT));
        assertTrue(connector.decodes.isEmpty(), "no decode for a client that left");
        assertEquals(List.of(Outcome.CLIENT_DISCONNECT), List.copyOf(observer.outcomes));
    }

    @Test
    void aClientGoneDuringPrefillCancelsItAndNothingReachesTheRouter() throws Exception {
        flow(0, 60_000, 100, 0);
        send(Endpoint.COMPLETIONS, STREAM);
        await("a ping", () -> !sinks.isEmpty() && written().contains(": ping"));
        sinks.get(0).gone = true;
        await("the prefill cancelled", () -> connector.prefills.get(0).isCancelled());
        await("the outcome", () -> observer.outcomes.contains(Outcome.CLIENT_DISCONNECT));
        assertTrue(router.order.isEmpty(), "never submitted");
    }

    @Test
    void afterEarlyCommitTheDecodeStreamsOnTheSameOutput() throws Exception {
        flow(0, 60_000, 100, 0);
        FlowFakes.Async async = send(Endpoint.COMPLETIONS, STREAM);
        await("a ping", () -> !sinks.isEmpty() && written().contains(": ping"));
        stream(hop(0), "{\"id\": \"c1\", \"choices\": [{\"index\": 0, \"text\": \"A\"}]}", "[DONE]");
        await("the stream closed", () -> sinks.get(0).closed);
        assertEquals(1, sinks.size(), "one output for the client");
        assertEquals(List.of("{\"id\": \"c1\", \"choices\": [{\"index\": 0, \"text\": \"A\"}]}", "[DONE]"), events());
        assertEquals(200, async.response.getStatus());
        assertEquals(List.copyOf(router.order), List.copyOf(router.completed));
    }

    @Test
    void aFinishedStreamLeavesNoHeartbeatQueued() throws Exception {
        flow(0, 60_000, 600_000, 0);
        ScheduledThreadPoolExecutor timer = (ScheduledThreadPoolExecutor) flow.pings();
        send(Endpoint.COMPLETIONS, STREAM);
        await("the heartbeat scheduled", () -> heartbeats(timer) == 1);
        stream(hop(0), "{\"id\": \"c1\", \"choices\": [{\"index\": 0, \"text\": \"A\"}]}", "[DONE]");
        await("the stream closed", () -> sinks.get(0).closed);
        // a cancelled heartbeat left in the queue would stay there for the whole interval: at
        // hundreds of requests a second with the default 15 s, thousands of them
        await("the heartbeat gone from the timer", () -> heartbeats(timer) == 0);
    }

    @Test
    void anUpstreamErrorBeforeTheFirstTokenGoesInBandOnceCommitted() throws Exception {
        flow(0, 60_000, 100, 0);
        send(Endpoint.COMPLETIONS, STREAM);
        await("a ping", () -> !sinks.isEmpty() && written().contains(": ping"));
        DecodeListener decode = hop(0);
        decode.onHeaders(500, false);
        decode.onEnd(500, "application/json", "not json".getBytes(StandardCharsets.UTF_8));
        await("the stream closed", () -> sinks.get(0).closed);
        assertEquals(500, JSON.readTree(events().get(0)).path("error").path("code").asInt());
        assertEquals("[DONE]", events().get(1));
        assertEquals(0, router.inFlight());
    }

    @Test
    void aRecomputedStreamIsContinuedAsOne() throws Exception {
        flow(0, 60_000, 0, 2);
        send(Endpoint.COMPLETIONS, "{\"model\": \"m\", \"prompt\": \"Say:\", \"max_tokens\": 10, \"stream\": true,"
                + " \"stream_options\": {\"include_usage\": true}}");
        stream(hop(0),
                "{\"id\": \"c1\", \"choices\": [{\"index\": 0, \"text\": \" Hel\", \"finish_reason\": null}]}",
                "{\"id\": \"c1\", \"choices\": [{\"index\": 0, \"text\": \"lo\", \"finish_reason\": \"stop\","
                        + " \"stop_reason\": \"recomputed\"}]}",
                "{\"id\": \"c1\", \"choices\": [], \"usage\": {\"prompt_tokens\": 10, \"completion_tokens\": 2,"
                        + " \"total_tokens\": 12}}",
                "[DONE]");
        await("prefill 2", () -> connector.prefills.size() == 2);
        JsonNode again = connector.prefillBodies.get(1);
        assertEquals("Say: Hello", again.path("prompt").asText());
        assertEquals(8, again.path("max_tokens").asInt());
        long first = router.order.get(0);
        assertTrue(router.aborted.contains(first), "the cut decode released (aborted) before the re-submission");
        stream(hop(1),
                "{\"id\": \"c2\", \"choices\": [{\"index\": 0, \"text\": \" world\", \"finish_reason\": \"length\"}]}",
                "{\"id\": \"c2\", \"choices\": [], \"usage\": {\"prompt_tokens\": 12, \"completion_tokens\": 1,"
                        + " \"total_tokens\": 13}}",
                "[DONE]");
        await("the stream closed", () -> sinks.get(0).closed);
        List<String> events = events();
        assertEquals(5, events.size(), written());
        StringBuilder text = new StringBuilder();
        for (String e : events.subList(0, 4)) {
            JsonNode chunk = JSON.readTree(e);
            assertEquals("c1", chunk.path("id").asText(), "one chunk id for the client: " + e);
            text.append(chunk.path("choices").path(0).path("text").asText(""));
        }
        assertEquals(" Hello world", text.toString());
        JsonNode recomputedChunk = JSON.readTree(events.get(1)).path("choices").path(0);
        assertTrue(recomputedChunk.path("finish_reason").isNull(), "the recomputed finish is not forwarded");
        assertTrue(recomputedChunk.path("stop_reason").isNull());
        assertEquals("length", JSON.readTree(events.get(2)).path("choices").path(0).path("finish_reason").asText());
        JsonNode usage = JSON.readTree(events.get(3)).path("usage");
        assertEquals(10, usage.path("prompt_tokens").asInt(), "the client's own prompt");
        assertEquals(3, usage.path("completion_tokens").asInt(), "tokens of both hops");
        assertEquals(13, usage.path("total_tokens").asInt());
        assertEquals("[DONE]", events.get(4));
        assertEquals(router.order.get(1), router.completed.iterator().next());
        assertEquals(1, router.completed.size());
        await("the outcome", () -> observer.outcomes.contains(Outcome.OK));
        assertEquals(List.of(Outcome.OK), List.copyOf(observer.outcomes));
        assertEquals(3, observer.tokens.get(), "the observer told of the output tokens of both hops");
    }

    @Test
    void aRecomputedChatIsContinuedAsAnOpenAssistantMessageWithoutASecondRoleChunk() throws Exception {
        flow(0, 60_000, 0, 1);
        send(Endpoint.CHAT_COMPLETIONS, "{\"model\": \"m\", \"messages\": [{\"role\": \"user\", \"content\": \"hi\"}],"
                + " \"max_completion_tokens\": 5, \"stream\": true}");
        stream(hop(0),
                "{\"id\": \"x\", \"choices\": [{\"index\": 0, \"delta\": {\"role\": \"assistant\", \"content\": \"\"}}]}",
                "{\"id\": \"x\", \"choices\": [{\"index\": 0, \"delta\": {\"content\": \"Hi\"}}]}",
                "{\"id\": \"x\", \"choices\": [{\"index\": 0, \"delta\": {}, \"finish_reason\": \"stop\","
                        + " \"stop_reason\": \"recomputed\"}]}",
                "[DONE]");
        await("prefill 2", () -> connector.prefills.size() == 2);
        JsonNode again = connector.prefillBodies.get(1);
        assertEquals(4, again.path("max_completion_tokens").asInt());
        assertEquals("assistant", again.path("messages").path(1).path("role").asText());
        assertEquals("Hi", again.path("messages").path(1).path("content").asText());
        assertTrue(again.path("continue_final_message").asBoolean());
        assertFalse(again.path("add_generation_prompt").asBoolean(true));
        stream(hop(1),
                "{\"id\": \"y\", \"choices\": [{\"index\": 0, \"delta\": {\"role\": \"assistant\", \"content\": \"\"}}]}",
                "{\"id\": \"y\", \"choices\": [{\"index\": 0, \"delta\": {\"content\": \" there\"},"
                        + " \"finish_reason\": \"stop\"}]}",
                "[DONE]");
        await("the stream closed", () -> sinks.get(0).closed);
        List<String> events = events();
        assertEquals(4, events.size(), "one role chunk, two content chunks, [DONE]: " + written());
        assertEquals(" there", JSON.readTree(events.get(2)).path("choices").path(0).path("delta").path("content")
                .asText());
        assertEquals("x", JSON.readTree(events.get(2)).path("id").asText());
    }

    @Test
    void recomputationStopsAfterMaxRecomputesWithAnInBandError() throws Exception {
        flow(0, 60_000, 0, 1);
        send(Endpoint.COMPLETIONS, STREAM);
        String recomputed = "{\"choices\": [{\"index\": 0, \"text\": \"\", \"stop_reason\": \"recomputed\"}]}";
        stream(hop(0), "{\"choices\": [{\"index\": 0, \"text\": \"a\"}]}", recomputed, "[DONE]");
        stream(hop(1), recomputed, "[DONE]");
        await("the stream closed", () -> sinks.get(0).closed);
        List<String> events = events();
        assertTrue(JSON.readTree(events.get(events.size() - 2)).path("error").path("message").asText()
                .contains("maxRecomputes is 1"), written());
        assertEquals("[DONE]", events.get(events.size() - 1));
        assertEquals(2, connector.prefills.size(), "no third hop");
        assertEquals(0, router.inFlight());
        await("the outcome", () -> observer.outcomes.contains(Outcome.ERROR));
    }

    @Test
    void aRecomputedTokenIdPromptFailsInBand() throws Exception {
        flow(0, 60_000, 0, 2);
        send(Endpoint.COMPLETIONS, "{\"model\": \"m\", \"prompt\": [1, 2, 3], \"stream\": true}");
        stream(hop(0), "{\"choices\": [{\"index\": 0, \"text\": \"a\", \"stop_reason\": \"recomputed\"}]}");
        await("the stream closed", () -> sinks.get(0).closed);
        List<String> events = events();
        assertEquals("a", JSON.readTree(events.get(0)).path("choices").path(0).path("text").asText());
        assertTrue(JSON.readTree(events.get(1)).path("error").path("message").asText().contains("token ids"), written());
        assertEquals("[DONE]", events.get(2));
        assertEquals(1, connector.prefills.size());
        assertEquals(0, router.inFlight());
    }

    @Test
    void withRecomputationOffTheChunkIsRelayedAsItCame() throws Exception {
        flow(0, 60_000, 0, 0);
        send(Endpoint.COMPLETIONS, STREAM);
        String chunk = "{\"choices\": [{\"index\": 0, \"text\": \"a\", \"stop_reason\": \"recomputed\"}]}";
        stream(hop(0), chunk, "[DONE]");
        await("the stream closed", () -> sinks.get(0).closed);
        assertEquals(List.of(chunk, "[DONE]"), events());
        assertSame(Outcome.OK, observer.outcomes.peek());
    }

    /** Tasks on the timer besides the stall sweep (which is off the queue while it runs). */
    private long heartbeats(ScheduledThreadPoolExecutor timer) {
        return timer.getQueue().stream().filter(t -> t != flow.stallSweep()).count();
    }
}
