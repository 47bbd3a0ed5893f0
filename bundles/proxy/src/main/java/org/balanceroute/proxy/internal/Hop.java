package org.balanceroute.proxy.internal;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.balanceroute.connector.vllm.DecodeExchange;
import org.balanceroute.connector.vllm.DecodeListener;
import org.balanceroute.connector.vllm.PrefillQueueFullException;
import org.balanceroute.connector.vllm.PrefillResult;
import org.balanceroute.connector.vllm.VllmConnector;
import org.balanceroute.proxy.ProxyObserver.Outcome;
import org.balanceroute.router.Placement;
import org.balanceroute.router.RouterService;
import org.balanceroute.wire.PromptKey;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One prefill/decode pair of an {@link Exchange}: its router request, its upstream calls, its
 * share of the client's stream.
 *
 * <p><b>The path of one event.</b> The HTTP client thread that read the engine's bytes scans
 * them ({@code SseScanner}, in the connector) and calls {@link #onEvent(ByteBuffer, int, int)}
 * with the event's data where it lies; {@link ChunkScan} finds in those bytes what the router
 * and the relay need (an error, {@code usage.completion_tokens}, content, the first choice's
 * text, a {@code recomputed} stop); the {@link TokenCounter} turns that into tokens; the event is
 * framed into the client's {@link ClientStream} (one copy). When the read's events are all in,
 * {@link #onEventsRead()} reports the read's tokens to the router in one call and writes the
 * client's buffer in one write and one flush, on this same thread when the client's output is
 * ready. Only chunks the scan does not take exactly as the tree would, the chunk that ends a
 * decode with {@code recomputed}, and every chunk of a continuation hop (rewritten: chunk id,
 * usage) are parsed whole with Jackson.
 *
 * <p>Its prefill's answer is handled on the thread that completed it (non-blocking: the router's
 * submission is a queue); its placement on the flow's executor (never on the router's dispatch
 * thread); its decode callbacks on the HTTP client's threads, serialised.
 */
final class Hop implements DecodeListener {

    private static final Logger LOG = LoggerFactory.getLogger(Hop.class);
    private static final byte[] DONE = "[DONE]".getBytes(StandardCharsets.US_ASCII);
    /**
     * Router request ids: unique across re-activations of the flow (the router may still hold
     * requests of a previous instance), so seeded from the clock.
     */
    private static final AtomicLong IDS = new AtomicLong(System.currentTimeMillis() << 20);

    private final Exchange exchange;
    private final CompletionFlow flow;
    /** The router this hop is submitted to: the one in service at its prefill, or the next after an update. */
    private volatile RouterService router;
    private final long id = IDS.incrementAndGet();
    private final ObjectNode hopBody;
    private final String upstreamId;
    private final boolean continuation;
    private final AtomicBoolean released = new AtomicBoolean();
    private final TokenCounter counter = new TokenCounter();
    private final ChunkScan scan = new ChunkScan();
    private volatile CompletableFuture<PrefillResult> prefill;
    private volatile DecodeExchange upstream;
    private ClientStream relay;
    private volatile int worker = -1;
    private boolean done;
    private boolean errorSeen;
    /** Tokens counted in the current read, reported to the router at its end. */
    private int unreported;
    private byte[] scratch;
    /** Resumes this hop's decode reading, made once (the reads' callbacks are serialised). */
    private Runnable resumeUpstream;

    Hop(Exchange exchange, ObjectNode hopBody, String upstreamId) {
        this.exchange = exchange;
        this.flow = exchange.flow;
        this.hopBody = hopBody;
        this.upstreamId = upstreamId;
        this.continuation = exchange.recomputes > 0;
    }

    void prefill() {
        if (!flow.bound()) { // a recomputation's next hop during an update
            flow.whenBound(this::prefill, this::refused);
            return;
        }
        RouterService r = flow.router(exchange.pool);
        VllmConnector c = flow.connector(exchange.pool);
        if (r == null || c == null) {
            refused(Outcome.REJECTED, CompletionFlow.poolAway(exchange.pool));
            return;
        }
        if (exchange.gone) {
            return;
        }
        router = r;
        CompletableFuture<PrefillResult> f = c.prefill(upstreamId, exchange.endpoint.path, hopBody);
        prefill = f;
        f.whenComplete(this::prefilled);
    }

