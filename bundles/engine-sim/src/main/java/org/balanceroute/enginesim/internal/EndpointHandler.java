package org.balanceroute.enginesim.internal;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpHandler;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.UUID;
import java.util.concurrent.locks.LockSupport;
import org.balanceroute.wire.KvHandle;
import org.balanceroute.wire.OpenAiErrorBody;

/**
 * One endpoint of the cluster: a prefill server, a decode rank (external DP: one endpoint =
 * one rank) or the all-ranks endpoint (the rank from {@code X-data-parallel-rank}, or the
 * lowest {@code 4 * waiting + running}). Speaks vLLM's OpenAI-compatible contract.
 *
 * <p>The HTTP thread of a decode request is its stream writer: it takes the events the step
 * loop queues for it and writes them; a failed write (the client went away) aborts the request.
 */
final class EndpointHandler implements HttpHandler {

    enum Kind { PREFILL, RANK, ALL_RANKS }

    static final String RANK_HEADER = "X-data-parallel-rank";
    private static final String[] WORDS = {" the", " quick", " brown", " fox", " jumps", " over", " a", " lazy",
        " dog", " and", " runs", " far"};
    private static final byte[] DONE = "data: [DONE]\n\n".getBytes(StandardCharsets.UTF_8);

    private final Engines engines;
    private final Kind kind;
    private final int index;

    EndpointHandler(Engines engines, Kind kind, int index) {
        this.engines = engines;
        this.kind = kind;
        this.index = index;
    }

    @Override
    public void handle(HttpExchange ex) throws IOException {
        String requestId = ex.getRequestHeaders().getFirst("X-Request-Id");
        if (requestId == null || requestId.isBlank()) {
            requestId = UUID.randomUUID().toString().replace("-", "");
        }
        ex.getResponseHeaders().set("X-Request-Id", requestId);
        try (ex) {
            route(ex, requestId);
        }
    }

    private void route(HttpExchange ex, String requestId) {
        try {
            String path = ex.getRequestURI().getPath();
            String method = ex.getRequestMethod();
            switch (path) {
                case "/v1/completions", "/v1/chat/completions" -> {
                    requireMethod(method, "POST");
                    JsonNode body = readJson(ex);
                    boolean chat = path.equals("/v1/chat/completions");
                    if (kind == Kind.PREFILL) {
                        prefill(ex, body, chat, requestId);
                    } else {
                        decode(ex, body, chat, requestId);
                    }
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
                    send(ex, 200, "text/plain", new byte[0]);
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
                    send(ex, 200, "text/plain; version=0.0.4; charset=utf-8",
                            metrics().getBytes(StandardCharsets.UTF_8));
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
                        JsonNode body = readJson(ex);
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
                    } else {
                        requireMethod(method, "GET");
                    }
                    sendJson(ex, 200, engines.json.createObjectNode().put("timeFactor", engines.timeFactor())
                            .put("streamInterval", engines.streamInterval()));
                }
                case HandlePeers.TAKE_PATH -> {
                    // a peer cluster (SimConfig.handlePeers) takes a handle of this cluster's prefill servers
                    requireMethod(method, "POST");
                    JsonNode kv = readJson(ex);
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
                case "/sim/faults" -> {
                    if (method.equals("POST")) {
                        JsonNode body = readJson(ex);
                        try {
                            engines.faults.apply(body, kind == Kind.RANK ? index : -1);
                        } catch (IllegalArgumentException e) {
                            throw ApiException.badRequest(null, e.getMessage());
                        }
                        engines.engine.wake();
                    } else {
                        requireMethod(method, "GET");
                    }
                    sendJson(ex, 200, engines.faults.toJson(engines.json));
                }
                default -> throw new ApiException(404, "NotFoundError", null, "no route " + method + " " + path);
            }
        } catch (ApiException e) {
            sendQuietly(ex, e.status, e.type, e.param, e.getMessage());
        } catch (IOException e) {
            // the client went away while we answered: nothing more to say
        } catch (RuntimeException e) {
            sendQuietly(ex, 500, "InternalServerError", null, "simulator error: " + e);
        }
    }

