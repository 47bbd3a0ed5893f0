package org.balanceroute.proxy.internal;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import jakarta.ws.rs.container.AsyncResponse;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import java.nio.charset.StandardCharsets;
import java.util.UUID;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;
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
 * One request's way through the proxy: validation, admission (the prompt pool's depth), the
 * prefill hop (s_i from its usage), the router ({@code submit}, then the placement), the decode
 * hop to the placed worker with the prefill's KV handle, the answer relayed to the client as it
 * comes while every SSE chunk is parsed inline: tokens reported to the router
 * ({@link TokenCounter}), {@code complete} at {@code [DONE]}, {@code abort} on an error, a cut
 * stream or a client that left (the upstream request is cancelled too).
 *
 * <p><b>Admission.</b> When the router's prompt pool holds {@code maxPoolDepth} requests, a new
 * one is refused before its prefill: 429 with {@code Retry-After: retryAfterSeconds} (prefilling
 * it would only make KV the engine frees unused if the request waits too long). The depth is the
 * router's lock-free published value; requests still in prefill are not counted.
 *
 * <p><b>Dispatch steps.</b> When the router does not step by itself
 * ({@code stepIntervalMillis = 0}, the default), the flow asks for a dispatch step after each
 * submission and after each completion or abort ({@link RouterService#requestStep()}): the
 * router runs it at the next decode step boundary it observes in the token streams, so the
 * requests that end in one decode step are replaced in one dispatch step. With
 * {@code stepIntervalMillis > 0} the router's own steps are used and the flow asks for none.
 *
 * <p><b>Heartbeats.</b> A streaming request that has not begun streaming after
 * {@code pingIntervalMillis} (prefill, pool wait) gets its 200 event stream committed early and
 * an SSE comment {@code : ping} every interval until the decode stream begins: proxies and clients
 * with read timeouts keep the connection, and a write that fails tells us the client left, so
 * the request is aborted at once (out of the pool, prefill or decode cancelled).
 *
 * <p><b>Errors.</b> Before the response is committed: the upstream status with its OpenAI error
 * body (a body that is not one is wrapped in one); no answer at all: 502; a wait longer than
 * {@code placementTimeoutMillis} for a worker: 503. Once committed (streaming began, or the first
 * ping went out): an in-band {@code data: {"error": ...}} then {@code data: [DONE]}, never an empty
 * 200. Either way the request's load is released.
 *
 * <p><b>Recomputation.</b> A stream the engine ends with {@code stop_reason: "recomputed"}
 * (vllm-ascend: decode out of KV) is continued: that chunk's finish is not forwarded, the cut
 * request is aborted in the router (its length is not an output length to learn), and the
 * prompt plus the text generated so far ({@link Resubmission}) goes through a new prefill and a
 * new placement, at most {@code maxRecomputes} times; the client's stream stays open across it
 * and reads as one (same chunk id, no second role chunk, usage summed over the hops).
 * Non-streaming answers are not continued (see the README).
 *
 * <p><b>Threading.</b> One request's callbacks come from the prefill future, the placement
 * future, the decode listener (serialised per hop, and hop after hop), the ping timer and the
 * relay (client gone). What they share is either volatile/atomic (the answer chosen once, the
 * current hop, the {@code gone} flag) or touched by one hop's callbacks at a time; no locks.
 */
@Component(service = CompletionFlow.class, name = CompletionFlow.PID, configurationPid = CompletionFlow.PID)
@Designate(ocd = ProxyConfig.class)
public final class CompletionFlow {

    /** Configuration PID of the proxy. */
    public static final String PID = "org.balanceroute.proxy";

    static final String EVENT_STREAM = "text/event-stream";
    static final String STOP_RECOMPUTED = "recomputed";
    private static final Logger LOG = LoggerFactory.getLogger(CompletionFlow.class);
    private static final ObjectMapper MAPPER = new ObjectMapper();
    /** The answer of an exchange that was answered with a plain (non-stream) response. */
    private static final Object PLAIN = new Object();

    private final RouterService router;
    private final VllmConnector connector;
    private final ExecutorService threads;
    /** The relay threads; after deactivation, work runs on the calling thread so streams in flight still end. */
    private final Executor executor;
    /** One timer thread for every request's heartbeats. */
    private final ScheduledExecutorService pings;
    private final Supplier<EventSink> sinks;
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

    /** A flow without a framework. */
    public CompletionFlow(RouterService router, VllmConnector connector, ProxySettings settings) {
        this(router, connector, settings, EventSink::chunked);
    }

    /** A flow whose event streams go to {@code sinks} (tests). */
    CompletionFlow(RouterService router, VllmConnector connector, ProxySettings settings, Supplier<EventSink> sinks) {
        this.router = router;
        this.connector = connector;
        this.settings = settings;
        this.sinks = sinks;
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
        this.pings = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "balanceroute-proxy-ping");
            t.setDaemon(true);
            return t;
        });
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

    ProxySettings settings() {
        return settings;
    }

    /** Streams in flight are left to end; nothing new starts, no more heartbeats. */
    @Deactivate
    public void close() {
        threads.shutdown();
        pings.shutdownNow();
    }

    /** Handles one generation request; answers through {@code async}. */
    void handle(Endpoint endpoint, byte[] raw, String clientRequestId, AsyncResponse async) {
        ProxySettings s = settings;
        String requestId = requestId(clientRequestId);
        byte[] bytes = raw == null ? new byte[0] : raw;
        ObjectNode body;
        try {
            body = RequestValidator.validate(endpoint, bytes, s.maxBodyBytes());
        } catch (OpenAiError e) {
            ended(Outcome.REJECTED);
            async.resume(error(e, requestId));
            return;
        }
        int limit = s.maxPoolDepth();
        if (limit > 0) {
            int depth = router.poolDepth();
            if (depth >= limit) {
                ended(Outcome.REJECTED);
                async.resume(poolFull(depth, limit, s.retryAfterSeconds(), requestId));
                return;
            }
        }
        new Exchange(endpoint, body, bytes.length, requestId, async, s).start();
    }

    /** 429 with Retry-After: the prompt pool is at its limit. */
    static Response poolFull(int depth, int limit, int retryAfterSeconds, String requestId) {
        return tooBusy("the prompt pool is full (" + depth + " requests waiting for a decode worker, maxPoolDepth "
                + limit + "); retry after " + retryAfterSeconds + " s", retryAfterSeconds, requestId);
    }

    /** 429 with Retry-After and an OpenAI error body: the prompt pool or the prefill queue is full. */
    static Response tooBusy(String message, int retryAfterSeconds, String requestId) {
        return Response.fromResponse(error(new OpenAiError(429, OpenAiError.RATE_LIMIT, message, null), requestId))
                .header("Retry-After", Integer.toString(retryAfterSeconds)).build();
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

    /** The upstream's own body when it is an OpenAI error body, else one made here. */
    static Response upstreamBody(int status, byte[] body, String requestId, String what) {
        if (!openAiError(body)) {
            return error(new OpenAiError(status, status >= 500 ? OpenAiError.SERVER : OpenAiError.INVALID_REQUEST,
                    what, null), requestId);
        }
        Response.ResponseBuilder b = Response.status(status).type(MediaType.APPLICATION_JSON_TYPE).entity(body);
        if (requestId != null) {
            b.header(VllmConnector.REQUEST_ID_HEADER, requestId);
        }
        return b.build();
    }

    private static boolean openAiError(byte[] body) {
        if (body == null || body.length == 0) {
            return false;
        }
        try {
            JsonNode n = MAPPER.readTree(body);
            return n != null && n.path("error").isObject();
        } catch (Exception notJson) {
            return false;
        }
    }

    /**
     * The data of an in-band error event for an error response made before the stream was
     * committed: its OpenAI body on one line (an SSE data line must not break).
     */
    static String inBand(Response r) {
        if (r.getEntity() instanceof byte[] b && openAiError(b)) {
            try {
                return MAPPER.readTree(b).toString();
            } catch (Exception cannotHappen) {
                // checked above
            }
        }
        return new OpenAiError(r.getStatus(), OpenAiError.SERVER, "HTTP " + r.getStatus(), null).json().toString();
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

    /** A dispatch step at the next decode step boundary, unless the router steps by itself. */
    private void step() {
        if (!router.automaticStepping()) {
            router.requestStep();
        }
    }

    /** The generated text of a chunk's first choice ({@code text}, or {@code delta.content}); null if none. */
    private static String generatedText(JsonNode chunk) {
        JsonNode choice = chunk.path("choices").path(0);
        JsonNode text = choice.get("text");
        if (text == null) {
            text = choice.path("delta").get("content");
        }
        return text != null && text.isTextual() ? text.textValue() : null;
    }

    private static boolean recomputed(JsonNode chunk) {
        JsonNode stop = chunk.path("choices").path(0).get("stop_reason");
        return stop != null && STOP_RECOMPUTED.equals(stop.textValue());
    }

    /**
     * One client request: its answer (chosen once: a plain response, or the event stream), the
     * heartbeats, the token timing, and the hops (one prefill/decode pair each; more than one
     * only when the engine recomputed).
     */
    private final class Exchange {
        private final Endpoint endpoint;
        private final ObjectNode body;
        private final int bodyBytes;
        private final String requestId;
        private final AsyncResponse async;
        private final ProxySettings settings;
        private final boolean stream;
        /** null while undecided, then {@link #PLAIN} or the {@link StreamRelay}: whoever sets it answers. */
        private final AtomicReference<Object> answer = new AtomicReference<>();
        private final AtomicBoolean ended = new AtomicBoolean();
        private final long arrivedNanos = System.nanoTime();
        /** The client left: nothing more starts, whatever is in flight is cancelled. */
        private volatile boolean gone;
        /** A decode stream is relaying tokens: no heartbeats needed. */
        private volatile boolean flowing;
        private volatile Hop hop;
        private volatile ScheduledFuture<?> pinger;

        // touched by one hop's callbacks at a time (hops run one after another)
        private long firstTokenNanos;
        private long lastTokenNanos;
        private long outputTokens;
        private int recomputes;
        /** Output tokens of the hops before the current one (recomputation). */
        private long produced;
        /** prompt_tokens of the first hop: the client's prompt, whatever was appended later. */
        private long promptTokens = -1;
        /** The first chunk id the client saw; later hops' chunks carry it too. */
        private String chunkId;
        /** The text streamed so far, to continue from after a recomputation; null when recomputation is off. */
        private final StringBuilder generated;

        Exchange(Endpoint endpoint, ObjectNode body, int bodyBytes, String requestId, AsyncResponse async,
                ProxySettings settings) {
            this.endpoint = endpoint;
            this.body = body;
            this.bodyBytes = bodyBytes;
            this.requestId = requestId;
            this.async = async;
            this.settings = settings;
            this.stream = body.path("stream").asBoolean(false);
            this.generated = stream && settings.maxRecomputes() > 0 ? new StringBuilder() : null;
        }

        void start() {
            long interval = settings.pingIntervalMillis();
            if (stream && interval > 0) {
                try {
                    // the timer thread serves every request: the commit (a container call) runs on a relay thread
                    pinger = pings.scheduleAtFixedRate(() -> executor.execute(this::ping), interval, interval,
                            TimeUnit.MILLISECONDS);
                } catch (RejectedExecutionException stopping) {
                    LOG.debug("request {}: no heartbeats, the proxy is stopping", requestId);
                }
            }
            startHop(body, requestId);
        }

        private void startHop(ObjectNode hopBody, String upstreamId) {
            Hop h = new Hop(hopBody, upstreamId);
            hop = h;
            h.prefill();
            if (gone) {
                h.cancel(); // the client left while this hop was being set up
            }
        }

        /** The heartbeat: commits the event stream on the first one, then writes {@code : ping}. */
        private void ping() {
            if (flowing || ended.get() || gone) {
                return;
            }
            StreamRelay r = openStream();
            if (r != null) {
                r.ping();
            } else {
                stopPinging(); // answered with a plain response meanwhile
            }
        }

        private void stopPinging() {
            ScheduledFuture<?> p = pinger;
            if (p != null) {
                p.cancel(false);
            }
        }

        /** The client's event stream, committing the 200 if nothing was answered yet; null if a plain answer went. */
        private StreamRelay openStream() {
            Object a = answer.get();
            if (a == null) {
                EventSink sink = sinks.get();
                StreamRelay created = new StreamRelay(sink, executor, settings.relayQueueEvents(), this::clientGone);
                if (answer.compareAndSet(null, created)) {
                    boolean resumed = async.resume(Response.ok(sink.entity(), EVENT_STREAM)
                            .header("Cache-Control", "no-cache")
                            .header(VllmConnector.REQUEST_ID_HEADER, requestId).build());
                    created.start();
                    if (!resumed) {
                        clientGone();
                    }
                    return created;
                }
                a = answer.get();
            }
            return a instanceof StreamRelay r ? r : null;
        }

        /** Answers with a plain response if nothing was answered yet; false if the stream is committed. */
        private boolean answerPlain(Response r) {
            if (answer.compareAndSet(null, PLAIN)) {
                stopPinging();
                async.resume(r);
                return true;
            }
            return false;
        }

        /** Ends the request with an error: its status before the stream is committed, in-band after. */
        private void fail(Outcome outcome, Response error) {
            end(outcome);
            if (!answerPlain(error) && answer.get() instanceof StreamRelay r) {
                r.event(inBand(error));
                r.event("[DONE]");
                r.close();
            }
        }

        /** Tells the observer how the request ended, once (the first outcome wins); heartbeats stop. */
        private void end(Outcome outcome) {
            if (ended.compareAndSet(false, true)) {
                stopPinging();
                ended(outcome);
            }
        }

        /** The client left or lags too far behind: cancel upstream, release at once. */
        private void clientGone() {
            gone = true;
            // counted before the cancellation: the abort completes the placement future, whose
            // callback (another thread) would otherwise count an error first
            end(Outcome.CLIENT_DISCONNECT);
            Hop h = hop;
            if (h != null) {
                h.cancel();
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

        /**
         * A chunk of a continuation hop as the client should see it: the first hop's chunk id,
         * usage over all hops with the client's own prompt length; null to drop it (a hop's
         * opening role chunk, or a chunk with nothing to say).
         */
        private String continued(ObjectNode chunk) {
            JsonNode usage = chunk.get("usage");
            JsonNode choice = chunk.path("choices").path(0);
            boolean finish = choice.hasNonNull("finish_reason");
            String text = generatedText(chunk);
            if (!(usage instanceof ObjectNode) && !finish && (text == null || text.isEmpty())) {
                return null;
            }
            if (chunkId != null) {
                chunk.put("id", chunkId);
            }
            if (usage instanceof ObjectNode u) {
                long completion = u.path("completion_tokens").asLong() + produced;
                long prompt = promptTokens >= 0 ? promptTokens : u.path("prompt_tokens").asLong();
                u.put("prompt_tokens", prompt);
                u.put("completion_tokens", completion);
                u.put("total_tokens", prompt + completion);
            }
            return chunk.toString();
        }

        /** One prefill/decode pair: its router request, its upstream calls, its share of the stream. */
        private final class Hop implements DecodeListener {
            private final long id = IDS.incrementAndGet();
            private final ObjectNode hopBody;
            private final String upstreamId;
            private final boolean continuation;
            private final AtomicBoolean released = new AtomicBoolean();
            private final TokenCounter counter = new TokenCounter();
            private volatile CompletableFuture<PrefillResult> prefill;
            private volatile DecodeExchange upstream;
            private StreamRelay relay;
            private int worker = -1;
            private boolean done;
            private boolean errorSeen;

            Hop(ObjectNode hopBody, String upstreamId) {
                this.hopBody = hopBody;
                this.upstreamId = upstreamId;
                this.continuation = recomputes > 0;
            }

            void prefill() {
                CompletableFuture<PrefillResult> f = connector.prefill(upstreamId, endpoint.path, hopBody);
                prefill = f;
                f.whenCompleteAsync(this::prefilled, executor);
            }

            private void prefilled(PrefillResult p, Throwable e) {
                if (gone) {
                    return; // aborted already; nothing was submitted
                }
                if (e != null) {
                    Throwable c = cause(e);
                    if (c instanceof PrefillQueueFullException) { // back-pressure from the prefill tier
                        fail(Outcome.REJECTED, tooBusy(c.getMessage(), settings.retryAfterSeconds(), requestId));
                    } else {
                        fail(Outcome.ERROR, upstreamError(c, requestId, "prefill"));
                    }
                    return;
                }
                router.submit(id, p.promptTokens(), PromptKeys.of(endpoint, hopBody), bodyBytes)
                        .copy()
                        .orTimeout(settings.placementTimeoutMillis(), TimeUnit.MILLISECONDS)
                        .whenCompleteAsync((placement, f) -> placed(p, placement, f), executor);
                if (gone) {
                    // the client left between the check above and the submission: its abort may
                    // have reached the router first, so abort again after the submission
                    router.abort(id);
                }
                step();
            }

            private void placed(PrefillResult p, Placement placement, Throwable f) {
                if (f != null) {
                    release(false);
                    if (gone) {
                        return; // the client left: counted and released already
                    }
                    Throwable c = cause(f);
                    if (c instanceof TimeoutException) {
                        fail(Outcome.TIMEOUT, error(new OpenAiError(503, OpenAiError.UNAVAILABLE, "waited more than "
                                + settings.placementTimeoutMillis() + " ms for a decode worker", null), requestId));
                    } else if (c instanceof CancellationException) {
                        fail(Outcome.ERROR, error(new OpenAiError(503, OpenAiError.UNAVAILABLE,
                                "the request was aborted", null), requestId));
                    } else {
                        fail(Outcome.ERROR, error(new OpenAiError(503, OpenAiError.UNAVAILABLE,
                                "the router did not place the request: " + c.getMessage(), null), requestId));
                    }
                    return;
                }
                if (gone) {
                    release(false);
                    return;
                }
                worker = placement.worker();
                if (worker < 0 || worker >= connector.decodeWorkers()) {
                    release(false);
                    fail(Outcome.ERROR, error(new OpenAiError(503, OpenAiError.UNAVAILABLE, "the router placed the"
                            + " request on worker " + worker + ", which has no decode endpoint (router workers and"
                            + " connector decodeWorkers disagree)", null), requestId));
                    return;
                }
                if (promptTokens < 0) {
                    promptTokens = p.promptTokens();
                }
                DecodeExchange u = connector.decode(upstreamId, worker, endpoint.path, hopBody, p.kvTransferParams(),
                        this);
                upstream = u;
                if (gone) {
                    u.cancel();
                }
            }

            /** Releases the hop's load once: complete (learned) or abort. */
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

            /** The client left: stop whatever this hop has in flight (retries of its prefill, its decode), release it. */
            void cancel() {
                CompletableFuture<PrefillResult> f = prefill;
                if (f != null) {
                    f.cancel(false);
                }
                DecodeExchange u = upstream;
                if (u != null) {
                    u.cancel();
                }
                release(false);
            }

            @Override
            public void onHeaders(int status, boolean eventStream) {
                if (status == 200 && eventStream) {
                    relay = openStream();
                    if (relay == null) {
                        // cannot happen (a plain answer ends the request before its decode), but never write nowhere
                        done = true;
                        DecodeExchange u = upstream;
                        if (u != null) {
                            u.cancel();
                        }
                        release(false);
                        return;
                    }
                    flowing = true;
                }
            }

            @Override
            public void onEvent(String data) {
                if (done) {
                    return;
                }
                if ("[DONE]".equals(data)) {
                    done = true;
                    flowing = false;
                    relay.event(data);
                    relay.close();
                    release(!errorSeen);
                    if (!errorSeen) {
                        streamDone();
                    }
                    end(errorSeen ? Outcome.ERROR : Outcome.OK);
                    return;
                }
                String out = data;
                try {
                    JsonNode chunk = MAPPER.readTree(data);
                    if (chunk != null && chunk.has("error")) {
                        errorSeen = true;
                    } else if (chunk instanceof ObjectNode c) {
                        int n = counter.onChunk(c);
                        if (n > 0) {
                            tokensSeen(n);
                            router.tokens(id, n);
                        }
                        if (generated != null) {
                            out = remember(c, data);
                            if (recomputed(c)) {
                                recompute(c);
                                return;
                            }
                        }
                    }
                } catch (Exception e) {
                    LOG.debug("request {}: an SSE event that is not JSON: {}", requestId, e.toString());
                }
                if (out != null) {
                    relay.event(out);
                }
            }

            /** Keeps the chunk's text for a continuation; on a continuation hop, the chunk as the client sees it. */
            private String remember(ObjectNode chunk, String data) {
                String text = generatedText(chunk);
                if (text != null) {
                    generated.append(text);
                }
                if (chunkId == null && chunk.path("id").isTextual()) {
                    chunkId = chunk.get("id").textValue();
                }
                return continuation ? continued(chunk) : data;
            }

            /**
             * The engine ran out of KV for this decode: forward the chunk's text without its finish,
             * release this hop, continue with a new hop from the text generated so far.
             */
            private void recompute(ObjectNode chunk) {
                done = true; // the engine's [DONE] after this chunk is not the client's
                flowing = false;
                String text = generatedText(chunk);
                if (text != null && !text.isEmpty()) {
                    ObjectNode choice = (ObjectNode) chunk.path("choices").path(0);
                    choice.putNull("finish_reason");
                    choice.putNull("stop_reason");
                    String out = continuation ? continued(chunk) : chunk.toString();
                    if (out != null) {
                        relay.event(out);
                    }
                }
                release(false); // a cut decode: its length is nothing to learn from
                produced += counter.total();
                if (recomputes >= settings.maxRecomputes()) {
                    fail(Outcome.ERROR, error(new OpenAiError(502, OpenAiError.SERVER, "the decode worker ran out of"
                            + " KV cache (stop_reason 'recomputed') " + (recomputes + 1) + " times; maxRecomputes is "
                            + settings.maxRecomputes(), null), requestId));
                    return;
                }
                ObjectNode next;
                try {
                    next = Resubmission.body(endpoint, body, generated.toString(), produced);
                } catch (OpenAiError e) {
                    fail(Outcome.ERROR, error(e, requestId));
                    return;
                }
                if (next == null) {
                    // the client's token budget is used up: what it has is the whole answer
                    relay.event("[DONE]");
                    relay.close();
                    end(Outcome.OK);
                    return;
                }
                recomputes++;
                LOG.debug("request {}: recomputed by decode worker {} after {} tokens; re-submitting ({} of {})",
                        requestId, worker, produced, recomputes, settings.maxRecomputes());
                startHop(next, requestId + "-recompute-" + recomputes);
            }

            @Override
            public void onEnd(int status, String contentType, byte[] answer) {
                if (done) {
                    return;
                }
                if (relay != null) {
                    failStream("the decode worker ended the stream without [DONE]");
                    return;
                }
                if (status == 200 && Exchange.this.answer.get() instanceof StreamRelay) {
                    release(false);
                    fail(Outcome.ERROR, error(new OpenAiError(502, OpenAiError.SERVER, "decode worker " + worker
                            + " answered without an event stream", null), requestId));
                } else if (status == 200) {
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
                    answerPlain(Response.ok(answer, contentType == null ? MediaType.APPLICATION_JSON : contentType)
                            .header(VllmConnector.REQUEST_ID_HEADER, requestId).build());
                } else {
                    release(false);
                    fail(Outcome.ERROR, upstreamBody(status, answer, requestId, "decode worker " + worker + " failed"));
                }
            }

            @Override
            public void onFailure(Throwable cause) {
                if (done) {
                    return;
                }
                if (relay != null) {
                    failStream("the decode worker failed mid-stream: " + cause);
                    return;
                }
                release(false);
                fail(Outcome.ERROR, error(new OpenAiError(502, OpenAiError.SERVER, "decode worker " + worker
                        + " failed: " + cause, null), requestId));
            }

            /** Mid-stream failure: in-band error, then [DONE]; the load released. */
            private void failStream(String message) {
                done = true;
                flowing = false;
                release(false);
                fail(Outcome.ERROR, error(new OpenAiError(502, OpenAiError.SERVER, message, null), requestId));
            }
        }
    }
}
