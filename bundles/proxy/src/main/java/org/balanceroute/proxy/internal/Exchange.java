package org.balanceroute.proxy.internal;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import jakarta.ws.rs.core.Response;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.balanceroute.proxy.ProxyObserver;
import org.balanceroute.proxy.ProxyObserver.Outcome;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One admitted client request: its answer (chosen once: a plain response through Jersey's
 * {@link PlainAnswer}, or the event stream written straight to the client, {@link ClientStream}),
 * the heartbeats, the token timing, and its hops ({@link Hop}: one prefill/decode pair each; more
 * than one only when the engine recomputed).
 *
 * <p>Threading: callbacks come from the prefill future, the placement, the decode listener
 * (serialised per hop, and hop after hop), the ping timer and the client stream (client gone).
 * What they share is either volatile/atomic (the answer chosen once, the current hop, the
 * {@code gone} flag) or touched by one hop's callbacks at a time; no locks.
 */
final class Exchange {

    private static final Logger LOG = LoggerFactory.getLogger(Exchange.class);
    /** The answer of an exchange that was answered with a plain (non-stream) response. */
    private static final Object PLAIN = new Object();

    final CompletionFlow flow;
    final Endpoint endpoint;
    final ObjectNode body;
    final int bodyBytes;
    final String requestId;
    /** The pool serving the request's model; null without a fleet (the router's and connector's primary pool). */
    final String pool;
    final ProxySettings settings;
    private final PlainAnswer async;
    private final EventStreams streams;
    private final boolean stream;
    /** null while undecided, then {@link #PLAIN} or the {@link ClientStream}: whoever sets it answers. */
    private final AtomicReference<Object> answer = new AtomicReference<>();
    private final AtomicBoolean ended = new AtomicBoolean();
    private final long arrivedNanos;
    /** The client left: nothing more starts, whatever is in flight is cancelled. */
    volatile boolean gone;
    /** A decode stream is relaying tokens: no heartbeats needed. */
    volatile boolean flowing;
    private volatile Hop hop;
    private volatile ScheduledFuture<?> pinger;

    // touched by one hop's callbacks at a time (hops run one after another)
    private long firstTokenNanos;
    private long lastTokenNanos;
    private long outputTokens;
    /** completion_tokens of a plain (non-stream) answer, -1 before it. */
    private volatile long answeredTokens = -1;
    int recomputes;
    /** Output tokens of the hops before the current one (recomputation). */
    long produced;
    /** prompt_tokens of the first hop: the client's prompt, whatever was appended later. */
    long promptTokens = -1;
    /** The first chunk id the client saw; later hops' chunks carry it too. */
    String chunkId;
    /** The text streamed so far, to continue from after a recomputation; null when recomputation is off. */
    final GeneratedText generated;

    Exchange(CompletionFlow flow, Endpoint endpoint, ObjectNode body, int bodyBytes, String requestId, String pool,
            PlainAnswer async, EventStreams streams, ProxySettings settings, long arrivedNanos) {
        this.flow = flow;
        this.arrivedNanos = arrivedNanos;
        this.pool = pool;
        this.endpoint = endpoint;
        this.body = body;
        this.bodyBytes = bodyBytes;
        this.requestId = requestId;
        this.async = async;
        this.streams = streams;
        this.settings = settings;
        this.stream = body.path("stream").asBoolean(false);
        this.generated = stream && settings.maxRecomputes() > 0 ? new GeneratedText() : null;
    }

    void start() {
        long interval = settings.pingIntervalMillis();
        if (stream && interval > 0) {
            try {
                // the commit and the ping are non-blocking: they run on the timer thread itself
                pinger = flow.pings().scheduleAtFixedRate(this::ping, interval, interval, TimeUnit.MILLISECONDS);
            } catch (RejectedExecutionException stopping) {
                LOG.debug("request {}: no heartbeats, the proxy is stopping", requestId);
            }
        }
        startHop(body, requestId);
    }

