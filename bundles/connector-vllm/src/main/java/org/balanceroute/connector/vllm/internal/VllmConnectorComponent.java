package org.balanceroute.connector.vllm.internal;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.function.Consumer;
import java.util.function.Function;
import org.balanceroute.connector.vllm.DecodeAvailabilityListener;
import org.balanceroute.connector.vllm.DecodeExchange;
import org.balanceroute.connector.vllm.DecodeListener;
import org.balanceroute.connector.vllm.PrefillQueueFullException;
import org.balanceroute.connector.vllm.PrefillResult;
import org.balanceroute.connector.vllm.UpstreamException;
import org.balanceroute.connector.vllm.UpstreamResponse;
import org.balanceroute.connector.vllm.VllmConnector;
import org.eclipse.jetty.client.BufferingResponseListener;
import org.eclipse.jetty.client.BytesRequestContent;
import org.eclipse.jetty.client.HttpClient;
import org.eclipse.jetty.client.Request;
import org.eclipse.jetty.client.Response;
import org.eclipse.jetty.client.Result;
import org.eclipse.jetty.util.thread.QueuedThreadPool;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Deactivate;
import org.osgi.service.component.annotations.Modified;
import org.osgi.service.component.annotations.Reference;
import org.osgi.service.component.annotations.ReferenceCardinality;
import org.osgi.service.component.annotations.ReferencePolicy;
import org.osgi.service.metatype.annotations.Designate;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The vLLM / vllm-ascend connector over one Jetty 12 {@link HttpClient} (started at activation,
 * stopped at deactivation; answers read as they arrive, never a thread per stream).
 *
 * <p>Prefill: the least-loaded (fewest in flight) healthy instance, another one on retry when
 * there is one; {@link RetryPolicy} decides retries; {@link PrefillSlots} bounds the prefills in
 * flight per instance and queues the rest (full queue: {@link PrefillQueueFullException}). No
 * prefill instance configured: co-located mode, s_i estimated ({@link Payloads#estimatedPromptTokens}).
 * Decode: the SSE body parsed incrementally ({@link SseParser}), each event handed on at once.
 *
 * <p>Health: every {@code healthIntervalMillis} each endpoint's {@code GET /health} (with the rank
 * header for a pinned worker); a failure marks it down (logged once per transition), a 200 back
 * up; a decode request refused at connect marks its worker down at once. Decode marks are told
 * to every registered {@link DecodeAvailabilityListener} (the router ejects and re-admits the
 * worker), serially under a small lock that only health transitions take, never a request. Nothing
 * fails at start when no engine runs: the checks only mark endpoints down.
 *
 * <p>Configuration changes apply live (endpoints, key, timeouts, retries, budget, health period;
 * requests in flight and queued prefills finish where they are; an endpoint kept keeps its
 * mark); the connection pool sizes and the connect timeout apply at the next activation. An
 * invalid configuration is logged naming the property, and the previous one (at first
 * activation, the defaults) stays in force.
 */
@Component(service = VllmConnector.class, name = VllmConnector.PID, configurationPid = VllmConnector.PID)
@Designate(ocd = ConnectorConfig.class)
public final class VllmConnectorComponent implements VllmConnector {

    private static final Logger LOG = LoggerFactory.getLogger(VllmConnectorComponent.class);
    /** Pause before a decode connect is tried again. */
    private static final long RETRY_DELAY_MILLIS = 10;
    private static final ObjectMapper MAPPER = new ObjectMapper();
    private static final String JSON = "application/json";

    private final HttpClient client;
    private final ScheduledExecutorService scheduler;
    private final List<DecodeAvailabilityListener> listeners = new CopyOnWriteArrayList<>();
    /** Serialises decode health transitions and what listeners are told, so they hear them in order. */
    private final Object healthLock = new Object();
    private volatile Endpoints endpoints;
    private ScheduledFuture<?> healthChecks;

    /** Endpoints of one configuration with their health marks and prefill slots. */
    private static final class Endpoints {
        final ConnectorSettings settings;
        final AtomicIntegerArray prefillDown;
        final AtomicIntegerArray decodeDown;
        /** When the evidence behind each decode mark was gathered (nanoTime); under the health lock. */
        final long[] decodeMarkedAt;
        /** Null in co-located mode. */
        final PrefillSlots prefillSlots;

        /** The marks of the endpoints {@code previous} also had are kept: a config edit does not re-admit a dead engine. */
        Endpoints(ConnectorSettings s, Endpoints previous) {
            settings = s;
            prefillDown = new AtomicIntegerArray(s.prefillUrls().size());
            decodeDown = new AtomicIntegerArray(s.decodeWorkers().size());
            decodeMarkedAt = new long[s.decodeWorkers().size()];
            java.util.Arrays.fill(decodeMarkedAt, System.nanoTime());
            prefillSlots = s.prefillUrls().isEmpty() ? null
                    : new PrefillSlots(prefillDown, s.prefillMaxInFlight(), s.prefillQueueMax());
            if (previous != null) {
                for (int i = 0; i < s.prefillUrls().size(); i++) {
                    int was = previous.settings.prefillUrls().indexOf(s.prefillUrls().get(i));
                    prefillDown.set(i, was < 0 ? 0 : previous.prefillDown.get(was));
                }
                for (int g = 0; g < s.decodeWorkers().size(); g++) {
                    int was = previous.settings.decodeWorkers().indexOf(s.decodeWorkers().get(g));
                    decodeDown.set(g, was < 0 ? 0 : previous.decodeDown.get(was));
                    if (was >= 0) {
                        decodeMarkedAt[g] = previous.decodeMarkedAt[was];
                    }
                }
            }
        }
    }

    @Activate
    public VllmConnectorComponent(ConnectorConfig config) throws Exception {
        this(settingsOrDefaults(config));
    }

    /** A connector without a framework (tests): starts its HTTP client and health checks. */
    public VllmConnectorComponent(ConnectorSettings settings) throws Exception {
        QueuedThreadPool threads = new QueuedThreadPool();
        threads.setName("balanceroute-connector");
        threads.setDaemon(true);
        client = new HttpClient();
        client.setExecutor(threads);
        client.setConnectTimeout(settings.connectTimeoutMillis());
        client.setMaxConnectionsPerDestination(settings.maxConnectionsPerEndpoint());
        client.setMaxRequestsQueuedPerDestination(settings.maxQueuedPerEndpoint());
        client.setFollowRedirects(false);
        client.start();
        scheduler = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "balanceroute-connector-scheduler");
            t.setDaemon(true);
            return t;
        });
        endpoints = new Endpoints(settings, null);
        scheduleHealthChecks(settings.healthIntervalMillis());
    }

    private static ConnectorSettings settingsOrDefaults(ConnectorConfig config) {
        try {
            return ConnectorSettings.from(config);
        } catch (IllegalArgumentException e) {
            LOG.error("{}: invalid configuration, the defaults apply: {}", PID, e.getMessage());
            return ConnectorSettings.defaults();
        }
    }

    @Modified
    void modified(ConnectorConfig config) {
        try {
            ConnectorSettings s = ConnectorSettings.from(config);
            synchronized (healthLock) {
                Endpoints next = new Endpoints(s, endpoints);
                endpoints = next;
                for (DecodeAvailabilityListener l : listeners) {
                    tellAll(next, l);
                }
            }
            scheduleHealthChecks(s.healthIntervalMillis());
            LOG.info("{}: {} prefill instance(s){}, {} decode worker(s)", PID, s.prefillUrls().size(),
                    s.prefillUrls().isEmpty() ? " (co-located mode)" : "", s.decodeWorkers().size());
        } catch (IllegalArgumentException e) {
            LOG.error("{}: invalid configuration, the previous one stays in force: {}", PID, e.getMessage());
        }
    }

    @Deactivate
    public void close() {
        scheduler.shutdownNow();
        try {
            client.stop();
        } catch (Exception e) {
            LOG.warn("{}: stopping the HTTP client: {}", PID, e.toString());
        }
    }

    /** Registers a listener (whiteboard) and tells it every decode worker's current mark. */
    @Reference(name = "availabilityListener", cardinality = ReferenceCardinality.MULTIPLE,
            policy = ReferencePolicy.DYNAMIC, unbind = "removeAvailabilityListener")
    public void addAvailabilityListener(DecodeAvailabilityListener listener) {
        synchronized (healthLock) {
            listeners.add(listener);
            tellAll(endpoints, listener);
        }
    }

    public void removeAvailabilityListener(DecodeAvailabilityListener listener) {
        listeners.remove(listener);
    }

    @Override
    public int decodeWorkers() {
        return endpoints.settings.decodeWorkers().size();
    }

    @Override
    public int prefillInstances() {
        return endpoints.settings.prefillUrls().size();
    }

    @Override
    public boolean decodeHealthy(int worker) {
        return endpoints.decodeDown.get(worker) == 0;
    }

    @Override
    public boolean prefillHealthy(int instance) {
        return endpoints.prefillDown.get(instance) == 0;
    }

    @Override
    public int prefillInFlight(int instance) {
        PrefillSlots slots = endpoints.prefillSlots;
        return slots == null ? 0 : slots.inFlight(instance);
    }

    @Override
    public int prefillQueued() {
        PrefillSlots slots = endpoints.prefillSlots;
        return slots == null ? 0 : slots.queued();
    }

    // ---- prefill -------------------------------------------------------------------------

    @Override
    public CompletableFuture<PrefillResult> prefill(String requestId, String path, ObjectNode clientBody) {
        Endpoints ep = endpoints;
        if (ep.prefillSlots == null) {
            return CompletableFuture.completedFuture(PrefillResult.coLocated(Payloads.estimatedPromptTokens(clientBody)));
        }
        CompletableFuture<PrefillResult> result = new CompletableFuture<>();
        byte[] body;
        try {
            body = MAPPER.writeValueAsBytes(Payloads.prefillBody(clientBody));
        } catch (JsonProcessingException e) {
            result.completeExceptionally(e);
            return result;
        }
        startPrefill(ep, requestId, path, body, 1, -1, result);
        return result;
    }

    /** Attempt {@code attempt} on a free slot now, or queued for one; a full queue fails the first attempt at once. */
    private void startPrefill(Endpoints ep, String requestId, String path, byte[] body, int attempt, int previous,
            CompletableFuture<PrefillResult> result) {
        boolean admitted = ep.prefillSlots.acquire(previous, attempt > 1,
                i -> attemptPrefill(ep, requestId, path, body, attempt, i, result));
        if (!admitted) {
            result.completeExceptionally(new PrefillQueueFullException("every prefill instance is at its budget of "
                    + ep.settings.prefillMaxInFlight() + " in flight and " + ep.settings.prefillQueueMax()
                    + " prefills already wait"));
        }
    }

    /** One attempt on instance {@code i}, whose slot it holds and releases when the answer is in. */
    private void attemptPrefill(Endpoints ep, String requestId, String path, byte[] body, int attempt, int i,
            CompletableFuture<PrefillResult> result) {
        if (result.isDone()) {
            ep.prefillSlots.release(i);
            return;
        }
        ConnectorSettings s = ep.settings;
        Request request = client.newRequest(s.prefillUrls().get(i) + path)
                .method("POST")
                .timeout(s.prefillTimeoutMillis(), TimeUnit.MILLISECONDS)
                .headers(h -> {
                    h.put(REQUEST_ID_HEADER, requestId);
                    if (!s.apiKey().isEmpty()) {
                        h.put("Authorization", "Bearer " + s.apiKey());
                    }
                })
                .body(new BytesRequestContent(JSON, body));
        // the proxy cancels the future when its client leaves: the prefill in flight stops too
        result.whenComplete((v, e) -> {
            if (result.isCancelled()) {
                request.abort(new java.util.concurrent.CancellationException("the client left"));
            }
        });
        request.send(new BufferingResponseListener(s.maxResponseBytes()) {
            @Override
            public void onComplete(Result r) {
                ep.prefillSlots.release(i);
                if (result.isDone()) {
                    return; // cancelled: nobody waits for it, and it is not tried again
                }
                int status = r.isFailed() || r.getResponse() == null ? 0 : r.getResponse().getStatus();
                byte[] content = r.isFailed() ? null : getContent();
                if (status == 200) {
                    try {
                        result.complete(parsePrefill(content, i, attempt));
                    } catch (UpstreamException e) {
                        result.completeExceptionally(e);
                    }
                    return;
                }
                String what = status == 0 ? String.valueOf(r.getFailure()) : "HTTP " + status;
                if (s.retry().retryAfter(attempt, status)) {
                    long wait = s.retry().backoffMillis(attempt);
                    LOG.debug("prefill {} attempt {} on {} failed ({}), retrying in {} ms", requestId, attempt,
                            s.prefillUrls().get(i), what, wait);
                    try {
                        scheduler.schedule(() -> startPrefill(ep, requestId, path, body, attempt + 1, i, result),
                                wait, TimeUnit.MILLISECONDS);
                    } catch (RuntimeException rejected) {
                        result.completeExceptionally(new UpstreamException(0, null, "connector stopped", rejected));
                    }
                } else {
                    result.completeExceptionally(new UpstreamException(status, content,
                            "prefill failed after " + attempt + " attempt(s): " + what, r.getFailure()));
                }
            }
        });
    }

    /** s_i from {@code usage.prompt_tokens}; the handle from the top-level {@code kv_transfer_params}, verbatim. */
    static PrefillResult parsePrefill(byte[] content, int instance, int attempts) {
        JsonNode root;
        try {
            root = MAPPER.readTree(content);
        } catch (Exception e) {
            throw new UpstreamException(502, null, "prefill answered 200 with a body that is not JSON", e);
        }
        JsonNode promptTokens = root == null ? null : root.path("usage").get("prompt_tokens");
        if (promptTokens == null || !promptTokens.canConvertToInt() || promptTokens.intValue() < 1) {
            throw new UpstreamException(502, null, "prefill answered without usage.prompt_tokens >= 1", null);
        }
        JsonNode kv = root.get("kv_transfer_params");
        return new PrefillResult(promptTokens.intValue(), kv instanceof ObjectNode o ? o : null, instance, attempts);
    }

    // ---- decode --------------------------------------------------------------------------

    @Override
    public DecodeExchange decode(String requestId, int worker, String path, ObjectNode clientBody,
            ObjectNode kvTransferParams, DecodeListener listener) {
        Endpoints ep = endpoints;
        ConnectorSettings s = ep.settings;
        ConnectorSettings.DecodeWorker w = s.decodeWorkers().get(worker);
        DecodeRelay relay = new DecodeRelay(listener, s.maxResponseBytes(),
                () -> markDecode(ep, worker, false, System.nanoTime(), "a decode request was refused at connect"));
        byte[] body;
        try {
            body = MAPPER.writeValueAsBytes(Payloads.decodeBody(clientBody, kvTransferParams));
        } catch (JsonProcessingException e) {
            listener.onFailure(e);
            return () -> { };
        }
        relay.start(s.decodeConnectRetries(), this::later, body, bytes -> client.newRequest(w.url() + path)
                .method("POST")
                .idleTimeout(s.decodeIdleTimeoutMillis(), TimeUnit.MILLISECONDS)
                .headers(h -> {
                    h.put(REQUEST_ID_HEADER, requestId);
                    if (w.rank() >= 0) {
                        h.put(RANK_HEADER, Integer.toString(w.rank()));
                    }
                    if (!s.apiKey().isEmpty()) {
                        h.put("Authorization", "Bearer " + s.apiKey());
                    }
                })
                .body(new OneShotBytesContent(JSON, bytes))
                .onRequestCommit(relay::committed)
                .onResponseHeaders(relay::headers)
                .onResponseContent(relay::content));
        return relay;
    }

    /** One decode answer, from the HTTP client's callbacks (serialised per exchange) to the listener. */
    private static final class DecodeRelay implements DecodeExchange {
        private final DecodeListener listener;
        private final int maxBytes;
        private final Runnable refused;
        private Function<byte[], Request> requests;
        /** The body, kept for a new attempt until an answer began; then let go (a stream lasts long). */
        private volatile byte[] body;
        private Consumer<Runnable> later;
        private int connectRetriesLeft;
        /** The current attempt's request went out on a connection: it is never sent again. */
        private volatile boolean committed;
        volatile Request request;
        private volatile boolean cancelled;
        private int status;
        private String contentType;
        private SseParser parser;
        private ByteArrayOutputStream buffer;
        private boolean overflow;

        DecodeRelay(DecodeListener listener, int maxBytes, Runnable refused) {
            this.listener = listener;
            this.maxBytes = maxBytes;
            this.refused = refused;
        }

        /** Sends the first attempt; a connect timeout sends a new one, up to {@code connectRetries} times. */
        void start(int connectRetries, Consumer<Runnable> later, byte[] body, Function<byte[], Request> requests) {
            this.requests = requests;
            this.body = body;
            this.later = later;
            this.connectRetriesLeft = connectRetries;
            send();
        }

        private void send() {
            byte[] b = body;
            if (b == null) {
                return; // already answered or given up
            }
            committed = false;
            Request r = requests.apply(b);
            request = r;
            if (cancelled) { // cancel() ran before this attempt existed
                r.abort(new java.util.concurrent.CancellationException("cancelled by the proxy"));
            }
            r.send(this::complete);
        }

        void committed(Request r) {
            committed = true;
        }

        void headers(Response response) {
            body = null; // answered: no more attempts
            status = response.getStatus();
            contentType = response.getHeaders().get("Content-Type");
            boolean stream = status == 200 && contentType != null
                    && contentType.toLowerCase(java.util.Locale.ROOT).startsWith("text/event-stream");
            if (stream) {
                parser = new SseParser(data -> {
                    if (!cancelled) {
                        listener.onEvent(data);
                    }
                });
            } else {
                buffer = new ByteArrayOutputStream();
            }
            if (!cancelled) {
                listener.onHeaders(status, stream);
            }
        }

        void content(Response response, ByteBuffer chunk) {
            if (cancelled) {
                return;
            }
            if (parser != null) {
                parser.feed(chunk);
            } else if (buffer != null) {
                if (buffer.size() + chunk.remaining() > maxBytes) {
                    overflow = true;
                    chunk.position(chunk.limit());
                } else {
                    byte[] b = new byte[chunk.remaining()];
                    chunk.get(b);
                    buffer.writeBytes(b);
                }
            }
        }

        void complete(Result result) {
            if (cancelled) {
                return;
            }
            if (result.isFailed()) {
                if (!committed && status == 0 && connectRetriesLeft > 0 && body != null
                        && connectTimedOut(result.getFailure())) {
                    // never committed to a connection: a new attempt cannot run the request twice (the
                    // failure's own message is not proof: Jetty can report another connection's
                    // connect timeout for a request that went out, and the engine then saw it twice)
                    connectRetriesLeft--;
                    LOG.debug("decode connect timed out, trying a new connection ({} more allowed)", connectRetriesLeft);
                    // not from this callback: the failed connect also fails whatever is queued for it
                    later.accept(this::send);
                    return;
                }
                body = null;
                if (contentType == null && status == 0 && refusedAtConnect(result.getFailure())) {
                    refused.run(); // no need to wait for the next health check to stop routing there
                }
                listener.onFailure(result.getFailure());
            } else if (overflow) {
                listener.onFailure(new UpstreamException(502, null, "decode answer larger than maxResponseBytes", null));
            } else {
                if (parser != null) {
                    parser.finish();
                }
                listener.onEnd(status, contentType, buffer == null ? new byte[0] : buffer.toByteArray());
            }
        }

        private static boolean connectTimedOut(Throwable t) {
            for (Throwable c = t; c != null; c = c.getCause()) {
                // Jetty's ClientConnector fails a connect that outlived connectTimeout so
                if (c instanceof java.net.SocketTimeoutException && "Connect Timeout".equals(c.getMessage())) {
                    return true;
                }
            }
            return false;
        }

        private static boolean refusedAtConnect(Throwable t) {
            for (Throwable c = t; c != null; c = c.getCause()) {
                if (c instanceof java.net.ConnectException) {
                    return true;
                }
            }
            return false;
        }

        @Override
        public void cancel() {
            if (!cancelled) {
                cancelled = true;
                body = null;
                Request r = request;
                if (r != null) {
                    r.abort(new java.util.concurrent.CancellationException("cancelled by the proxy"));
                }
            }
        }
    }

    /** Runs a retry shortly, on the connector's scheduler; at once if the connector is closing. */
    private void later(Runnable r) {
        try {
            scheduler.schedule(r, RETRY_DELAY_MILLIS, TimeUnit.MILLISECONDS);
        } catch (java.util.concurrent.RejectedExecutionException closing) {
            r.run();
        }
    }

    // ---- GET on the decode tier ----------------------------------------------------------

    @Override
    public CompletableFuture<UpstreamResponse> getFromFirstDecode(String path) {
        CompletableFuture<UpstreamResponse> result = new CompletableFuture<>();
        getFrom(endpoints, path, 0, null, result);
        return result;
    }

    private void getFrom(Endpoints ep, String path, int worker, UpstreamException last,
            CompletableFuture<UpstreamResponse> result) {
        List<ConnectorSettings.DecodeWorker> workers = ep.settings.decodeWorkers();
        if (worker >= workers.size()) {
            result.completeExceptionally(last != null ? last
                    : new UpstreamException(0, null, "no decode worker answered", null));
            return;
        }
        send("GET", workers.get(worker), path, ep.settings, Math.min(10_000, ep.settings.prefillTimeoutMillis()))
                .whenComplete((r, e) -> {
                    if (e == null && r.status() == 200) {
                        result.complete(r);
                    } else {
                        UpstreamException u = e != null
                                ? new UpstreamException(0, null, "decode worker " + worker + ": " + e, e)
                                : new UpstreamException(r.status(), r.body(),
                                        "decode worker " + worker + ": HTTP " + r.status(), null);
                        getFrom(ep, path, worker + 1, u, result);
                    }
                });
    }

    private CompletableFuture<UpstreamResponse> send(String method, ConnectorSettings.DecodeWorker w, String path,
            ConnectorSettings s, long timeoutMillis) {
        CompletableFuture<UpstreamResponse> f = new CompletableFuture<>();
        client.newRequest(w.url() + path)
                .method(method)
                .timeout(timeoutMillis, TimeUnit.MILLISECONDS)
                .headers(h -> {
                    if (w.rank() >= 0) {
                        h.put(RANK_HEADER, Integer.toString(w.rank()));
                    }
                    if (!s.apiKey().isEmpty()) {
                        h.put("Authorization", "Bearer " + s.apiKey());
                    }
                })
                .send(new BufferingResponseListener(s.maxResponseBytes()) {
                    @Override
                    public void onComplete(Result r) {
                        if (r.isFailed()) {
                            f.completeExceptionally(r.getFailure());
                        } else {
                            f.complete(new UpstreamResponse(r.getResponse().getStatus(), getMediaType(), getContent()));
                        }
                    }
                });
        return f;
    }

    // ---- health --------------------------------------------------------------------------

    /** (Re)starts the periodic checks, the first one now. */
    private synchronized void scheduleHealthChecks(long intervalMillis) {
        if (healthChecks != null) {
            healthChecks.cancel(false);
        }
        try {
            healthChecks = scheduler.scheduleWithFixedDelay(this::checkHealth, 0, intervalMillis, TimeUnit.MILLISECONDS);
        } catch (RuntimeException stopped) {
            LOG.debug("{}: health checks not scheduled: {}", PID, stopped.toString());
        }
    }

    private void checkHealth() {
        Endpoints ep = endpoints;
        ConnectorSettings s = ep.settings;
        long timeout = Math.max(100, Math.min(2_000, s.healthIntervalMillis()));
        for (int i = 0; i < s.prefillUrls().size(); i++) {
            int index = i;
            check(new ConnectorSettings.DecodeWorker(s.prefillUrls().get(i), -1), s, timeout,
                    up -> mark(ep.prefillDown, index, up, "prefill instance " + index + " (" + s.prefillUrls().get(index) + ")"));
        }
        for (int g = 0; g < s.decodeWorkers().size(); g++) {
            int worker = g;
            long sent = System.nanoTime();
            check(s.decodeWorkers().get(g), s, timeout, up -> markDecode(ep, worker, up, sent, "health check"));
        }
    }

    private void check(ConnectorSettings.DecodeWorker w, ConnectorSettings s, long timeout,
            java.util.function.Consumer<Boolean> outcome) {
        try {
            send("GET", w, "/health", s, timeout).whenComplete((r, e) -> outcome.accept(e == null && r.status() == 200));
        } catch (RuntimeException e) {
            outcome.accept(false);
        }
    }

    /**
     * A decode worker's mark, told to the listeners before it is set: whoever sees the new mark
     * (a test, {@code /health}) knows the router has been told. Marks of a replaced configuration
     * are dropped, and so is evidence older than the mark's own: a health check sent before a
     * decode was refused must not bring the worker back when its answer comes in after.
     *
     * @param observedAt when the evidence was gathered (a check: when it was sent), nanoTime
     */
    private void markDecode(Endpoints ep, int worker, boolean up, long observedAt, String why) {
        synchronized (healthLock) {
            if (ep != endpoints || (ep.decodeDown.get(worker) == 0) == up || observedAt - ep.decodeMarkedAt[worker] < 0) {
                return;
            }
            ep.decodeMarkedAt[worker] = observedAt;
            for (DecodeAvailabilityListener l : listeners) {
                tell(l, worker, up);
            }
            ep.decodeDown.set(worker, up ? 0 : 1);
        }
        LOG.info("decode worker {} ({}) is {}", worker, ep.settings.decodeWorkers().get(worker).url(),
                up ? "up: back in routing" : "down (" + why + "): out of routing");
    }

    /** Every decode worker's mark, to one listener (under the health lock). */
    private static void tellAll(Endpoints ep, DecodeAvailabilityListener l) {
        try {
            l.decodeWorkers(ep.decodeDown.length());
        } catch (RuntimeException e) {
            LOG.warn("{}: availability listener {} failed: {}", PID, l, e.toString());
        }
        for (int g = 0; g < ep.decodeDown.length(); g++) {
            tell(l, g, ep.decodeDown.get(g) == 0);
        }
    }

    private static void tell(DecodeAvailabilityListener l, int worker, boolean up) {
        try {
            l.decodeWorkerAvailable(worker, up);
        } catch (RuntimeException e) {
            LOG.warn("{}: availability listener {} failed: {}", PID, l, e.toString());
        }
    }

    private static void mark(AtomicIntegerArray down, int index, boolean up, String what) {
        int was = down.getAndSet(index, up ? 0 : 1);
        if (was == 1 && up) {
            LOG.info("{} is up", what);
        } else if (was == 0 && !up) {
            LOG.info("{} is down (health check failed)", what);
        }
    }
}
