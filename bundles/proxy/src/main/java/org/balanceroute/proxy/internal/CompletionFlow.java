package org.balanceroute.proxy.internal;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import jakarta.ws.rs.container.AsyncResponse;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import java.util.UUID;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletionException;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.balanceroute.connector.vllm.DecodeExchange;
import org.balanceroute.connector.vllm.DecodeListener;
import org.balanceroute.connector.vllm.PrefillQueueFullException;
import org.balanceroute.connector.vllm.PrefillResult;
import org.balanceroute.connector.vllm.UpstreamException;
import org.balanceroute.connector.vllm.VllmConnector;
import org.balanceroute.proxy.ProxyObserver;
import org.balanceroute.proxy.ProxyObserver.Outcome;
import org.balanceroute.router.Placement;
import org.balanceroute.router.RouterService;
import org.glassfish.jersey.server.ChunkedOutput;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Deactivate;
import org.osgi.service.component.annotations.Modified;
import org.osgi.service.component.annotations.Reference;
import org.osgi.service.component.annotations.ReferenceCardinality;
import org.osgi.service.component.annotations.ReferencePolicy;
import org.osgi.service.component.annotations.ReferencePolicyOption;
import org.osgi.service.metatype.annotations.Designate;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One request's way through the proxy: validation, the prefill hop (s_i from its usage), the
 * router ({@code submit}, then the placement), the decode hop to the placed worker with the
 * prefill's KV handle, the answer relayed to the client as it comes while every SSE chunk is
 * parsed inline: tokens reported to the router ({@link TokenCounter}), {@code complete} at
 * {@code [DONE]}, {@code abort} on an error, a cut stream or a client that left (the upstream
 * request is cancelled too).
 *
 * <p><b>Dispatch steps.</b> When the router does not step by itself
 * ({@code stepIntervalMillis = 0}, the default), the flow asks for one dispatch step after each
 * submission and after each completion or abort: a request is placed at once when a slot is
 * free, and waits in the prompt pool otherwise until a request ends. (Steps at the cadence of the
 * decode steps observed in the token streams are a later refinement.) With
 * {@code stepIntervalMillis > 0} the router's own steps are used and the flow asks for none.
 *
 * <p><b>Errors.</b> Before streaming: the upstream status with its OpenAI error body (a body
 * that is not one is wrapped in one); no answer at all: 502. After streaming began: an in-band
 * {@code data: {"error": ...}} then {@code data: [DONE]}, and the request's load is released.
 * A request that waits longer than {@code placementTimeoutMillis} for a worker: 503.
 */
@Component(service = CompletionFlow.class, name = CompletionFlow.PID, configurationPid = CompletionFlow.PID)
@Designate(ocd = ProxyConfig.class)
public final class CompletionFlow {

    /** Configuration PID of the proxy. */
    public static final String PID = "org.balanceroute.proxy";

    static final String EVENT_STREAM = "text/event-stream";
    private static final Logger LOG = LoggerFactory.getLogger(CompletionFlow.class);
    private static final ObjectMapper MAPPER = new ObjectMapper();

    private final RouterService router;
    private final VllmConnector connector;
    private final ExecutorService threads;
    /** The relay threads; after deactivation, work runs on the calling thread so streams in flight still end. */
    private final Executor executor;
    private volatile ProxySettings settings;

    /** Told each request's TTFT, TPOT and outcome (the metrics bundle); null when none is registered. */
    @Reference(name = "observer", cardinality = ReferenceCardinality.OPTIONAL, policy = ReferencePolicy.DYNAMIC,
            policyOption = ReferencePolicyOption.GREEDY)
    private volatile ProxyObserver observer;

    /**
     * Router request ids: unique across re-activations of this component (the router may still
     * hold requests of a previous instance), so seeded from the clock.
     */
    private static final AtomicLong IDS = new AtomicLong(System.currentTimeMillis() << 20);

    @Activate
    public CompletionFlow(@Reference(name = "router") RouterService router,
            @Reference(name = "connector") VllmConnector connector, ProxyConfig config) {
        this(router, connector, settingsOrDefaults(config));
    }

    /** A flow without a framework (tests). */
    public CompletionFlow(RouterService router, VllmConnector connector, ProxySettings settings) {
        this.router = router;
        this.connector = connector;
        this.settings = settings;
        AtomicInteger n = new AtomicInteger();
        this.threads = Executors.newCachedThreadPool(r -> {
            Thread t = new Thread(r, "balanceroute-proxy-relay-" + n.incrementAndGet());
            t.setDaemon(true);
            return t;
        });
        this.executor = task -> {
            try {
                threads.execute(task);
            } catch (RejectedExecutionException e) {
                task.run();
            }
        };
    }