    void startHop(ObjectNode hopBody, String upstreamId) {
        Hop h = new Hop(this, hopBody, upstreamId);
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
        ClientStream s = openStream();
        if (s != null) {
            s.ping();
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
    ClientStream openStream() {
        Object a = answer.get();
        if (a == null) {
            ClientStream created = new ClientStream(settings.relayQueueEvents(), this::clientGone, flow.stalls(), flow.buffers());
            if (answer.compareAndSet(null, created)) {
                ClientOutput out;
                try {
                    out = streams.open(requestId);
                } catch (RuntimeException e) {
                    LOG.debug("request {}: the event stream could not be opened: {}", requestId, e.toString());
                    out = null;
                }
                created.start(out); // null: the client cannot be answered, the stream is cut at once
                return created;
            }
            a = answer.get();
        }
        return a instanceof ClientStream s ? s : null;
    }

    /** Answers with a plain response if nothing was answered yet; false if the stream is committed. */
    boolean answerPlain(Response r) {
        if (answer.compareAndSet(null, PLAIN)) {
            stopPinging();
            async.answer(r);
            return true;
        }
        return false;
    }

    /** Whether the answer is the event stream. */
    boolean streaming() {
        return answer.get() instanceof ClientStream;
    }

    /** Ends the request with an error: its status before the stream is committed, in-band after. */
    void fail(Outcome outcome, Response error) {
        end(outcome);
        if (!answerPlain(error) && answer.get() instanceof ClientStream s) {
            s.event(Answers.inBand(error));
            s.event("[DONE]");
            s.close();
        }
    }

    /** Tells the observer how the request ended, once (the first outcome wins); heartbeats stop. */
    void end(Outcome outcome) {
        if (ended.compareAndSet(false, true)) {
            stopPinging();
            flow.ended(outcome);
            if (settings.accessLog()) {
                Hop h = hop;
                boolean streamed = outputTokens > 0;
                AccessLog.write(AccessLog.line(requestId, body.path("model").asText(null), pool,
                        h == null ? -1 : h.worker(), promptTokens, streamed ? outputTokens : answeredTokens,
                        streamed ? firstTokenNanos - arrivedNanos : -1, System.nanoTime() - arrivedNanos, outcome));
            }
        }
    }

    /** The client left or lags too far behind: cancel upstream, release at once. */
    void clientGone() {
        gone = true;
        // counted before the cancellation: the abort completes the placement future, whose
        // callback (another thread) would otherwise count an error first
        end(Outcome.CLIENT_DISCONNECT);
        Hop h = hop;
        if (h != null) {
            h.cancel();
        }
    }

    /** A plain answer's completion_tokens, for the access log and the observer. */
    void answered(int completionTokens) {
        answeredTokens = completionTokens;
        outputTokensObserved(completionTokens);
    }

    /** Tells the observer of n output tokens. */
    private void outputTokensObserved(int n) {
        ProxyObserver o = flow.observer();
        if (o != null) {
            try {
                o.outputTokens(n);
            } catch (RuntimeException e) {
                LOG.debug("the proxy observer failed: {}", e.toString());
            }
        }
    }

    /** Token timing of a streaming request: TTFT at the first token, the last token's time for TPOT. */
    void tokensSeen(int n) {
        long now = System.nanoTime();
        if (outputTokens == 0) {
            firstTokenNanos = now;
            ProxyObserver o = flow.observer();
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
        outputTokensObserved(n);
    }

    /** At [DONE] of a clean stream: the mean time per output token after the first. */
    void streamDone() {
        ProxyObserver o = flow.observer();
        if (o != null && outputTokens > 1) {
            try {
                o.timePerOutputToken((lastTokenNanos - firstTokenNanos) / (outputTokens - 1));
            } catch (RuntimeException e) {
                LOG.debug("the proxy observer failed: {}", e.toString());
            }
        }
    }

    /** Keeps a scanned chunk's text (raw) and the first chunk id, for a continuation. */
    void remember(byte[] bytes, ChunkScan chunk) {
        if (chunk.textFrom >= 0) {
            generated.appendRaw(bytes, chunk.textFrom, chunk.textTo);
        }
        if (chunkId == null && chunk.idFrom >= 0) {
            String raw = new String(bytes, chunk.idFrom, chunk.idTo - chunk.idFrom, StandardCharsets.UTF_8);
            chunkId = chunk.idEscaped ? Chunks.unescape(raw) : raw;
        }
    }

    /** Keeps a parsed chunk's text and the first chunk id, for a continuation. */
    void remember(ObjectNode chunk) {
        String text = Chunks.generatedText(chunk);
        if (text != null) {
            generated.append(text);
        }
        if (chunkId == null && chunk.path("id").isTextual()) {
            chunkId = chunk.get("id").textValue();
        }
    }

    /**
     * A chunk of a continuation hop as the client should see it: the first hop's chunk id,
     * usage over all hops with the client's own prompt length; null to drop it (a hop's
     * opening role chunk, or a chunk with nothing to say).
     */
    String continued(ObjectNode chunk) {
        JsonNode usage = chunk.get("usage");
        JsonNode choice = chunk.path("choices").path(0);
        boolean finish = choice.hasNonNull("finish_reason");
        String text = Chunks.generatedText(chunk);
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
}
