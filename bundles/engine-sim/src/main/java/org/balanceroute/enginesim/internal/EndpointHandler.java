package org.balanceroute.enginesim.internal;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.UUID;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import org.balanceroute.wire.KvHandle;
import org.balanceroute.wire.OpenAiErrorBody;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.util.Callback;
import org.eclipse.jetty.util.Promise;

/**
 * One endpoint of the cluster: a prefill server, a decode rank (external DP: one endpoint =
 * one rank) or the all-ranks endpoint (the rank from {@code X-data-parallel-rank}, or the
 * lowest {@code 4 * waiting + running}). Speaks vLLM's OpenAI-compatible contract.
 *
 * <p>Nothing here waits on a thread: a body is read as it arrives ({@link BodyReader}), a
 * prefill answers from the scheduler when its simulated time is up, a handle of a peer is taken
 * with an asynchronous call, a non-streaming decode answers when the step loop hands it its
 * terminal event, and a stream is pushed: the step loop wakes the request's {@link StreamWriter}.
 * A failed stream write (the client went away) aborts the request.
 */
final class EndpointHandler {

    enum Kind { PREFILL, RANK, ALL_RANKS }

    static final String RANK_HEADER = "X-data-parallel-rank";
    /** The largest request body taken; larger: 413. A 100k-token prompt as ids is about 0.7 MB. */
    static final int MAX_BODY_BYTES = 32 * 1024 * 1024;
    private static final String[] WORDS = {" the", " quick", " brown", " fox", " jumps", " over", " a", " lazy",
        " dog", " and", " runs", " far"};
    private static final byte[] DONE = "data: [DONE]\n\n".getBytes(StandardCharsets.UTF_8);
    private static final byte[] DATA = "data: ".getBytes(StandardCharsets.UTF_8);
    private static final byte[] END = "\n\n".getBytes(StandardCharsets.UTF_8);

    private final Engines engines;
    private final Kind kind;
    private final int index;

    EndpointHandler(Engines engines, Kind kind, int index) {
        this.engines = engines;
        this.kind = kind;
        this.index = index;
    }

    /** A step of answering: what it throws becomes the answer ({@link #run}). */
    private interface Step {
        void run() throws ApiException, IOException;
    }

    /** A step that needs the request's JSON body. */
    private interface JsonStep {
        void run(JsonNode body) throws ApiException, IOException;
    }

    void handle(Request request, Response response, Callback callback) {
        String requestId = request.getHeaders().get("X-Request-Id");
        if (requestId == null || requestId.isBlank()) {
            requestId = UUID.randomUUID().toString().replace("-", "");
        }
        response.getHeaders().put("X-Request-Id", requestId);
        // a request is never timed out while it is answered (a long prefill, a wait for a slot):
        // the idle timeout closes idle keep-alive connections, and fails a read or write that stalls
        request.addIdleTimeoutListener(t -> false);
        Exchange ex = new Exchange(request, response, callback, requestId);
        run(ex, () -> route(ex));
    }

    /** Runs a step; an {@link ApiException} becomes its OpenAI error answer, anything else a 500. */
    private void run(Exchange ex, Step step) {
        try {
            step.run();
        } catch (ApiException e) {
            sendQuietly(ex, e.status, e.type, e.param, e.getMessage());
        } catch (IOException | RuntimeException e) {
            sendQuietly(ex, 500, "InternalServerError", null, "simulator error: " + e);
        }
    }