    private void prefilled(PrefillResult p, Throwable e) {
        if (exchange.gone) {
            return; // aborted already; nothing was submitted
        }
        if (e != null) {
            Throwable c = Answers.cause(e);
            if (c instanceof PrefillQueueFullException) { // back-pressure from the prefill tier
                exchange.fail(Outcome.REJECTED, Answers.tooBusy(c.getMessage(), exchange.settings.retryAfterSeconds(),
                        exchange.requestId));
            } else {
                exchange.fail(Outcome.ERROR, Answers.upstreamError(c, exchange.requestId, "prefill"));
            }
            return;
        }
        submit(p);
    }

    private void submit(PrefillResult p) {
        RouterService r = router;
        r.submit(id, p.promptTokens(), PromptKey.of(hopBody.path(exchange.endpoint.promptField)), exchange.bodyBytes)
                .copy()
                .orTimeout(exchange.settings.placementTimeoutMillis(), TimeUnit.MILLISECONDS)
                .whenCompleteAsync((placement, f) -> placed(p, placement, f), flow.executor());
        if (exchange.gone) {
            // the client left between the check above and the submission: its abort may
            // have reached the router first, so abort again after the submission
            r.abort(id);
        }
        CompletionFlow.step(r);
    }

    /**
     * The router stopped (its bundle updated) with this hop in its pool, not placed: the
     * prefilled KV waits in the engine, so the hop is submitted to the next router, held until
     * one is in service.
     */
    private void resubmit(PrefillResult p) {
        if (!flow.bound()) {
            flow.whenBound(() -> resubmit(p), this::refused);
            return;
        }
        RouterService r = flow.router(exchange.pool);
        if (r == null || flow.connector(exchange.pool) == null) {
            refused(Outcome.REJECTED, CompletionFlow.poolAway(exchange.pool));
            return;
        }
        if (exchange.gone) {
            return;
        }
        router = r;
        submit(p);
    }

    /** Held too long (or beyond the bound) for the router or the connector to come back. */
    private void refused(Outcome outcome, String message) {
        release(false);
        if (!exchange.gone) {
            exchange.fail(outcome, Answers.unavailable(message, exchange.settings.retryAfterSeconds(),
                    exchange.requestId));
        }
    }

    /** The decode worker's index in its pool, -1 before the placement. */
    int worker() {
        return worker;
    }

    private void placed(PrefillResult p, Placement placement, Throwable f) {
        String requestId = exchange.requestId;
        if (f != null && Answers.cause(f) instanceof IllegalStateException && router != flow.router(exchange.pool)
                && !exchange.gone) {
            resubmit(p); // "the router is stopped", and it is no longer the one in service
            return;
        }
        if (f != null) {
            release(false);
            if (exchange.gone) {
                return; // the client left: counted and released already
            }
            Throwable c = Answers.cause(f);
            if (c instanceof TimeoutException) {
                exchange.fail(Outcome.TIMEOUT, Answers.error(new OpenAiError(503, OpenAiError.UNAVAILABLE,
                        "waited more than " + exchange.settings.placementTimeoutMillis() + " ms for a decode worker",
                        null), requestId));
            } else if (c instanceof CancellationException) {
                exchange.fail(Outcome.ERROR, Answers.error(new OpenAiError(503, OpenAiError.UNAVAILABLE,
                        "the request was aborted", null), requestId));
            } else {
                exchange.fail(Outcome.ERROR, Answers.error(new OpenAiError(503, OpenAiError.UNAVAILABLE,
                        "the router did not place the request: " + c.getMessage(), null), requestId));
            }
            return;
        }
        if (exchange.gone) {
            release(false);
            return;
        }
        if (!flow.bound()) { // the connector is being updated: the decode waits for the next one
            flow.whenBound(() -> placed(p, placement, null), this::refused);
            return;
        }
        VllmConnector connector = flow.connector(exchange.pool);
        if (connector == null) {
            refused(Outcome.ERROR, CompletionFlow.poolAway(exchange.pool));
            return;
        }
        worker = placement.worker();
        if (exchange.promptTokens < 0) {
            exchange.promptTokens = p.promptTokens();
        }
        // by identity: while the topology changes the router's worker indices and the connector's may differ
        DecodeExchange u = connector.decode(upstreamId, placement.workerId(), exchange.endpoint.path, hopBody,
                p.kvTransferParams(), this);
        upstream = u;
        if (exchange.gone) {
            u.cancel();
        }
    }

