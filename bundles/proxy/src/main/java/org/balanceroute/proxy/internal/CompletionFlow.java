package org.balanceroute.proxy.internal;

import com.fasterxml.jackson.databind.node.ObjectNode;
import jakarta.ws.rs.container.AsyncResponse;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;
import org.balanceroute.connector.vllm.VllmConnector;
import org.balanceroute.fleet.Fleet;
import org.balanceroute.fleet.FleetService;
import org.balanceroute.fleet.PoolTopology;
import org.balanceroute.proxy.ProxyObserver;
import org.balanceroute.proxy.ProxyObserver.Outcome;
import org.balanceroute.router.RouterService;
import org.balanceroute.api.config.ConfigProperties;
import org.balanceroute.api.config.ConfigurationException;
import org.osgi.framework.BundleContext;
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
 * One request's way through the proxy, in the pieces it meets: the front ({@link CompletionsServlet}
 * and {@link #handle}: validation, request id), <b>admission</b> (the prompt pool's depth, below),
 * the <b>exchange</b> ({@link Exchange}: the answer chosen once, heartbeats, errors before and
 * after the commit, recomputation; {@link Hop}: the prefill hop, the router's placement, the
 * decode hop) and the <b>relay</b> ({@link Hop#onEvent(java.nio.ByteBuffer, int, int)},
 * {@link ChunkScan}, {@link TokenCounter}, {@link ClientStream}: each event scanned where the
 * HTTP client read it, counted, and written to the client with the rest of its read, on the same
 * thread). This class is the DS component that holds what they share: the router, the connector,
 * the settings, the observer, one small executor and one timer.
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
 * Non-streaming answers are not continued (see docs/proxy.md).
 *
 * <p><b>Holding.</b> The router and the connector are dynamic references, so this component, and
 * the servlet in front of it, stay up while either is updated: a request that finds one of them
 * away is parked ({@link Holding}: no thread, its servlet request stays asynchronous) and goes
 * on when both are back; after {@code holdTimeoutMillis}, or beyond {@code maxHeldRequests}, it
 * gets 503 with {@code Retry-After}. The same holds a placed request whose decode finds no
 * connector, and a request the old router still had in its pool (its prefill done) is submitted
 * again to the new one ({@link Hop}). With both bound, the cost is two volatile reads.
 *
 * <p><b>Threads.</b> No thread per request and none per event: the prefill's answer, the decode's
 * events and the writes to the client run on the HTTP client's threads (or the container's, when
 * a client's output becomes writable again); the executor (two threads) takes the placements off
 * the router's dispatch thread; the timer sends the heartbeats.
 */
@Component(service = CompletionFlow.class, name = CompletionFlow.PID, configurationPid = CompletionFlow.PID)
@Designate(ocd = ProxyConfig.class)
public final class CompletionFlow {

    /** Configuration PID of the proxy. */
    public static final String PID = "org.balanceroute.proxy";

    static final String EVENT_STREAM = "text/event-stream";
    static final String STOP_RECOMPUTED = "recomputed";
    private static final Logger LOG = LoggerFactory.getLogger(CompletionFlow.class);
    /** Threads of the executor: its tasks never block (a placement starts a non-blocking decode request). */
    private static final int THREADS = 2;
    /** How often held streams are checked for a stall: a cut comes at most this late. */
    private static final long STALL_SWEEP_MILLIS = 500;

    /** Null while the router is away (its bundle updated); see Holding above. */
    private volatile RouterService router;
    /** Null while the connector is away. */
    private volatile VllmConnector connector;
    private final Holding holding = new Holding();
    private final ExecutorService threads;
    /** The placements' executor; after deactivation, work runs on the calling thread so streams in flight still end. */
    private final Executor executor;
    /** One timer thread for every request's heartbeats. */
    private final ScheduledExecutorService pings;
    /** Streams whose client is behind, swept on the timer: one stalled too long is cut. */
    private final StalledClients stalls = new StalledClients(() -> this.settings.clientStallMillis());
    /**
     * The client streams' buffers, recycled between requests; keeps at most 32 MiB of free ones
     * (what 256 streams' largest buffers take: the rest of a load's peak is left to the collector).
     */
    private final ByteArrayPool buffers = new ByteArrayPool(32L << 20);
    private final ScheduledFuture<?> stallSweep;
    /** Where the event streams of {@link #handle(Endpoint, byte[], String, AsyncResponse)} go (tests); null in the runtime. */
    private final Supplier<ClientOutput> testOutputs;
    private volatile ProxySettings settings;
    /** The HTTP host and port from the framework (the runtime), for the ready line; null without a framework. */
    private volatile String[] address;
    /** Whether the ready line was logged (once, the first time the router and the connector are both bound). */
    private boolean announced;
    static final String HTTP_HOST = "org.apache.felix.http.host";
    static final String HTTP_PORT = "org.osgi.service.http.port";

    /** The topology: which pool serves which model; null when the fleet bundle is absent (tests): every model passes. */
    private volatile FleetService fleet;

    /** Told each request's TTFT, TPOT and outcome (the metrics bundle); null when none is registered. */
    @Reference(name = "observer", cardinality = ReferenceCardinality.OPTIONAL, policy = ReferencePolicy.DYNAMIC,
            policyOption = ReferencePolicyOption.GREEDY)
    private volatile ProxyObserver observer;

    /** @throws ConfigurationException if the configuration is invalid (the activation fails) */
    @Activate
    public CompletionFlow(Map<String, Object> properties, BundleContext context) {
        this(null, null, ProxySettings.from(ConfigProperties.of(PID, properties)));
        this.address = new String[] {context.getProperty(HTTP_HOST), context.getProperty(HTTP_PORT)};
        warmUp();
    }

    @Reference(name = "router", cardinality = ReferenceCardinality.OPTIONAL, policy = ReferencePolicy.DYNAMIC,
            policyOption = ReferencePolicyOption.GREEDY, unbind = "unbindRouter")
    synchronized void bindRouter(RouterService r) {
        router = r;
        releaseHeld();
    }

    synchronized void unbindRouter(RouterService r) {
        if (router == r) { // a greedy replacement is bound before the old one is unbound
            router = null;
        }
    }

    @Reference(name = "connector", cardinality = ReferenceCardinality.OPTIONAL, policy = ReferencePolicy.DYNAMIC,
            policyOption = ReferencePolicyOption.GREEDY, unbind = "unbindConnector")
    synchronized void bindConnector(VllmConnector c) {
        connector = c;
        releaseHeld();
    }

    synchronized void unbindConnector(VllmConnector c) {
        if (connector == c) {
            connector = null;
        }
    }

    @Reference(name = "fleet", cardinality = ReferenceCardinality.OPTIONAL, policy = ReferencePolicy.DYNAMIC,
            policyOption = ReferencePolicyOption.GREEDY, unbind = "unbindFleet")
    synchronized void bindFleet(FleetService f) {
        fleet = f;
        announceOnce();
    }

    synchronized void unbindFleet(FleetService f) {
        if (fleet == f) {
            fleet = null;
        }
    }

    private void releaseHeld() {
        if (router != null && connector != null) {
            holding.release(executor);
            announceOnce();
        }
    }

    /** The ready line, once: in the runtime, when the router, the connector and the fleet are first all bound. */
    private void announceOnce() {
        RouterService r = router;
        FleetService f = fleet;
        if (address == null || announced || r == null || connector == null || f == null) {
            return;
        }
        announced = true;
        // off SCR's thread: the router's replicas() waits for its dispatch thread
        executor.execute(() -> LOG.info(ReadyLine.of(address[0], address[1], f.fleet().pools(), r)));
    }

    /**
     * Runs {@code task} once the router and the connector are both in service: now, or from the
     * hold; {@code refusal} if it is held too long, beyond the bound, or the proxy stops.
     */
    void whenBound(Runnable task, Holding.Refusal refusal) {
        if (router != null && connector != null) {
            task.run();
            return;
        }
        ProxySettings s = settings;
        holding.hold(task, refusal, s.holdTimeoutMillis(), s.maxHeldRequests(), pings);
        releaseHeld(); // one may have come back between the check and the hold
    }

    /** Requests held now (tests). */
    int held() {
        return holding.size();
    }

    /** The relay's classes through a synthetic stream, off the start-up thread ({@link RelayWarmUp}). */
    private static void warmUp() {
        Thread t = new Thread(() -> {
            long start = System.nanoTime();
            try {
                long sum = RelayWarmUp.run(RelayWarmUp.EVENTS);
                LOG.debug("relay warmed up in {} ms ({})", (System.nanoTime() - start) / 1_000_000, sum);
            } catch (RuntimeException e) {
                LOG.warn("the relay's warm-up failed (the first requests will be slower): {}", e.toString());
            }
        }, "balanceroute-proxy-warm-up");
        t.setDaemon(true);
        t.setPriority(Thread.MIN_PRIORITY);
        t.start();
    }

    /** A flow without a framework. */
    public CompletionFlow(RouterService router, VllmConnector connector, ProxySettings settings) {
        this(router, connector, settings, null);
    }

    /** A flow whose event streams go to {@code outputs}, the response resumed as a plain 200 event stream (tests). */
    CompletionFlow(RouterService router, VllmConnector connector, ProxySettings settings,
            Supplier<ClientOutput> outputs) {
        this.router = router;
        this.connector = connector;
        this.settings = settings;
        this.testOutputs = outputs;
        AtomicInteger n = new AtomicInteger();
        this.threads = Executors.newFixedThreadPool(THREADS, r -> {
            Thread t = new Thread(r, "balanceroute-proxy-" + n.incrementAndGet());
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
        ScheduledThreadPoolExecutor timer = new ScheduledThreadPoolExecutor(1, r -> {
            Thread t = new Thread(r, "balanceroute-proxy-ping");
            t.setDaemon(true);
            return t;
        });
        // every streamed request schedules a heartbeat and cancels it when it ends, mostly long before
        // it is due: without this a cancelled one stays queued for the whole interval (15 s)
        timer.setRemoveOnCancelPolicy(true);
        this.pings = timer;
        this.stallSweep = timer.scheduleWithFixedDelay(this::sweepStalls, STALL_SWEEP_MILLIS, STALL_SWEEP_MILLIS,
                TimeUnit.MILLISECONDS);
    }

    /** A new configuration applies to the next requests; an invalid one is logged and the previous stays. */
    @Modified
    void modified(Map<String, Object> properties) {
        ConfigProperties.readUpdate(PID, properties, ProxySettings::from,
                e -> LOG.error("invalid configuration, the previous one stays in force: {}", e.getMessage()))
                .ifPresent(next -> settings = next);
    }

    ProxySettings settings() {
        return settings;
    }

    StalledClients stalls() {
        return stalls;
    }

    ByteArrayPool buffers() {
        return buffers;
    }

    /** The stall sweep's task on the timer (tests tell it from the heartbeats). */
    ScheduledFuture<?> stallSweep() {
        return stallSweep;
    }

    private void sweepStalls() {
        int cut = stalls.sweep(System.nanoTime());
        if (cut > 0) {
            LOG.info("cut {} streaming client(s) that took nothing for {} ms (clientStallMillis)", cut,
                    settings.clientStallMillis());
        }
    }

    /** Streams in flight are left to end; nothing new starts, no more heartbeats. */
    @Deactivate
    public void close() {
        threads.shutdown();
        pings.shutdownNow();
        holding.refuseAll("the proxy is stopping");
    }

    /** Handles one generation request with the test outputs (see the constructor); answers through {@code async}. */
    void handle(Endpoint endpoint, byte[] raw, String clientRequestId, AsyncResponse async) {
        Supplier<ClientOutput> outputs = testOutputs;
        handle(endpoint, raw, clientRequestId, async::resume, requestId -> {
            ClientOutput out = outputs.get();
            async.resume(Response.ok(out, EVENT_STREAM).header("Cache-Control", "no-cache")
                    .header(VllmConnector.REQUEST_ID_HEADER, requestId).build());
            return out;
        });
    }

    /**
     * Handles one generation request: a plain answer through {@code async}, or an event stream
     * through {@code streams}; validation and admission first.
     */
    void handle(Endpoint endpoint, byte[] raw, String clientRequestId, PlainAnswer async, EventStreams streams) {
        long arrived = System.nanoTime();
        ProxySettings s = settings;
        String requestId = requestId(clientRequestId);
        byte[] bytes = raw == null ? new byte[0] : raw;
        ObjectNode body = null;
        String pool;
        try {
            body = RequestValidator.validate(endpoint, bytes, s.maxBodyBytes(), s.maxTokensLimit());
            pool = toPool(body);
        } catch (OpenAiError e) {
            ended(Outcome.REJECTED, s, requestId, body, null, arrived);
            async.answer(Answers.error(e, requestId));
            return;
        }
        admit(endpoint, body, bytes.length, requestId, pool, async, streams, s, arrived);
    }

    /**
     * The pool of the request's {@code model} (its model name or an alias, which the engine is sent
     * as the pool's model name); an unknown model is answered here, as vLLM answers it, before any
     * engine sees the request.
     *
     * @return the pool's name; null without a fleet (tests: the primary pool)
     */
    private String toPool(ObjectNode body) {
        FleetService f = fleet;
        if (f == null) {
            return null;
        }
        String model = body.get("model").asText();
        PoolTopology pool = f.fleet().forModel(model);
        if (pool == null) {
            throw OpenAiError.unknownModel(model);
        }
        if (!model.equals(pool.model()) && !PoolTopology.ANY_MODEL.equals(pool.model())) {
            body.put("model", pool.model());
        }
        return pool.name();
    }

    /**
     * Admission (the pool's depth: {@code maxPoolDepth} applies to each pool's prompt pool), then
     * the exchange; held while the router or the connector is away.
     */
    private void admit(Endpoint endpoint, ObjectNode body, int bodyBytes, String requestId, String pool,
            PlainAnswer async, EventStreams streams, ProxySettings s, long arrived) {
        if (!bound()) {
            whenBound(() -> admit(endpoint, body, bodyBytes, requestId, pool, async, streams, s, arrived), (outcome, message) -> {
                ended(outcome, s, requestId, body, pool, arrived);
                async.answer(Answers.unavailable(message, s.retryAfterSeconds(), requestId));
            });
            return;
        }
        RouterService r = router(pool);
        if (r == null || connector(pool) == null) {
            ended(Outcome.REJECTED, s, requestId, body, pool, arrived);
            async.answer(Answers.unavailable(poolAway(pool), s.retryAfterSeconds(), requestId));
            return;
        }
        int limit = s.maxPoolDepth();
        if (limit > 0) {
            int depth = r.poolDepth();
            if (depth >= limit) {
                ended(Outcome.REJECTED, s, requestId, body, pool, arrived);
                async.answer(Answers.poolFull(depth, limit, s.retryAfterSeconds(), requestId));
                return;
            }
        }
        if (streams == null) {
            async.answer(Answers.error(new OpenAiError(500, OpenAiError.SERVER,
                    "the container did not start asynchronous processing: no event stream can be written", null),
                    requestId));
            ended(Outcome.ERROR, s, requestId, body, pool, arrived);
            return;
        }
        new Exchange(this, endpoint, body, bodyBytes, requestId, pool, async, streams, s, arrived).start();
    }

    /** Why a request of a pool the router or the connector does not have (yet, or any more) is refused. */
    static String poolAway(String pool) {
        return "pool '" + pool + "' is not in service: it is being added to or removed from the topology";
    }

    /** The body limit in force ({@link CompletionsServlet} reads no more than one byte past it). */
    int maxBodyBytes() {
        return settings.maxBodyBytes();
    }

    /** Whether the request's Content-Type is JSON; if not, it is answered 415 (counted rejected) here. */
    boolean acceptsMediaType(String contentType, String clientRequestId, PlainAnswer async) {
        try {
            RequestValidator.mediaType(contentType);
            return true;
        } catch (OpenAiError e) {
            String requestId = requestId(clientRequestId);
            ended(Outcome.REJECTED, settings, requestId, null, null, System.nanoTime());
            async.answer(Answers.error(e, requestId));
            return false;
        }
    }

    /**
     * {@code GET /v1/models}: every pool's model and aliases (an alias's {@code root} is its
     * model); while a pool answers every model name (configured without pools), the first decode
     * worker's answer, as before pools.
     */
    void models(AsyncResponse async) {
        FleetService f = fleet;
        if (f != null && f.fleet().pools().stream().noneMatch(p -> PoolTopology.ANY_MODEL.equals(p.model()))) {
            async.resume(Response.ok(ModelList.of(f.fleet(), System.currentTimeMillis() / 1000).toString(),
                    MediaType.APPLICATION_JSON_TYPE).build());
            return;
        }
        VllmConnector c = connector;
        if (c == null) {
            async.resume(Answers.unavailable("the connector is not in service (its bundle is being updated)",
                    settings.retryAfterSeconds(), null));
            return;
        }
        c.getFromFirstDecode("/v1/models").whenComplete((r, e) -> {
            if (e == null) {
                async.resume(Response.ok(r.body(), MediaType.APPLICATION_JSON_TYPE).build());
            } else {
                async.resume(Answers.upstreamError(Answers.cause(e), null, "no decode worker answered /v1/models"));
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

    /** Sets the fleet (tests; the framework injects the field itself). */
    void fleet(FleetService f) {
        fleet = f;
    }

    /** Sets the observer (tests; the framework injects the field itself). */
    void observer(ProxyObserver o) {
        observer = o;
    }

    ProxyObserver observer() {
        return observer;
    }

    /** Whether the router and the connector are both in service (else requests are held). */
    boolean bound() {
        return router != null && connector != null;
    }

    /** The pool's router in service (null pool: the primary one); null while the router is away or has no such pool. */
    RouterService router(String pool) {
        RouterService r = router;
        return r == null || pool == null ? r : r.pool(pool);
    }

    /** The pool's connector in service (null pool: the primary one); null while it is away or has no such pool. */
    VllmConnector connector(String pool) {
        VllmConnector c = connector;
        return c == null || pool == null ? c : c.pool(pool);
    }

    Executor executor() {
        return executor;
    }

    ScheduledExecutorService pings() {
        return pings;
    }

    /** A request that ended before its exchange began (refused, or held too long): counted, and its access line. */
    void ended(Outcome outcome, ProxySettings s, String requestId, ObjectNode body, String pool, long arrived) {
        ended(outcome);
        if (s.accessLog()) {
            AccessLog.write(AccessLog.line(requestId, body == null ? null : body.path("model").asText(null), pool, -1,
                    -1, -1, -1, System.nanoTime() - arrived, outcome));
        }
    }

    /** Counts how a request ended (the observer). */
    void ended(Outcome outcome) {
        ProxyObserver o = observer;
        if (o != null) {
            try {
                o.requestEnded(outcome);
            } catch (RuntimeException e) {
                LOG.debug("the proxy observer failed: {}", e.toString());
            }
        }
    }

    /** A dispatch step of that router at its next decode step boundary, unless it steps by itself. */
    static void step(RouterService r) {
        if (r != null && !r.automaticStepping()) {
            r.requestStep();
        }
    }
}
