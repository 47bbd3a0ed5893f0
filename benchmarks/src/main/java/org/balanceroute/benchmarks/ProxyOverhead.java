package org.balanceroute.benchmarks;

import static org.balanceroute.benchmarks.Nanos.mean;
import static org.balanceroute.benchmarks.Nanos.ms;
import static org.balanceroute.benchmarks.Nanos.pct;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;
import org.balanceroute.wire.CompletionBodies;
import org.balanceroute.wire.KvHandle;
import org.balanceroute.wire.TokenIdPrompt;
import org.eclipse.jetty.client.BufferingResponseListener;
import org.eclipse.jetty.client.BytesRequestContent;
import org.eclipse.jetty.client.HttpClient;
import org.eclipse.jetty.client.Request;
import org.eclipse.jetty.client.Response;
import org.eclipse.jetty.client.Result;
import org.eclipse.jetty.client.transport.HttpClientTransportOverHTTP;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.http.HttpMethod;
import org.eclipse.jetty.io.ClientConnector;
import org.eclipse.jetty.util.thread.QueuedThreadPool;

/**
 * Proxy overhead: what the BalanceRoute proxy adds to a request, measured against a simulated
 * vLLM cluster whose step time is near zero, so that what remains is the proxy (and the HTTP
 * hops it adds), not the engine. Not a test and not run by CI: {@code benchmarks/proxy-overhead.sh}
 * starts the cluster and the runtime and runs this.
 *
 * <p>Two paths send the same streaming completion (token-id prompt, {@code ignore_eos}):
 * <ul>
 *   <li><b>proxy</b>: one {@code POST /v1/completions} to the runtime, which does the prefill
 *       hop, waits for the router's placement and relays the decode stream;</li>
 *   <li><b>direct</b>: the client does what the proxy does upstream, per docs/vllm-contract.md: the
 *       prefill hop ({@code stream: false}, {@code max_tokens: 1}, {@code do_remote_decode}),
 *       then the decode call on a rank with the prefill's {@code kv_transfer_params} verbatim and
 *       the same {@code X-Request-Id}. The rank is fixed per stream ({@code stream % G}), so 512
 *       streams put exactly B=64 on each of 8 ranks.</li>
 * </ul>
 * Latency is the client's view: send of the first hop to {@code data: [DONE]}. The difference
 * between the two paths is the proxy's cost: two extra loopback hops (client to proxy, proxy's
 * relay) plus parsing, routing and relaying.
 *
 * <p>(a) latency at concurrency 1: requests alternate proxy / direct (the order flipping every
 * pair), so that noise from other processes on the machine falls on both paths alike.
 * (b) throughput: closed loop, each of C streams issues requests back to back for a warm-up
 * then a measured window; tokens are counted from the cumulative usage on every chunk
 * ({@code continuous_usage_stats}, which the proxy's router also needs to count multi-token
 * chunks), so a request straddling the window's edge counts only the tokens inside it.
 *
 * <p>The client is Jetty 12's asynchronous {@link HttpClient} (HTTP/1.1, one selector, a small
 * pool, a connection of its own per stream, {@link OwnConnection}): no thread per stream, and each
 * answer's lines scanned in the client's own buffers ({@link SseCounter}), so thousands of streams cost the client little
 * CPU, which matters when client, proxy and cluster share two cores. Its own CPU per token is
 * read over every window, so a reader can see it is not the ceiling. (It replaced the JDK's
 * HttpClient, whose line subscriber decoded every line into a String and which cost 2 to 5 CPU s
 * per 100k tokens, as much as the proxy under test, and could not hold 8,192 streams.) The side
 * channels (the admin snapshot, the engine's stats) go through a JDK client of their own.
 */
public final class ProxyOverhead {