    private void route(Exchange ex) throws ApiException, IOException {
        String path = ex.path();
        String method = ex.method();
        switch (path) {
            case "/v1/completions", "/v1/chat/completions" -> {
                requireMethod(method, "POST");
                boolean chat = path.equals("/v1/chat/completions");
                readJson(ex, body -> {
                    if (kind == Kind.PREFILL) {
                        prefill(ex, body, chat);
                    } else {
                        decode(ex, body, chat);
                    }
                });
            }
            case "/health" -> {
                requireMethod(method, "GET");
                boolean down = switch (kind) {
                    case PREFILL -> engines.faults.isPrefillDown(index);
                    case RANK -> engines.faults.isDown(index);
                    case ALL_RANKS -> anyRankDown();
                };
                if (down) {
                    throw new ApiException(503, "ServiceUnavailableError", null, "engine is down (simulated fault)");
                }
                ex.send(200, "text/plain", new byte[0]);
            }
            case "/v1/models" -> {
                requireMethod(method, "GET");
                ObjectNode out = engines.json.createObjectNode().put("object", "list");
                out.putArray("data").addObject().put("id", engines.config.model()).put("object", "model")
                        .put("created", nowSeconds()).put("owned_by", "vllm").put("root", engines.config.model())
                        .putNull("parent");
                sendJson(ex, 200, out);
            }
            case "/metrics" -> {
                requireMethod(method, "GET");
                ex.send(200, "text/plain; version=0.0.4; charset=utf-8", metrics().getBytes(StandardCharsets.UTF_8));
            }
            case "/load" -> {
                requireMethod(method, "GET");
                sendJson(ex, 200, engines.json.createObjectNode().put("server_load", serverLoad()));
            }
            case "/sim/stats" -> {
                requireMethod(method, "GET");
                sendJson(ex, 200, engines.stats.toJson(engines.json));
            }
            case "/sim/series" -> {
                requireMethod(method, "GET");
                sendJson(ex, 200, engines.stats.seriesJson(engines.json));
            }
            case "/sim/stats/reset" -> {
                requireMethod(method, "POST");
                engines.stats.reset();
                sendJson(ex, 200, engines.stats.toJson(engines.json));
            }
            case "/sim/timing" -> {
                if (method.equals("POST")) {
                    readJson(ex, body -> {
                        setTiming(body);
                        sendTiming(ex);
                    });
                } else {
                    requireMethod(method, "GET");
                    sendTiming(ex);
                }
            }
            case HandlePeers.TAKE_PATH -> {
                // a peer cluster (SimConfig.handlePeers) takes a handle of this cluster's prefill servers
                requireMethod(method, "POST");
                readJson(ex, kv -> takeHandle(ex, kv));
            }
            case "/sim/faults" -> {
                if (method.equals("POST")) {
                    readJson(ex, body -> {
                        try {
                            engines.faults.apply(body, kind == Kind.RANK ? index : -1);
                        } catch (IllegalArgumentException e) {
                            throw ApiException.badRequest(null, e.getMessage());
                        }
                        engines.engine.wake();
                        sendJson(ex, 200, engines.faults.toJson(engines.json));
                    });
                } else {
                    requireMethod(method, "GET");
                    sendJson(ex, 200, engines.faults.toJson(engines.json));
                }
            }
            default -> throw new ApiException(404, "NotFoundError", null, "no route " + method + " " + path);
        }
    }

    private void setTiming(JsonNode body) throws ApiException {
        JsonNode f = body.path("timeFactor");
        JsonNode k = body.path("streamInterval");
        String shape = "the body must be {\"timeFactor\": F, \"streamInterval\": K}, either or both,"
                + " F > 0, K 1..4096";
        if (f.isMissingNode() && k.isMissingNode()) {
            throw ApiException.badRequest("timeFactor", shape);
        }
        if (!f.isMissingNode() && !f.isNumber()) {
            throw ApiException.badRequest("timeFactor", shape);
        }
        if (!k.isMissingNode() && !(k.canConvertToInt() && k.isIntegralNumber()
                && k.asInt() >= 1 && k.asInt() <= 4096)) {
            throw ApiException.badRequest("streamInterval", shape);
        }
        try {
            if (!f.isMissingNode()) {
                engines.setTimeFactor(f.asDouble());
            }
        } catch (IllegalArgumentException e) {
            throw ApiException.badRequest("timeFactor", e.getMessage());
        }
        if (!k.isMissingNode()) {
            engines.setStreamInterval(k.asInt());
        }
    }

    private void sendTiming(Exchange ex) throws IOException {
        sendJson(ex, 200, engines.json.createObjectNode().put("timeFactor", engines.timeFactor())
                .put("streamInterval", engines.streamInterval()));
    }

    private void takeHandle(Exchange ex, JsonNode kv) throws ApiException, IOException {
        String id = KvHandle.remoteRequestId(kv);
        if (!engines.handles.issuedHere(id)) {
            throw new ApiException(404, "NotFoundError", "kv_transfer_params", "unknown KV handle " + id
                    + ": no prefill server of this cluster issued it (or it expired and its blocks were freed)");
        }
        KvHandleRegistry.Taken taken = engines.handles.take(id, KvHandle.remoteEngineId(kv),
                KvHandle.remoteHost(kv), KvHandle.remotePort(kv));
        if (taken.error() != null) {
            throw ApiException.badRequest("kv_transfer_params", taken.error());
        }
        sendJson(ex, 200, engines.json.createObjectNode()
                .put("promptTokens", taken.handle().promptTokens())
                .put("ageNanos", engines.handles.now() - taken.handle().prefillArrivalNanos()));
    }