    /** Releases the hop's load once: complete (learned) or abort; the read's tokens reported first. */
    private void release(boolean completed) {
        RouterService r = router;
        if (r != null && released.compareAndSet(false, true)) { // null: not submitted, nothing to release
            reportTokens();
            if (completed) {
                r.complete(id);
            } else {
                r.abort(id);
            }
            CompletionFlow.step(r);
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
            relay = exchange.openStream();
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
            exchange.flowing = true;
        }
    }

    @Override
    public void onEvent(ByteBuffer buffer, int offset, int length) {
        if (done) {
            return;
        }
        byte[] a;
        int from;
        if (buffer.hasArray()) {
            a = buffer.array();
            from = buffer.arrayOffset() + offset;
        } else {
            a = scratch(length);
            buffer.get(offset, a, 0, length);
            from = 0;
        }
        if (isDone(a, from, length)) {
            done();
            return;
        }
        ChunkScan s = scan;
        if (continuation || !s.scan(a, from, from + length) || (s.recomputed && exchange.generated != null)) {
            parsed(new String(a, from, length, StandardCharsets.UTF_8));
            return;
        }
        if (s.object) {
            if (s.error) {
                errorSeen = true;
            } else {
                int n = counter.onScan(s);
                if (n > 0) {
                    exchange.tokensSeen(n);
                    unreported += n;
                }
                if (exchange.generated != null) {
                    exchange.remember(a, s);
                }
            }
        }
        relay.event(a, from, length);
    }

    /**
     * The read's events are queued: its tokens to the router in one report, its bytes to the
     * client in one write; false holds the reading while the client is behind (resumed once its
     * output took them).
     */
    @Override
    public boolean onEventsRead(DecodeExchange upstream) {
        reportTokens();
        ClientStream r = relay;
        if (r == null) {
            return true;
        }
        Runnable resume = resumeUpstream;
        if (resume == null) {
            resume = upstream::resume;
            resumeUpstream = resume;
        }
        return r.flush(resume);
    }

    private void reportTokens() {
        int n = unreported;
        if (n > 0) {
            unreported = 0;
            router.tokens(id, n);
        }
    }

    private static boolean isDone(byte[] a, int from, int length) {
        if (length != DONE.length) {
            return false;
        }
        for (int i = 0; i < DONE.length; i++) {
            if (a[from + i] != DONE[i]) {
                return false;
            }
        }
        return true;
    }

    private byte[] scratch(int length) {
        byte[] s = scratch;
        if (s == null || s.length < length) {
            s = new byte[Math.max(length, 512)];
            scratch = s;
        }
        return s;
    }

    /** {@code [DONE]}: the stream ends, the load is released (learned unless an error came in-band). */
    private void done() {
        done = true;
        exchange.flowing = false;
        relay.event("[DONE]");
        relay.close();
        release(!errorSeen);
        if (!errorSeen) {
            exchange.streamDone();
        }
        exchange.end(errorSeen ? Outcome.ERROR : Outcome.OK);
    }

    /** A chunk parsed whole: one the scan left to Jackson, the recomputed chunk, a continuation hop's chunk. */
    private void parsed(String data) {
        String out = data;
        try {
            JsonNode chunk = Chunks.MAPPER.readTree(data);
            if (chunk != null && chunk.has("error")) {
                errorSeen = true;
            } else if (chunk instanceof ObjectNode c) {
                int n = counter.onChunk(c);
                if (n > 0) {
                    exchange.tokensSeen(n);
                    unreported += n;
                }
                if (exchange.generated != null) {
                    exchange.remember(c);
                    out = continuation ? exchange.continued(c) : data;
                    if (Chunks.recomputed(c)) {
                        recompute(c);
                        return;
                    }
                }
            }
        } catch (Exception e) {
            LOG.debug("request {}: an SSE event that is not JSON: {}", exchange.requestId, e.toString());
        }
        if (out != null) {
            relay.event(out);
        }
    }