    private static ProxySettings settingsOrDefaults(ProxyConfig config) {
        try {
            return ProxySettings.from(config);
        } catch (IllegalArgumentException e) {
            LOG.error("{}: invalid configuration, the defaults apply: {}", PID, e.getMessage());
            return ProxySettings.defaults();
        }
    }

    /** A new configuration applies to the next requests; an invalid one is logged and the previous stays. */
    @Modified
    void modified(ProxyConfig config) {
        try {
            settings = ProxySettings.from(config);
        } catch (IllegalArgumentException e) {
            LOG.error("{}: invalid configuration, the previous one stays in force: {}", PID, e.getMessage());
        }
    }

    /** Streams in flight are left to end; nothing new starts. */
    @Deactivate
    public void close() {
        threads.shutdown();
    }

    VllmConnector connector() {
        return connector;
    }

    /** Handles one generation request; answers through {@code async}. */
    void handle(Endpoint endpoint, byte[] raw, String clientRequestId, AsyncResponse async) {
        String requestId = requestId(clientRequestId);
        byte[] bytes = raw == null ? new byte[0] : raw;
        ObjectNode body;
        try {
            body = RequestValidator.validate(endpoint, bytes, settings.maxBodyBytes());
        } catch (OpenAiError e) {
            ended(Outcome.REJECTED);
            async.resume(error(e, requestId));
            return;
        }
        Exchange x = new Exchange(endpoint, body, bytes.length, requestId, async);
        connector.prefill(requestId, endpoint.path, body).whenCompleteAsync(x::prefilled, executor);
    }

    /** {@code GET /v1/models}: the first decode worker's answer. */
    void models(AsyncResponse async) {
        connector.getFromFirstDecode("/v1/models").whenComplete((r, e) -> {
            if (e == null) {
                async.resume(Response.ok(r.body(), MediaType.APPLICATION_JSON_TYPE).build());
            } else {
                async.resume(upstreamError(cause(e), null, "no decode worker answered /v1/models"));
            }
        });
    }

    static String requestId(String client) {
        if (client != null) {
            String c = client.trim();
            if (!c.isEmpty() && c.length() <= 256 && c.chars().allMatch(ch -> ch > 0x20 && ch < 0x7f)) {
                return c;
            }
        }
        return UUID.randomUUID().toString();
    }

    /** Prompt identity for the exact-match predictor: FNV-1a over the prompt or messages JSON, never 0. */
    static long promptKey(Endpoint endpoint, ObjectNode body) {
        String text = body.path(endpoint == Endpoint.COMPLETIONS ? "prompt" : "messages").toString();
        long h = 0xcbf29ce484222325L;
        for (int i = 0; i < text.length(); i++) {
            h ^= text.charAt(i);
            h *= 0x100000001b3L;
        }
        return h == 0 ? 1 : h;
    }

    private static Throwable cause(Throwable e) {
        Throwable c = e;
        while ((c instanceof CompletionException || c instanceof java.util.concurrent.ExecutionException)
                && c.getCause() != null) {
            c = c.getCause();
        }
        return c;
    }

    static Response error(OpenAiError e, String requestId) {
        Response.ResponseBuilder b = Response.status(e.status()).type(MediaType.APPLICATION_JSON_TYPE).entity(e.body());
        if (requestId != null) {
            b.header(VllmConnector.REQUEST_ID_HEADER, requestId);
        }
        return b.build();
    }

    /** An upstream failure before streaming: its status and OpenAI error body, or 502 when nothing answered. */
    static Response upstreamError(Throwable e, String requestId, String what) {
        if (e instanceof UpstreamException u && u.status() >= 400) {
            return upstreamBody(u.status(), u.body(), requestId, what + ": HTTP " + u.status());
        }
        if (e instanceof UpstreamException u && u.status() > 0) {
            return error(new OpenAiError(502, OpenAiError.SERVER, what + ": " + u.getMessage(), null), requestId);
        }
        return error(new OpenAiError(502, OpenAiError.SERVER, what + ": " + (e == null ? "no answer" : e.getMessage()),
                null), requestId);
    }

    /** Back-pressure (the connector's prefill queue is full): 429, {@code Retry-After: 1}, an OpenAI error body. */
    static Response tooBusy(Throwable e, String requestId) {
        return Response.fromResponse(error(new OpenAiError(429, "rate_limit_exceeded", e.getMessage(), null),
                requestId)).header("Retry-After", "1").build();
    }