    private void sendQuietly(Exchange ex, int status, String type, String param, String message) {
        if (ex.response.isCommitted()) {
            ex.callback.failed(new IllegalStateException(message)); // a stream under way: the connection closes
            return;
        }
        try {
            sendError(ex, status, type, param, message);
        } catch (IOException | RuntimeException e) {
            ex.callback.failed(e);
        }
    }

    private static void requireMethod(String method, String expected) throws ApiException {
        if (!method.equals(expected)) {
            throw new ApiException(405, "MethodNotAllowedError", null, "Method Not Allowed: use " + expected);
        }
    }

    private boolean anyRankDown() {
        for (int g = 0; g < engines.config.decode(); g++) {
            if (engines.faults.isDown(g)) {
                return true;
            }
        }
        return false;
    }

    /** Reads the body (without waiting on a thread), then runs {@code next} with its JSON. */
    private void readJson(Exchange ex, JsonStep next) {
        BodyReader.read(ex.request, ex.request.getLength(), MAX_BODY_BYTES, new Promise<>() {
            @Override
            public void succeeded(byte[] bytes) {
                run(ex, () -> next.run(parseJson(bytes)));
            }

            @Override
            public void failed(Throwable x) {
                if (x instanceof BodyReader.TooLarge) {
                    sendQuietly(ex, 413, "BadRequestError", null, x.getMessage());
                } else {
                    ex.callback.failed(x); // the client went away mid-body
                }
            }
        });
    }

    private JsonNode parseJson(byte[] bytes) throws ApiException {
        try {
            JsonNode tree = RequestBodies.read(engines.json, bytes);
            if (tree == null || tree.isMissingNode()) {
                throw ApiException.badRequest(null, "the request body is empty: a JSON object is expected");
            }
            return tree;
        } catch (IOException e) {
            String reason = e instanceof com.fasterxml.jackson.core.JsonProcessingException j
                    ? j.getOriginalMessage() : e.getMessage();
            throw ApiException.badRequest(null, "the body is not valid JSON: " + reason);
        }
    }

    /** Runs {@code step} on the server's pool (off the step loop or the scheduler). */
    private void dispatch(Exchange ex, Step step) {
        try {
            engines.executor.execute(() -> run(ex, step));
        } catch (RejectedExecutionException e) {
            ex.callback.failed(e); // the server is stopping
        }
    }

    // ---- prefill hop -------------------------------------------------------------------------

    private void prefill(Exchange ex, JsonNode body, boolean chat) throws ApiException {
        long arrival = engines.handles.now();
        if (engines.faults.isPrefillDown(index)) {
            throw new ApiException(503, "ServiceUnavailableError", null,
                    "simulated fault: prefill server " + index + " is down");
        }
        CompletionRequest req = CompletionRequest.parse(body, chat, engines.config.model(),
                engines.config.defaultMaxTokens());
        if (!req.remoteDecode()) {
            throw ApiException.badRequest("kv_transfer_params", "this simulated prefill server serves the prefill hop"
                    + " only: send kv_transfer_params.do_remote_decode=true (and route decoding to a decode rank)");
        }
        if (engines.faults.takePrefillFailure(index)) {
            throw new ApiException(500, "InternalServerError", null,
                    "simulated fault: prefill server " + index + " failed the request");
        }
        double seconds = (engines.config.prefillPerToken() * req.promptTokens() + engines.config.prefillFixed())
                * engines.timeFactor.get();
        long nanos = (long) (seconds * 1e9);
        engines.prefillInFlight[index].incrementAndGet();
        Step answer = () -> {
            engines.prefillInFlight[index].decrementAndGet();
            prefilled(ex, req, arrival);
        };
        if (nanos <= 0) {
            run(ex, answer);
            return;
        }
        try {
            // no thread waits out the prefill: the scheduler hands the answer to the pool when it is due
            engines.scheduler.schedule(() -> dispatch(ex, answer), nanos, TimeUnit.NANOSECONDS);
        } catch (RejectedExecutionException e) {
            engines.prefillInFlight[index].decrementAndGet();
            ex.callback.failed(e); // the server is stopping
        }
    }