    private void sendQuietly(HttpExchange ex, int status, String type, String param, String message) {
        try {
            sendError(ex, status, type, param, message);
        } catch (IOException | RuntimeException ignored) {
            // headers already sent or client gone
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

    private JsonNode readJson(HttpExchange ex) throws IOException, ApiException {
        byte[] bytes;
        try (InputStream in = ex.getRequestBody()) {
            bytes = in.readAllBytes();
        }
        try {
            JsonNode tree = RequestBodies.read(engines.json, bytes);
            if (tree == null || tree.isMissingNode()) {
                throw ApiException.badRequest(null, "the request body is empty: a JSON object is expected");
            }
            return tree;
        } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
            throw ApiException.badRequest(null, "the body is not valid JSON: " + e.getOriginalMessage());
        }
    }

    // ---- prefill hop -------------------------------------------------------------------------

    private void prefill(HttpExchange ex, JsonNode body, boolean chat, String requestId)
            throws IOException, ApiException {
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
        engines.prefillInFlight[index].incrementAndGet();
        try {
            double seconds = (engines.config.prefillPerToken() * req.promptTokens() + engines.config.prefillFixed())
                    * engines.timeFactor.get();
            long deadline = System.nanoTime() + (long) (seconds * 1e9);
            long left;
            while ((left = deadline - System.nanoTime()) > 0) {
                LockSupport.parkNanos(left);
            }
        } finally {
            engines.prefillInFlight[index].decrementAndGet();
        }
        String host = engines.config.host();
        int port = ex.getLocalAddress().getPort();
        String engineId = "enginesim-" + engines.clusterId + "-prefill_dp" + index;
        String remoteId = "prefill-" + requestId + "-" + UUID.randomUUID().toString().substring(0, 8);
        int blockSize = 128;
        int blocks = (req.promptTokens() + blockSize - 1) / blockSize;
        engines.handles.issue(new KvHandleRegistry.Issued(remoteId, engineId, host, port, req.promptTokens(),
                engines.handles.now(), arrival));
        ObjectNode out = response(req, requestId, text(0, 1), "length", 1);
        out.set(KvHandle.FIELD, KvHandle.issued(engineId, host, port, remoteId, blocks, blockSize));
        sendJson(ex, 200, out);
    }

    // ---- decode hop --------------------------------------------------------------------------

    private void decode(HttpExchange ex, JsonNode body, boolean chat, String requestId)
            throws IOException, ApiException {
        long arrival = System.nanoTime();
        int rank = kind == Kind.RANK ? index : allRanksRank(ex);
        if (engines.faults.isDown(rank)) {
            throw new ApiException(503, "ServiceUnavailableError", null,
                    "simulated fault: DP rank " + rank + " is down");
        }
        CompletionRequest req = CompletionRequest.parse(body, chat, engines.config.model(),
                engines.config.defaultMaxTokens());
        int promptTokens = req.promptTokens();
        if (req.remotePrefill() && !engines.peers.isEmpty()
                && !engines.handles.issuedHere(KvHandle.remoteRequestId(req.kvTransferParams()))
                && KvHandle.remoteRequestId(req.kvTransferParams()) != null) {
            // a handle of a peer's prefill server (a shared prefill tier): the peer checks and takes it
            long asked = System.nanoTime();
            HandlePeers.Result taken;
            try {
                taken = engines.peers.take(KvHandle.remoteRequestId(req.kvTransferParams()), req.kvTransferParams());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new ApiException(503, "ServiceUnavailableError", null, "interrupted while taking the KV handle");
            }
            if (taken.error() != null) {
                throw ApiException.badRequest("kv_transfer_params", taken.error());
            }
            promptTokens = taken.promptTokens();
            // TTFT counts from the prefill hop: its age at the peer, at the midpoint of the ask
            long answered = System.nanoTime();
            arrival = asked + (answered - asked) / 2 - taken.ageNanos();
        } else if (req.remotePrefill()) {
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
        if (engines.faults.takeFailure(rank)) {
            throw new ApiException(500, "InternalServerError", null,
                    "simulated fault: DP rank " + rank + " failed the request");
        }
        EngineRequest r = new EngineRequest(requestId, rank, promptTokens,
                req.outputTokens(engines.config.seed(), requestId), req.maxTokens(),
                engines.faults.cutAfterTokens(rank), arrival);
        engines.engine.submit(r);
        if (req.stream()) {
            stream(ex, req, r);
        } else {
            whole(ex, req, r);
        }
    }

    private int allRanksRank(HttpExchange ex) throws ApiException {
        String h = ex.getRequestHeaders().getFirst(RANK_HEADER);
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

    private void whole(HttpExchange ex, CompletionRequest req, EngineRequest r) throws IOException {
        StreamEvent ev;
        try {
            do {
                ev = r.events.take();
            } while (!ev.terminal());
        } catch (InterruptedException e) {
            engines.engine.abort(r);
            Thread.currentThread().interrupt();
            return;
        }
        if (ev.isError()) {
            sendError(ex, ev.errorCode(), ev.errorType(), null, ev.errorMessage());
            return;
        }
        sendJson(ex, 200, response(req, r.id, text(0, ev.cumulative()), ev.finishReason(), ev.cumulative()));
    }

    private void stream(HttpExchange ex, CompletionRequest req, EngineRequest r) throws IOException {
        ex.getResponseHeaders().set("Content-Type", "text/event-stream; charset=utf-8");
        ex.getResponseHeaders().set("Cache-Control", "no-cache");
        String id = (req.chat() ? "chatcmpl-" : "cmpl-") + r.id;
        long created = nowSeconds();
        try {
            ex.sendResponseHeaders(200, 0);
            OutputStream out = ex.getResponseBody();
            boolean first = true;
            while (true) {
                StreamEvent ev = r.events.take();
                if (ev.isError()) {
                    writeEvent(out, errorBody(ev.errorType(), null, ev.errorMessage(), ev.errorCode()));
                    out.write(DONE);
                    out.flush();
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
                    out.flush();
                    return;
                }
                out.flush();
            }
        } catch (IOException e) {
            engines.engine.abort(r);
            throw e;
        } catch (InterruptedException e) {
            engines.engine.abort(r);
            Thread.currentThread().interrupt();
        }
    }

    private ObjectNode chunk(CompletionRequest req, String id, long created) {
        ObjectNode c = engines.json.createObjectNode();
        c.put("id", id).put("object", req.chat() ? "chat.completion.chunk" : "text_completion")
                .put("created", created).put("model", req.model());
        return c;
    }

    private void writeEvent(OutputStream out, ObjectNode event) throws IOException {
        out.write("data: ".getBytes(StandardCharsets.UTF_8));
        out.write(engines.json.writeValueAsBytes(event));
        out.write("\n\n".getBytes(StandardCharsets.UTF_8));
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

    private void sendError(HttpExchange ex, int status, String type, String param, String message) throws IOException {
        sendJson(ex, status, errorBody(type, param, message, status));
    }

    private void sendJson(HttpExchange ex, int status, ObjectNode body) throws IOException {
        send(ex, status, "application/json", engines.json.writeValueAsBytes(body));
    }

    private static void send(HttpExchange ex, int status, String contentType, byte[] body) throws IOException {
        ex.getResponseHeaders().set("Content-Type", contentType);
        ex.sendResponseHeaders(status, body.length == 0 ? -1 : body.length);
        if (body.length > 0) {
            try (OutputStream out = ex.getResponseBody()) {
                out.write(body);
            }
        }
    }

    private static long nowSeconds() {
        return System.currentTimeMillis() / 1000;
    }
}