    /** The upstream's own body when it is an OpenAI error body, else one made here. */
    static Response upstreamBody(int status, byte[] body, String requestId, String what) {
        boolean openAi = false;
        if (body != null && body.length > 0) {
            try {
                JsonNode n = MAPPER.readTree(body);
                openAi = n != null && n.path("error").isObject();
            } catch (Exception ignored) {
                // not JSON
            }
        }
        if (!openAi) {
            return error(new OpenAiError(status, status >= 500 ? OpenAiError.SERVER : OpenAiError.INVALID_REQUEST,
                    what, null), requestId);
        }
        Response.ResponseBuilder b = Response.status(status).type(MediaType.APPLICATION_JSON_TYPE).entity(body);
        if (requestId != null) {
            b.header(VllmConnector.REQUEST_ID_HEADER, requestId);
        }
        return b.build();
    }

    /** Sets the observer (tests; the framework injects the field itself). */
    void observer(ProxyObserver o) {
        observer = o;
    }

    private void ended(Outcome outcome) {
        ProxyObserver o = observer;
        if (o != null) {
            try {
                o.requestEnded(outcome);
            } catch (RuntimeException e) {
                LOG.debug("the proxy observer failed: {}", e.toString());
            }
        }
    }

    private void step() {
        if (!router.automaticStepping()) {
            router.dispatchStep();
        }
    }

    /** One request in flight: the decode listener and the stream's bookkeeping. */
    private final class Exchange implements DecodeListener {
        private final Endpoint endpoint;
        private final ObjectNode body;
        private final int bodyBytes;
        private final String requestId;
        private final AsyncResponse async;
        private final long id = IDS.incrementAndGet();
        private final AtomicBoolean released = new AtomicBoolean();
        private final AtomicBoolean ended = new AtomicBoolean();
        private final long arrivedNanos = System.nanoTime();
        private long firstTokenNanos;
        private long lastTokenNanos;
        private long outputTokens;
        private final TokenCounter counter = new TokenCounter();
        private volatile DecodeExchange upstream;
        private StreamRelay relay;
        private int worker = -1;
        private boolean done;
        private boolean errorSeen;

        Exchange(Endpoint endpoint, ObjectNode body, int bodyBytes, String requestId, AsyncResponse async) {
            this.endpoint = endpoint;
            this.body = body;
            this.bodyBytes = bodyBytes;
            this.requestId = requestId;
            this.async = async;
        }

        void prefilled(PrefillResult p, Throwable e) {
            if (e != null) {
                Throwable c = cause(e);
                boolean busy = c instanceof PrefillQueueFullException;
                end(busy ? Outcome.REJECTED : Outcome.ERROR);
                async.resume(busy ? tooBusy(c, requestId) : upstreamError(c, requestId, "prefill"));
                return;
            }
            router.submit(id, p.promptTokens(), promptKey(endpoint, body), bodyBytes)
                    .copy()
                    .orTimeout(settings.placementTimeoutMillis(), TimeUnit.MILLISECONDS)
                    .whenCompleteAsync((placement, f) -> placed(p, placement, f), executor);
            step();
        }

        private void placed(PrefillResult p, Placement placement, Throwable f) {
            if (f != null) {
                Throwable c = cause(f);
                release(false);
                end(c instanceof TimeoutException ? Outcome.TIMEOUT : Outcome.ERROR);
                if (c instanceof TimeoutException) {
                    async.resume(error(new OpenAiError(503, OpenAiError.UNAVAILABLE, "waited more than "
                            + settings.placementTimeoutMillis() + " ms for a decode worker", null), requestId));
                } else if (c instanceof CancellationException) {
                    async.resume(error(new OpenAiError(503, OpenAiError.UNAVAILABLE, "the request was aborted", null),
                            requestId));
                } else {
                    async.resume(error(new OpenAiError(503, OpenAiError.UNAVAILABLE,
                            "the router did not place the request: " + c.getMessage(), null), requestId));
                }
                return;
            }
            worker = placement.worker();
            if (worker < 0 || worker >= connector.decodeWorkers()) {
                release(false);
                end(Outcome.ERROR);
                async.resume(error(new OpenAiError(503, OpenAiError.UNAVAILABLE, "the router placed the request on"
                        + " worker " + worker + ", which has no decode endpoint (router workers and connector"
                        + " decodeWorkers disagree)", null), requestId));
                return;
            }
            upstream = connector.decode(requestId, worker, endpoint.path, body, p.kvTransferParams(), this);
        }

        /** Tells the observer how the request ended, once (the first outcome wins). */
        private void end(Outcome outcome) {
            if (ended.compareAndSet(false, true)) {
                ended(outcome);
            }
        }