    static final String USAGE = """
            Usage: java -cp benchmarks/target/benchmarks.jar org.balanceroute.benchmarks.ProxyOverhead \\
                     --proxy URL --prefill URL --decode URL,URL,... [options]
            (benchmarks/proxy-overhead.sh starts the simulated cluster and the runtime and runs this)

            Required:
              --proxy URL              the runtime, e.g. http://127.0.0.1:8400
              --prefill URL            the prefill server the proxy uses (direct path's first hop)
              --decode URLS            the decode ranks, comma-separated (direct path's second hop)
            Options:
              --also URLS              other runtimes measured in (a) beside --proxy, comma-separated (e.g.
                                       a follower and the dispatcher of a cluster of proxies, against a
                                       runtime of its own at --proxy); (b) measures --proxy only
              --sim URL                a cluster endpoint for GET /sim/stats (engine step time per run)
              --admin USER:PASSWORD    admin API credentials, for GET /admin/snapshot (admin:admin)
              --model NAME             the model field (balanceroute-sim)
              --prompt-tokens N        prompt length, token ids (128)
              --latency-max-tokens N   tokens per request in (a) (16)
              --latency-requests N     measured requests per path in (a) (1000)
              --latency-warmup N       warm-up requests per path in (a), not measured (200)
              --stream-max-tokens N    tokens per request in (b) (128)
              --concurrency LIST       streams in (b), comma-separated (1,64,512)
              --warmup-seconds S       (b) warm-up per run, not measured (5)
              --duration-seconds S     (b) measured window per run (20)
              --runtime-pid PID        the runtime's JVM: its CPU time (/proc/PID/stat utime + stime) and
                                       context switches (voluntary + nonvoluntary of every thread,
                                       /proc/PID/task/*/status) over each (b) window, per relayed token
              --engine-pid PID         the simulated cluster's JVM: its CPU time per token over each (b) window
                                       (this client's own CPU per token is always read, /proc/self)
              --clock-ticks N          USER_HZ of /proc/PID/stat (getconf CLK_TCK; 100)
              --skip-latency, --skip-throughput
            """;

    static final ObjectMapper JSON = new ObjectMapper();
    private static final String REQUEST_ID = "X-Request-Id";

    final OverheadOptions o;
    private final HttpClient client;
    /** The admin snapshot and the engine's stats. */
    private final SideChannels side;
    private final ExecutorService executor;
    /** The streamed completion per max_tokens, as sent by the client (never changed once built). */
    private final Map<Integer, ObjectNode> streamRequests = new ConcurrentHashMap<>();
    private final Map<Integer, byte[]> streamBodies = new ConcurrentHashMap<>();
    private final TokenIdPrompt prompt;
    /** The prefill hop, the same for every request (the request id goes in a header). */
    private final byte[] prefillBody;
    private final String runId = Long.toHexString(System.currentTimeMillis() & 0xFFFFFFFL);
    private final AtomicLong ids = new AtomicLong();

    ProxyOverhead(OverheadOptions o) {
        this.o = o;
        // A fixed small executor: callbacks are short, and a cached pool would grow threads
        // that compete for the two cores with the proxy and the cluster.
        this.executor = Executors.newFixedThreadPool(2, r -> {
            Thread t = new Thread(r, "overhead-client");
            t.setDaemon(true);
            return t;
        });
        this.client = loadClient();
        this.side = new SideChannels(o.proxy, o.adminAuth, o.sim);
        this.prompt = TokenIdPrompt.cycling(o.promptTokens);
        // the prefill hop as the proxy builds it (docs/vllm-contract.md, "Two-hop request flow", step 2)
        this.prefillBody = bytes(CompletionBodies.prefillHop(streamRequest(1)));
    }