    private void prefilled(Exchange ex, CompletionRequest req, long arrival) throws IOException {
        String host = engines.config.host();
        int port = Request.getLocalPort(ex.request);
        String engineId = "enginesim-" + engines.clusterId + "-prefill_dp" + index;
        String remoteId = "prefill-" + ex.requestId + "-" + UUID.randomUUID().toString().substring(0, 8);
        int blockSize = 128;
        int blocks = (req.promptTokens() + blockSize - 1) / blockSize;
        engines.handles.issue(new KvHandleRegistry.Issued(remoteId, engineId, host, port, req.promptTokens(),
                engines.handles.now(), arrival));
        ObjectNode out = response(req, ex.requestId, text(0, 1), "length", 1);
        out.set(KvHandle.FIELD, KvHandle.issued(engineId, host, port, remoteId, blocks, blockSize));
        sendJson(ex, 200, out);
    }

    // ---- decode hop --------------------------------------------------------------------------

    private void decode(Exchange ex, JsonNode body, boolean chat) throws ApiException {
        long arrival = System.nanoTime();
        int rank = kind == Kind.RANK ? index : allRanksRank(ex);
        if (engines.faults.isDown(rank)) {
            throw new ApiException(503, "ServiceUnavailableError", null,
                    "simulated fault: DP rank " + rank + " is down");
        }
        CompletionRequest req = CompletionRequest.parse(body, chat, engines.config.model(),
                engines.config.defaultMaxTokens());
        String remoteId = req.remotePrefill() ? KvHandle.remoteRequestId(req.kvTransferParams()) : null;
        if (remoteId != null && !engines.peers.isEmpty() && !engines.handles.issuedHere(remoteId)) {
            // a handle of a peer's prefill server (a shared prefill tier): the peer checks and takes it
            long asked = System.nanoTime();
            engines.peers.take(remoteId, req.kvTransferParams()).thenAccept(taken -> run(ex, () -> {
                if (taken.error() != null) {
                    throw ApiException.badRequest("kv_transfer_params", taken.error());
                }
                // TTFT counts from the prefill hop: its age at the peer, at the midpoint of the ask
                long answered = System.nanoTime();
                admit(ex, req, rank, taken.promptTokens(), asked + (answered - asked) / 2 - taken.ageNanos());
            }));
            return;
        }
        int promptTokens = req.promptTokens();
        if (req.remotePrefill()) {
            JsonNode kv = req.kvTransferParams();
            KvHandleRegistry.Taken taken = engines.handles.take(KvHandle.remoteRequestId(kv),
                    KvHandle.remoteEngineId(kv), KvHandle.remoteHost(kv), KvHandle.remotePort(kv));
            if (taken.error() != null) {
                throw ApiException.badRequest("kv_transfer_params", taken.error());
            }
            promptTokens = taken.handle().promptTokens();
            // the request reached the cluster at its prefill hop: TTFT counts from there
            arrival -= engines.handles.now() - taken.handle().prefillArrivalNanos();
        } else if (req.remoteDecode()) {
            throw ApiException.badRequest("kv_transfer_params", "a decode rank does not serve the prefill hop"
                    + " (do_remote_decode=true): send it to a prefill server");
        }
        admit(ex, req, rank, promptTokens, arrival);
    }

    /** Submits the request to the step loop, its answer (a stream, or one body at the end) wired to it. */
    private void admit(Exchange ex, CompletionRequest req, int rank, int promptTokens, long arrival)
            throws ApiException {
        if (engines.faults.takeFailure(rank)) {
            throw new ApiException(500, "InternalServerError", null,
                    "simulated fault: DP rank " + rank + " failed the request");
        }
        EngineRequest r = new EngineRequest(ex.requestId, rank, promptTokens,
                req.outputTokens(engines.config.seed(), ex.requestId), req.maxTokens(),
                engines.faults.cutAfterTokens(rank), arrival,
                req.stream() ? self -> stream(ex, req, self) : self -> new WholeAnswer(ex, req, self));
        engines.engine.submit(r);
        if (r.sink instanceof StreamWriter writer) {
            writer.start(); // the headers now, while the request may still wait for a slot
        }
    }

    private int allRanksRank(Exchange ex) throws ApiException {
        String h = ex.header(RANK_HEADER);
        int ranks = engines.config.decode();
        if (h == null) {
            int g = engines.engine.leastLoadedRank();
            if (g < 0) {
                throw new ApiException(503, "ServiceUnavailableError", null, "every DP rank is down (simulated fault)");
            }
            return g;
        }
        try {
            int g = Integer.parseInt(h.trim());
            if (g >= 0 && g < ranks) {
                return g;
            }
        } catch (NumberFormatException e) {
            // below
        }
        throw ApiException.badRequest(null, RANK_HEADER + " must be a DP rank in 0.." + (ranks - 1) + ", got '" + h + "'");
    }