    /**
     * The engine ran out of KV for this decode: forward the chunk's text without its finish,
     * release this hop, continue with a new hop from the text generated so far.
     */
    private void recompute(ObjectNode chunk) {
        done = true; // the engine's [DONE] after this chunk is not the client's
        exchange.flowing = false;
        String text = Chunks.generatedText(chunk);
        if (text != null && !text.isEmpty()) {
            ObjectNode choice = (ObjectNode) chunk.path("choices").path(0);
            choice.putNull("finish_reason");
            choice.putNull("stop_reason");
            String out = continuation ? exchange.continued(chunk) : chunk.toString();
            if (out != null) {
                relay.event(out);
            }
        }
        release(false); // a cut decode: its length is nothing to learn from
        exchange.produced += counter.total();
        int max = exchange.settings.maxRecomputes();
        String requestId = exchange.requestId;
        if (exchange.recomputes >= max) {
            exchange.fail(Outcome.ERROR, Answers.error(new OpenAiError(502, OpenAiError.SERVER, "the decode worker ran"
                    + " out of KV cache (stop_reason 'recomputed') " + (exchange.recomputes + 1) + " times;"
                    + " maxRecomputes is " + max, null), requestId));
            return;
        }
        ObjectNode next;
        try {
            next = Resubmission.body(exchange.endpoint, exchange.body, exchange.generated.text(), exchange.produced);
        } catch (OpenAiError e) {
            exchange.fail(Outcome.ERROR, Answers.error(e, requestId));
            return;
        }
        if (next == null) {
            // the client's token budget is used up: what it has is the whole answer
            relay.event("[DONE]");
            relay.close();
            exchange.end(Outcome.OK);
            return;
        }
        exchange.recomputes++;
        LOG.debug("request {}: recomputed by decode worker {} after {} tokens; re-submitting ({} of {})",
                requestId, worker, exchange.produced, exchange.recomputes, max);
        exchange.startHop(next, requestId + "-recompute-" + exchange.recomputes);
    }

    @Override
    public void onEnd(int status, String contentType, byte[] answer) {
        if (done) {
            return;
        }
        String requestId = exchange.requestId;
        if (relay != null) {
            failStream("the decode worker ended the stream without [DONE]");
            return;
        }
        if (status == 200 && exchange.streaming()) {
            release(false);
            exchange.fail(Outcome.ERROR, Answers.error(new OpenAiError(502, OpenAiError.SERVER, "decode worker "
                    + worker + " answered without an event stream", null), requestId));
        } else if (status == 200) {
            try {
                JsonNode n = Chunks.MAPPER.readTree(answer).path("usage").get("completion_tokens");
                if (n != null && n.canConvertToInt() && n.intValue() > 0) {
                    router.tokens(id, n.intValue());
                    exchange.answered(n.intValue());
                }
            } catch (Exception e) {
                LOG.debug("request {}: a 200 answer without usage: {}", requestId, e.toString());
            }
            release(true);
            exchange.end(Outcome.OK);
            exchange.answerPlain(Response.ok(answer, contentType == null ? MediaType.APPLICATION_JSON : contentType)
                    .header(VllmConnector.REQUEST_ID_HEADER, requestId).build());
        } else {
            release(false);
            exchange.fail(Outcome.ERROR, Answers.upstreamBody(status, answer, requestId,
                    "decode worker " + worker + " failed"));
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
        exchange.fail(Outcome.ERROR, Answers.error(new OpenAiError(502, OpenAiError.SERVER, "decode worker " + worker
                + " failed: " + cause, null), exchange.requestId));
    }

    /** Mid-stream failure: in-band error, then [DONE]; the load released. */
    private void failStream(String message) {
        done = true;
        exchange.flowing = false;
        release(false);
        exchange.fail(Outcome.ERROR, Answers.error(new OpenAiError(502, OpenAiError.SERVER, message, null),
                exchange.requestId));
    }
}