    /**
     * Jetty's asynchronous client on one selector and a small pool (callbacks are short; more
     * threads would compete for the two cores with the proxy and the cluster). Its own pool
     * (the direct path's prefill hops, the latency phases, the probes) has room for tens of
     * thousands of connections per destination and keeps none idle past 4 s: between runs the
     * proxies close the ones left idle, and a POST sent on one would fail with no answer.
     */
    private static HttpClient loadClient() {
        QueuedThreadPool threads = new QueuedThreadPool(8, 2);
        threads.setName("overhead-client");
        threads.setDaemon(true);
        ClientConnector connector = new ClientConnector();
        connector.setSelectors(1);
        connector.setExecutor(threads);
        HttpClient c = new HttpClient(new HttpClientTransportOverHTTP(connector));
        c.setExecutor(threads);
        c.setConnectTimeout(5_000);
        c.setIdleTimeout(4_000);
        c.setMaxConnectionsPerDestination(1 << 16);
        c.setMaxRequestsQueuedPerDestination(1 << 17);
        c.setFollowRedirects(false);
        c.setUserAgentField(null);
        c.getContentDecoderFactories().clear(); // no Accept-Encoding: the answers come as the engine wrote them
        c.setUseInputDirectByteBuffers(false); // SseCounter scans the chunks' arrays
        try {
            c.start();
        } catch (Exception e) {
            throw new IllegalStateException("cannot start the load client: " + e, e);
        }
        return c;
    }