    /** A non-streaming request's answer: one body once the step loop hands over the terminal event. */
    private final class WholeAnswer implements EngineRequest.Sink {

        private final Exchange ex;
        private final CompletionRequest req;
        private final EngineRequest r;

        WholeAnswer(Exchange ex, CompletionRequest req, EngineRequest r) {
            this.ex = ex;
            this.req = req;
            this.r = r;
        }

        @Override
        public void accept(StreamEvent ev) {
            if (!ev.terminal()) {
                return; // only the count matters, and the terminal event carries it
            }
            dispatch(ex, () -> {
                if (ev.isError()) {
                    sendError(ex, ev.errorCode(), ev.errorType(), null, ev.errorMessage());
                } else {
                    sendJson(ex, 200, response(req, r.id, text(0, ev.cumulative()), ev.finishReason(),
                            ev.cumulative()));
                }
            });
        }

        @Override
        public int backlog() {
            return 0;
        }
    }

    private StreamWriter stream(Exchange ex, CompletionRequest req, EngineRequest r) {
        ex.response.getHeaders().put("Content-Type", "text/event-stream; charset=utf-8");
        ex.response.getHeaders().put("Cache-Control", "no-cache");
        ex.response.setStatus(200);
        return new StreamWriter(ex.response, engines.executor, new SseFrames(req, r),
                () -> engines.engine.abort(r), ex.callback);
    }

    /** A stream's events as SSE frames, byte for byte as vLLM's OpenAI server writes them. */
    private final class SseFrames implements StreamWriter.Framer {

        private final CompletionRequest req;
        private final EngineRequest r;
        private final String id;
        private final long created = nowSeconds();
        private boolean first = true;

        SseFrames(CompletionRequest req, EngineRequest r) {
            this.req = req;
            this.r = r;
            this.id = (req.chat() ? "chatcmpl-" : "cmpl-") + r.id;
        }

        @Override
        public void frame(StreamEvent ev, StreamWriter.Frames out) throws IOException {
            if (ev.isError()) {
                writeEvent(out, errorBody(ev.errorType(), null, ev.errorMessage(), ev.errorCode()));
                out.write(DONE);
                return;
            }
            if (first && req.chat()) {
                ObjectNode role = chunk(req, id, created);
                ObjectNode choice = role.withArray("choices").addObject().put("index", 0);
                choice.putObject("delta").put("role", "assistant").put("content", "");
                choice.putNull("logprobs").putNull("finish_reason");
                if (req.continuousUsage()) {
                    role.set("usage", usage(r.promptTokens, 0));
                }
                writeEvent(out, role);
            }
            first = false;
            ObjectNode c = chunk(req, id, created);
            ObjectNode choice = c.withArray("choices").addObject().put("index", 0);
            String text = text(ev.cumulative() - ev.tokens(), ev.tokens());
            if (req.chat()) {
                choice.putObject("delta").put("content", text);
                choice.putNull("logprobs");
            } else {
                choice.put("text", text).putNull("logprobs");
            }
            choice.put("finish_reason", ev.finishReason()).putNull("stop_reason");
            if (req.continuousUsage()) {
                c.set("usage", usage(r.promptTokens, ev.cumulative()));
            }
            writeEvent(out, c);
            if (ev.finishReason() != null) {
                if (req.includeUsage()) {
                    ObjectNode u = chunk(req, id, created);
                    u.putArray("choices");
                    u.set("usage", usage(r.promptTokens, ev.cumulative()));
                    writeEvent(out, u);
                }
                out.write(DONE);
            }
        }
    }

    private ObjectNode chunk(CompletionRequest req, String id, long created) {
        ObjectNode c = engines.json.createObjectNode();
        c.put("id", id).put("object", req.chat() ? "chat.completion.chunk" : "text_completion")
                .put("created", created).put("model", req.model());
        return c;
    }

    private void writeEvent(OutputStream out, ObjectNode event) throws IOException {
        out.write(DATA);
        engines.json.writeValue(out, event);
        out.write(END);
    }