        /** Token timing of a streaming request: TTFT at the first token, the last token's time for TPOT. */
        private void tokensSeen(int n) {
            long now = System.nanoTime();
            if (outputTokens == 0) {
                firstTokenNanos = now;
                ProxyObserver o = observer;
                if (o != null) {
                    try {
                        o.firstToken(now - arrivedNanos);
                    } catch (RuntimeException e) {
                        LOG.debug("the proxy observer failed: {}", e.toString());
                    }
                }
            }
            lastTokenNanos = now;
            outputTokens += n;
        }

        /** At [DONE] of a clean stream: the mean time per output token after the first. */
        private void streamDone() {
            ProxyObserver o = observer;
            if (o != null && outputTokens > 1) {
                try {
                    o.timePerOutputToken((lastTokenNanos - firstTokenNanos) / (outputTokens - 1));
                } catch (RuntimeException e) {
                    LOG.debug("the proxy observer failed: {}", e.toString());
                }
            }
        }

        /** Releases the request's load once: complete (learned) or abort. */
        private void release(boolean completed) {
            if (released.compareAndSet(false, true)) {
                if (completed) {
                    router.complete(id);
                } else {
                    router.abort(id);
                }
                step();
            }
        }

        @Override
        public void onHeaders(int status, boolean eventStream) {
            if (status == 200 && eventStream) {
                ChunkedOutput<String> out = new ChunkedOutput<>(String.class);
                relay = new StreamRelay(out, executor, settings.relayQueueEvents(), this::clientGone);
                boolean resumed = async.resume(Response.ok(out, EVENT_STREAM).header("Cache-Control", "no-cache")
                        .header(VllmConnector.REQUEST_ID_HEADER, requestId).build());
                if (!resumed) {
                    done = true;
                    clientGone();
                }
            }
        }

        @Override
        public void onEvent(String data) {
            if (done) {
                return;
            }
            if ("[DONE]".equals(data)) {
                done = true;
                relay.event(data);
                relay.close();
                release(!errorSeen);
                if (!errorSeen) {
                    streamDone();
                }
                end(errorSeen ? Outcome.ERROR : Outcome.OK);
                return;
            }
            try {
                JsonNode chunk = MAPPER.readTree(data);
                if (chunk != null && chunk.has("error")) {
                    errorSeen = true;
                } else if (chunk != null) {
                    int n = counter.onChunk(chunk);
                    if (n > 0) {
                        tokensSeen(n);
                        router.tokens(id, n);
                    }
                }
            } catch (Exception e) {
                LOG.debug("request {}: an SSE event that is not JSON: {}", requestId, e.toString());
            }
            relay.event(data);
        }

        @Override
        public void onEnd(int status, String contentType, byte[] answer) {
            if (relay != null) {
                if (!done) {
                    failStream("the decode worker ended the stream without [DONE]");
                }
                return;
            }
            if (status == 200) {
                try {
                    JsonNode n = MAPPER.readTree(answer).path("usage").get("completion_tokens");
                    if (n != null && n.canConvertToInt() && n.intValue() > 0) {
                        router.tokens(id, n.intValue());
                    }
                } catch (Exception e) {
                    LOG.debug("request {}: a 200 answer without usage: {}", requestId, e.toString());
                }
                release(true);
                end(Outcome.OK);
                async.resume(Response.ok(answer, contentType == null ? MediaType.APPLICATION_JSON : contentType)
                        .header(VllmConnector.REQUEST_ID_HEADER, requestId).build());
            } else {
                release(false);
                end(Outcome.ERROR);
                async.resume(upstreamBody(status, answer, requestId, "decode worker " + worker + " failed"));
            }
        }

        @Override
        public void onFailure(Throwable cause) {
            if (relay != null) {
                failStream("the decode worker failed mid-stream: " + cause);
                return;
            }
            release(false);
            end(Outcome.ERROR);
            async.resume(error(new OpenAiError(502, OpenAiError.SERVER, "decode worker " + worker + " failed: "
                    + cause, null), requestId));
        }

        /** Mid-stream failure: in-band error, then [DONE]; the load released. */
        private void failStream(String message) {
            done = true;
            release(false);
            end(Outcome.ERROR);
            relay.event(new OpenAiError(502, OpenAiError.SERVER, message, null).json().toString());
            relay.event("[DONE]");
            relay.close();
        }

        /** The client left or lags too far behind: cancel upstream, release at once. */
        private void clientGone() {
            DecodeExchange u = upstream;
            if (u != null) {
                u.cancel();
            }
            release(false);
            end(Outcome.CLIENT_DISCONNECT);
        }
    }
}