    private static byte[] bytes(JsonNode body) {
        try {
            return JSON.writeValueAsBytes(body);
        } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
            throw new IllegalStateException(e);
        }
    }

    public static void main(String[] args) {
        main(args, new OverheadOptions(), USAGE, "proxy-overhead", ProxyOverhead::run);
    }

    /** What a tool runs once its options are read. */
    interface Body {
        void run(ProxyOverhead tool) throws BenchmarkException, InterruptedException;
    }

    /** Reads the options into {@code defaults} and runs {@code body}; exits with its status. */
    static void main(String[] args, OverheadOptions defaults, String usage, String name, Body body) {
        // the side channels' idle connections kept 4 s, not the JDK's 20 minutes: between runs the
        // runtime closes the ones left idle, and a POST sent on one fails with no answer
        if (System.getProperty("jdk.httpclient.keepalive.timeout") == null) {
            System.setProperty("jdk.httpclient.keepalive.timeout", "4");
        }
        // Jetty's client logs through SLF4J (slf4j-simple here): its warnings and errors only
        if (System.getProperty("org.slf4j.simpleLogger.defaultLogLevel") == null) {
            System.setProperty("org.slf4j.simpleLogger.defaultLogLevel", "warn");
        }
        OverheadOptions o = defaults;
        try {
            if (!OverheadOptions.parse(args, o, o)) {
                System.out.print(usage);
                return;
            }
        } catch (IllegalArgumentException e) {
            System.err.println(name + ": " + e.getMessage());
            System.err.print(usage);
            System.exit(2);
            return;
        }
        try {
            body.run(new ProxyOverhead(o));
            System.exit(0);
        } catch (BenchmarkException e) {
            System.err.println(name + ": " + e.getMessage());
            System.exit(1);
        } catch (InterruptedException e) {
            System.exit(130);
        }
    }

    static final class BenchmarkException extends Exception {
        BenchmarkException(String message) {
            super(message);
        }
    }

    /** The paths this run measures: direct, the proxy, and the peer when --peer is given. */
    List<Path> paths() {
        return o.peer == null ? List.of(Path.DIRECT, Path.PROXY) : List.of(Path.DIRECT, Path.PROXY, Path.PEER);
    }

    /** One request each way: a wrong URL or configuration fails here, not mid-run. */
    void probe() throws BenchmarkException {
        for (Path path : paths()) {
            Outcome r = send(path, 0, o.latencyMaxTokens).join();
            if (r.error() != null) {
                throw new BenchmarkException("probe through the " + path.label + " path failed: " + r.error());
            }
            if (r.tokens() != o.latencyMaxTokens) {
                throw new BenchmarkException("probe through the " + path.label + " path: " + r.tokens()
                        + " tokens counted, expected " + o.latencyMaxTokens);
            }
        }
    }

    void run() throws BenchmarkException, InterruptedException {
        probe();
        for (URI u : o.also) {
            Outcome r = send(new Target(u.getAuthority(), u), o.latencyMaxTokens).join();
            if (r.error() != null || r.tokens() != o.latencyMaxTokens) {
                throw new BenchmarkException("probe through " + u + " failed: " + (r.error() != null ? r.error() : r.tokens()
                        + " tokens"));
            }
        }
        StringBuilder out = new StringBuilder();
        out.append(String.format(Locale.ROOT, "%nProxy overhead, %s; prompt %d token ids, ignore_eos, streamed%n",
                ZonedDateTime.now().format(DateTimeFormatter.ISO_OFFSET_DATE_TIME), o.promptTokens));
        if (o.latency) {
            out.append(latency());
            System.out.print(out);
            System.out.flush();
            out.setLength(0);
        }
        if (o.throughput) {
            checkOpenFiles(Arrays.stream(o.concurrency).max().orElse(1));
            out.append(String.format(Locale.ROOT, "%n(b) relayed tokens/s, closed loop, %d tokens per request, "
                    + "%.0f s measured after %.0f s warm-up%n", o.streamMaxTokens, o.durationSeconds, o.warmupSeconds));
            out.append(String.format(Locale.ROOT, "%7s %-7s %10s %8s %8s %9s %9s %7s %11s %11s %9s%s%n",
                    "streams", "path", "tok/s", "vs dir", "req/s", "e2e p50", "e2e p99", "errors",
                    "pool mean", "pool max", "step ms", String.format(Locale.ROOT, " %12s %10s %8s %12s",
                            "cpu s/100k", "csw/tok", "threads", "client s/100k")));
            for (int c : o.concurrency) {
                Throughput direct = throughput(Path.DIRECT, c, o.warmupSeconds, o.durationSeconds);
                Throughput proxy = throughput(Path.PROXY, c, o.warmupSeconds, o.durationSeconds);
                out.append(direct.row(c, Double.NaN)).append(proxy.row(c, direct.tokensPerSecond()));
            }
            out.append("(e2e: ms from send to [DONE] of the requests ended in the window; pool: the router's prompt pool,\n"
                    + " GET /admin/snapshot every 250 ms; step ms: the engine's mean decode step, GET /sim/stats)\n");
            out.append("(cpu s/100k: the runtime JVM's CPU seconds per 100k tokens relayed in the window (with --runtime-pid);\n"
                    + " csw/tok: its context switches, all threads, per relayed token; threads: its thread count at the window's\n"
                    + " end; on the direct rows, the idle runtime's, per token of the direct path; client s/100k: this load\n"
                    + " client's own CPU seconds per 100k tokens)\n");
        }
        System.out.print(out);
        System.out.flush();
    }

    // ---------------------------------------------------------------- (a) latency

    /** One way to send (a)'s request: direct, or through a proxy (ours or the peer). */
    record Target(String label, URI runtime) {
        static Target of(Path path, OverheadOptions o) {
            return new Target(path.label, path == Path.DIRECT ? null : path == Path.PROXY ? o.proxy : o.peer);
        }
    }

    private CompletableFuture<Outcome> send(Target t, int maxTokens) {
        if (t.runtime() == null) {
            return send(Path.DIRECT, 0, maxTokens);
        }
        String id = "overhead-" + runId + "-" + ids.incrementAndGet();
        return stream(t.runtime(), id, streamBody(maxTokens), System.nanoTime(), null, null);
    }

    /** (a)'s result: per target, the sorted end-to-end and first-token times of the measured requests. */
    record Latencies(List<Target> targets, long[][] e2e, long[][] ttft) {
        int index(Path path) {
            for (int p = 0; p < targets.size(); p++) {
                if (targets.get(p).label().equals(path.label)) {
                    return p;
                }
            }
            throw new IllegalArgumentException(path.label + " was not measured");
        }
    }

    private String latency() throws BenchmarkException {
        List<Target> targets = new ArrayList<>(List.of(new Target("direct", null), new Target("proxy", o.proxy)));
        for (URI u : o.also) {
            targets.add(new Target(u.getAuthority(), u));
        }
        int n = targets.size();
        Latencies l = latencies(targets, o.latencyWarmup, o.latencyRequests, "(a) latency");
        long[][] e2e = l.e2e();
        long[][] ttft = l.ttft();
        StringBuilder sb = new StringBuilder();
        sb.append(String.format(Locale.ROOT, "%n(a) latency per request, concurrency 1, %d tokens each, %d measured per path "
                + "after %d warm-up, interleaved%n", o.latencyMaxTokens, o.latencyRequests, o.latencyWarmup));
        sb.append(String.format(Locale.ROOT, "%-26s %9s %9s %9s %12s %12s%n", "path", "e2e p50", "e2e p99", "e2e mean",
                "TTFT p50", "TTFT p99"));
        for (int p = 0; p < n; p++) {
            long[] a = e2e[p];
            long[] t = ttft[p];
            sb.append(String.format(Locale.ROOT, "%-26s %9.3f %9.3f %9.3f %12.3f %12.3f%n", targets.get(p).label() + " (ms)",
                    ms(pct(a, 50)), ms(pct(a, 99)), ms(mean(a)), ms(pct(t, 50)), ms(pct(t, 99))));
        }
        sb.append(added("added by proxy (ms)", e2e[1], e2e[0], ttft[1], ttft[0]));
        for (int p = 2; p < n; p++) {
            sb.append(added(targets.get(p).label() + " - proxy (ms)", e2e[p], e2e[1], ttft[p], ttft[1]));
        }
        sb.append("(added: difference of the two distributions' percentiles, not a per-request difference)\n");
        return sb.toString();
    }

    /**
     * Concurrency 1: {@code warmup} then {@code requests} measured requests per target, the
     * targets interleaved (the order rotating every round, so no path always runs right after
     * another and noise from other processes falls on all alike).
     */
    Latencies latencies(List<Target> targets, int warmup, int requests, String phase) throws BenchmarkException {
        int n = targets.size();
        System.err.printf(Locale.ROOT, "%s: %d + %d requests per path, interleaved over %d%n", phase, warmup, requests, n);
        long[][] e2e = new long[n][requests];
        long[][] ttft = new long[n][requests];
        int errors = 0;
        for (int i = -warmup; i < requests; i++) {
            // rotate the order every round: no path always runs right after another
            for (int k = 0; k < n; k++) {
                int p = Math.floorMod(k + i, n);
                Target t = targets.get(p);
                Outcome r = send(t, o.latencyMaxTokens).join();
                if (r.error() != null || r.tokens() != o.latencyMaxTokens) {
                    errors++;
                    System.err.println("proxy-overhead: " + t.label() + ": " + (r.error() != null ? r.error() : r.tokens() + " tokens"));
                    if (errors > 10) {
                        throw new BenchmarkException("more than 10 failed requests in " + phase + "; see above");
                    }
                }
                if (i >= 0) {
                    e2e[p][i] = r.endNanos() - r.startNanos();
                    ttft[p][i] = r.firstTokenNanos() - r.startNanos();
                }
            }
        }
        for (int p = 0; p < n; p++) {
            Arrays.sort(e2e[p]);
            Arrays.sort(ttft[p]);
        }
        return new Latencies(targets, e2e, ttft);
    }

    private static String added(String label, long[] e2e, long[] e2eBase, long[] ttft, long[] ttftBase) {
        return String.format(Locale.ROOT, "%-26s %+9.3f %+9.3f %+9.3f %+12.3f %+12.3f%n", label,
                ms(pct(e2e, 50) - pct(e2eBase, 50)), ms(pct(e2e, 99) - pct(e2eBase, 99)), ms(mean(e2e) - mean(e2eBase)),
                ms(pct(ttft, 50) - pct(ttftBase, 50)), ms(pct(ttft, 99) - pct(ttftBase, 99)));
    }

    // ---------------------------------------------------------------- (b) throughput

    /** The process whose CPU and context switches a run of this path reads: the proxy's (the idle runtime's on direct). */
    long pid(Path path) {
        return path == Path.PEER ? o.peerPid : o.runtimePid;
    }

    Throughput throughput(Path path, int streams, double warmupSeconds, double durationSeconds)
            throws BenchmarkException, InterruptedException {
        return throughput(path, streams, o.streamMaxTokens, warmupSeconds, durationSeconds, false);
    }

    /**
     * {@code streams} closed-loop streams of {@code maxTokens}-token requests through {@code path}:
     * a warm-up, then the measured window. This thread keeps the time line: it reads /proc at the
     * window's start and end itself (never behind a slow HTTP call), then, with {@code hold}, the
     * proxy process's threads, files and live heap after a full collection while the streams are
     * still open (after the window, so the collection is not billed to it), and only then lets the
     * streams stop; the runtime's pool depth is polled by a thread of its own.
     */
    Throughput throughput(Path path, int streams, int maxTokens, double warmupSeconds, double durationSeconds,
            boolean hold) throws BenchmarkException, InterruptedException {
        System.err.printf(Locale.ROOT, "(b) %s, %d streams of %d tokens: %.0f s warm-up + %.0f s%n", path.label, streams,
                maxTokens, warmupSeconds, durationSeconds);
        long pid = pid(path);
        long clientPid = ProcessHandle.current().pid();
        long start = System.nanoTime();
        long windowStart = start + (long) (warmupSeconds * 1e9);
        long windowEnd = windowStart + (long) (durationSeconds * 1e9);
        Window w = Window.closed();
        PoolSamples pool = new PoolSamples();
        ScheduledExecutorService sampler = null;
        if (path == Path.PROXY && o.poolSamples) {
            sampler = Executors.newSingleThreadScheduledExecutor(r -> {
                Thread t = new Thread(r, "overhead-pool-sampler");
                t.setDaemon(true);
                return t;
            });
            // asked from the start, kept in the window only: the warm-up compiles the snapshot's
            // path too, so its JIT is not billed to the measured window. With a fixed delay: a slow
            // answer delays the next sample, never queues them up
            sampler.scheduleWithFixedDelay(() -> {
                int depth = side.poolDepth();
                if (w.inside(System.nanoTime())) {
                    pool.sample(depth);
                }
            }, 0, 250_000_000L, TimeUnit.NANOSECONDS);
        }
        CompletableFuture<?>[] loops = new CompletableFuture<?>[streams];
        ProcSample.Delta runtime;
        ProcSample.Delta engine;
        ProcSample.Delta client;
        Held held = null;
        try {
            for (int s = 0; s < streams; s++) {
                CompletableFuture<Void> done = new CompletableFuture<>();
                loops[s] = done;
                loop(path, s, maxTokens, w, done, new OwnConnection());
            }
            sleepUntil(windowStart);
            w.openNow();
            ProcSample runtimeStart = ProcSample.read(pid, o.clockTicks);
            ProcSample engineStart = ProcSample.read(o.enginePid, o.clockTicks);
            ProcSample clientStart = ProcSample.read(clientPid, o.clockTicks, true);
            side.resetSimStats();
            sleepUntil(windowEnd);
            w.closeNow();
            ProcSample runtimeEnd = ProcSample.read(pid, o.clockTicks);
            ProcSample engineEnd = ProcSample.read(o.enginePid, o.clockTicks);
            ProcSample clientEnd = ProcSample.read(clientPid, o.clockTicks, true);
            runtime = ProcSample.between(runtimeStart, runtimeEnd);
            engine = ProcSample.between(engineStart, engineEnd);
            client = ProcSample.between(clientStart, clientEnd);
            if (hold && pid > 0 && path != Path.DIRECT) {
                held = Held.of(pid, o.clockTicks, true, w.open.get());
            }
        } finally {
            w.stopped = true;
            if (sampler != null) {
                sampler.shutdownNow();
            }
        }
        try {
            CompletableFuture.allOf(loops).get(300, TimeUnit.SECONDS);
        } catch (ExecutionException e) {
            throw new BenchmarkException(path.label + ", " + streams + " streams: " + e.getCause());
        } catch (TimeoutException e) {
            throw new BenchmarkException(path.label + ", " + streams + " streams: " + w.open.get() + " requests still open"
                    + " 300 s after the window; is the cluster or the runtime stuck?");
        }
        double stepMs = side.simStepMs();
        long[] e2e;
        synchronized (w.e2e) {
            e2e = w.e2e.stream().mapToLong(Long::longValue).sorted().toArray();
        }
        Throughput t = new Throughput(path, streams, maxTokens, w.seconds(), w.tokens.sum(), w.requests.sum(),
                w.errors.sum(), e2e, pool.mean(), pool.max(), stepMs, w.firstError, runtime, engine, client, held);
        if (pool.failed() > 0) {
            System.err.println("proxy-overhead: " + path.label + ", " + streams + " streams: " + pool.failed()
                    + " GET /admin/snapshot samples got no answer within 2 s (the runtime's HTTP server saturated?)");
        }
        if (t.firstError() != null) {
            System.err.println("proxy-overhead: " + path.label + ", " + streams + " streams: " + t.errors()
                    + " failed in the window; first: " + t.firstError());
        }
        return t;
    }

    /** Sleeps until {@code deadline} ({@link System#nanoTime()}). */
    private static void sleepUntil(long deadline) throws InterruptedException {
        long left;
        while ((left = deadline - System.nanoTime()) > 0) {
            TimeUnit.NANOSECONDS.sleep(left);
        }
    }

    /**
     * The soft limit on open files of this client, the proxies and the engine against what
     * {@code streams} streams need (a connection each way plus the prefill hops', and a margin);
     * a clear failure rather than errors mid-run.
     */
    void checkOpenFiles(int streams) throws BenchmarkException {
        long need = 2L * streams + 512;
        StringBuilder short_ = new StringBuilder();
        long[] pids = {ProcessHandle.current().pid(), o.runtimePid, o.peerPid, o.enginePid};
        String[] names = {"this client", "the runtime", "the peer", "the simulated cluster"};
        for (int i = 0; i < pids.length; i++) {
            if (pids[i] <= 0) {
                continue;
            }
            long limit = ProcSample.openFilesLimit(pids[i]);
            if (limit >= 0 && limit < need) {
                short_.append(String.format(Locale.ROOT, "%n  %s (pid %d) may open %,d files", names[i], pids[i], limit));
            }
        }
        if (short_.length() > 0) {
            throw new BenchmarkException(String.format(Locale.ROOT, "%,d streams need about %,d open files per process "
                    + "(a connection each way, the prefill hops', a margin):%s%nraise the limit (ulimit -n; the harness "
                    + "raises it as far as the hard limit allows) or ask for fewer streams", streams, need, short_));
        }
    }

    /**
     * One stream: requests back to back on a connection of its own until the run is stopped, then
     * closes it and completes {@code done}. Each next request starts from the previous one's
     * callback (async, so that quick failures do not recurse on one stack), rather than a chain of
     * composed futures growing per request.
     */
    private void loop(Path path, int stream, int maxTokens, Window w, CompletableFuture<Void> done, OwnConnection own) {
        if (w.stopped) {
            own.close();
            done.complete(null);
            return;
        }
        w.open.incrementAndGet();
        send(path, stream, maxTokens, w, own).whenCompleteAsync((r, failure) -> {
            w.open.decrementAndGet();
            if (failure != null) {
                done.completeExceptionally(failure);
                return;
            }
            if (w.inside(r.endNanos())) {
                if (r.error() != null) {
                    w.errors.increment();
                    if (w.firstError == null) {
                        w.firstError = r.error();
                    }
                } else {
                    w.requests.increment();
                    synchronized (w.e2e) {
                        w.e2e.add(r.endNanos() - r.startNanos());
                    }
                }
            } else if (r.error() != null && r.endNanos() < w.start) {
                System.err.println("proxy-overhead: warm-up error (" + path.label + "): " + r.error());
            }
            loop(path, stream, maxTokens, w, done, own);
        }, executor);
    }

    // ---------------------------------------------------------------- the two paths

    enum Path {
        DIRECT("direct", "direct"), PROXY("proxy", "balanceroute"), PEER("vllm-ascend", "vllm-ascend");

        final String label;
        /** The name side-by-side gives it (its tables, --json). */
        final String name;

        Path(String label, String name) {
            this.label = label;
            this.name = name;
        }
    }

    /** The streamed completion the client sends (shared: never change it). */
    private ObjectNode streamRequest(int maxTokens) {
        return streamRequests.computeIfAbsent(maxTokens, m -> CompletionBodies.streamed(o.model, prompt, m, true));
    }

    private byte[] streamBody(int maxTokens) {
        return streamBodies.computeIfAbsent(maxTokens, m -> bytes(streamRequest(m)));
    }

    /** One request, on a pooled connection. */
    CompletableFuture<Outcome> send(Path path, int stream, int maxTokens) {
        return send(path, stream, maxTokens, null, null);
    }

    /**
     * One request of a stream: the streamed hop on {@code own} (a connection of the stream's, or
     * null: a pooled one), the direct path's prefill hop on a pooled connection.
     */
    private CompletableFuture<Outcome> send(Path path, int stream, int maxTokens, Window w, OwnConnection own) {
        String id = "overhead-" + runId + "-" + ids.incrementAndGet();
        long start = System.nanoTime();
        if (path == Path.PROXY) {
            return stream(o.proxy, id, streamBody(maxTokens), start, w, own);
        }
        if (path == Path.PEER) {
            return stream(o.peer, id, streamBody(maxTokens), start, w, own);
        }
        URI decode = o.decode.get(stream % o.decode.size());
        CompletableFuture<Outcome> outcome = new CompletableFuture<>();
        // 60 s for the whole prefill answer, and as long without a byte (not the 4 s of idle pooled connections)
        client.newRequest(o.prefill.resolve("/v1/completions")).method(HttpMethod.POST)
                .timeout(60, TimeUnit.SECONDS).idleTimeout(60, TimeUnit.SECONDS)
                .headers(h -> h.put(REQUEST_ID, id))
                .body(new BytesRequestContent("application/json", prefillBody))
                .send(new BufferingResponseListener(1 << 20) {
                    @Override
                    public void onComplete(Result result) {
                        if (result.isFailed()) {
                            outcome.complete(Outcome.failed(start, "prefill: " + result.getFailure()));
                            return;
                        }
                        if (result.getResponse().getStatus() != 200) {
                            outcome.complete(Outcome.failed(start, "prefill: HTTP " + result.getResponse().getStatus() + " "
                                    + getContentAsString(StandardCharsets.UTF_8)));
                            return;
                        }
                        ObjectNode kv;
                        try {
                            kv = KvHandle.in(JSON.readTree(getContent()));
                        } catch (IOException e) {
                            outcome.complete(Outcome.failed(start, "prefill: unreadable answer: " + e));
                            return;
                        }
                        if (kv == null) {
                            outcome.complete(Outcome.failed(start, "prefill: no kv_transfer_params"));
                            return;
                        }
                        // the decode hop: the client's body plus the prefill's handle, verbatim (step 4)
                        stream(decode, id, bytes(CompletionBodies.decodeHop(streamRequest(maxTokens), kv)), start, w, own)
                                .whenComplete((r, failure) -> {
                                    if (failure != null) {
                                        outcome.completeExceptionally(failure);
                                    } else {
                                        outcome.complete(r);
                                    }
                                });
                    }
                });
        return outcome;
    }

    /**
     * A streamed completion, on {@code own} or (null) a pooled connection: no total timeout (at
     * thousands of streams one 128-token answer can take minutes), 120 s at most without a byte.
     */
    private CompletableFuture<Outcome> stream(URI base, String id, byte[] body, long start, Window w, OwnConnection own) {
        CompletableFuture<Outcome> outcome = new CompletableFuture<>();
        SseCounter counter = new SseCounter(start, w);
        Request request = client.newRequest(base.resolve("/v1/completions")).method(HttpMethod.POST)
                .idleTimeout(120, TimeUnit.SECONDS)
                .headers(h -> h.put(HttpHeader.ACCEPT, "text/event-stream").put(REQUEST_ID, id))
                .body(new BytesRequestContent("application/json", body))
                .onResponseContentSource(counter);
        Response.CompleteListener ended = result -> outcome.complete(result.isFailed()
                ? counter.failed(base.getAuthority() + ": " + result.getFailure())
                : counter.outcome(result.getResponse().getStatus()));
        if (own != null) {
            own.send(client, request, ended);
        } else {
            request.send(ended);
        }
        return outcome;
    }


}