    /** A non-streaming completion or chat completion of {@code tokens} tokens. */
    private ObjectNode response(CompletionRequest req, String requestId, String text, String finishReason,
                                int tokens) {
        ObjectNode out = engines.json.createObjectNode();
        out.put("id", (req.chat() ? "chatcmpl-" : "cmpl-") + requestId)
                .put("object", req.chat() ? "chat.completion" : "text_completion")
                .put("created", nowSeconds()).put("model", req.model());
        ObjectNode choice = out.putArray("choices").addObject().put("index", 0);
        if (req.chat()) {
            ObjectNode msg = choice.putObject("message").put("role", "assistant").put("content", text);
            msg.putArray("tool_calls");
        } else {
            choice.put("text", text);
        }
        choice.putNull("logprobs").put("finish_reason", finishReason).putNull("stop_reason");
        out.set("usage", usage(req.promptTokens(), tokens));
        out.putNull(KvHandle.FIELD);
        return out;
    }

    private ObjectNode usage(int prompt, int completion) {
        return engines.json.createObjectNode().put("prompt_tokens", prompt).put("total_tokens", prompt + completion)
                .put("completion_tokens", completion);
    }

    /** The text of tokens [from, from + count): one word per token. */
    static String text(int from, int count) {
        StringBuilder sb = new StringBuilder(count * 6);
        for (int i = from; i < from + count; i++) {
            sb.append(WORDS[i % WORDS.length]);
        }
        return sb.toString();
    }

    /** vLLM's {@code /load} ({@code --enable-server-load-tracking}): requests in flight. */
    private long serverLoad() {
        if (kind == Kind.PREFILL) {
            return engines.prefillInFlight[index].get();
        }
        int from = kind == Kind.RANK ? index : 0;
        int to = kind == Kind.RANK ? index + 1 : engines.config.decode();
        long load = 0;
        for (int g = from; g < to; g++) {
            load += engines.engine.runningGauge.get(g) + engines.engine.waitingGauge.get(g);
        }
        return load;
    }

    private String metrics() {
        StringBuilder sb = new StringBuilder(512);
        String model = engines.config.model();
        DecodeEngine e = engines.engine;
        int from = kind == Kind.RANK ? index : 0;
        int to = kind == Kind.RANK ? index + 1 : kind == Kind.ALL_RANKS ? engines.config.decode() : 0;
        gauge(sb, "vllm:num_requests_running", "Number of requests in model execution batches.");
        if (kind == Kind.PREFILL) {
            line(sb, "vllm:num_requests_running", model, index, engines.prefillInFlight[index].get());
        }
        for (int g = from; g < to; g++) {
            line(sb, "vllm:num_requests_running", model, g, e.runningGauge.get(g));
        }
        gauge(sb, "vllm:num_requests_waiting", "Number of requests waiting to be processed.");
        if (kind == Kind.PREFILL) {
            line(sb, "vllm:num_requests_waiting", model, index, 0);
        }
        for (int g = from; g < to; g++) {
            line(sb, "vllm:num_requests_waiting", model, g, e.waitingGauge.get(g));
        }
        gauge(sb, "enginesim:kv_tokens",
                "KV cache tokens held by running requests (prompt + generated), as of the last decode step.");
        if (kind == Kind.PREFILL) {
            line(sb, "enginesim:kv_tokens", model, index, 0);
        }
        for (int g = from; g < to; g++) {
            line(sb, "enginesim:kv_tokens", model, g, e.kvTokensGauge.get(g));
        }
        return sb.toString();
    }

    private static void gauge(StringBuilder sb, String name, String help) {
        sb.append("# HELP ").append(name).append(' ').append(help).append('\n');
        sb.append("# TYPE ").append(name).append(" gauge\n");
    }

    private static void line(StringBuilder sb, String name, String model, int engine, long value) {
        sb.append(name).append("{engine=\"").append(engine).append("\",model_name=\"").append(model).append("\"} ")
                .append((double) value).append('\n');
    }

    private ObjectNode errorBody(String type, String param, String message, int code) {
        return engines.json.valueToTree(OpenAiErrorBody.of(message, type, param, code));
    }

    private void sendError(Exchange ex, int status, String type, String param, String message) throws IOException {
        sendJson(ex, status, errorBody(type, param, message, status));
    }

    private void sendJson(Exchange ex, int status, ObjectNode body) throws IOException {
        ex.send(status, "application/json", engines.json.writeValueAsBytes(body));
    }

    private static long nowSeconds() {
        return System.currentTimeMillis() / 1000;
    }
}
