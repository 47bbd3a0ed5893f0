package org.balanceroute.benchmarks;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
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
import java.util.concurrent.atomic.LongAdder;
import org.balanceroute.wire.CompletionBodies;
import org.balanceroute.wire.KvHandle;
import org.balanceroute.wire.TokenIdPrompt;
import org.eclipse.jetty.client.BufferingResponseListener;
import org.eclipse.jetty.client.BytesRequestContent;
import org.eclipse.jetty.client.Connection;
import org.eclipse.jetty.client.HttpClient;
import org.eclipse.jetty.client.Request;
import org.eclipse.jetty.client.Response;
import org.eclipse.jetty.client.Result;
import org.eclipse.jetty.client.transport.HttpClientTransportOverHTTP;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.http.HttpMethod;
import org.eclipse.jetty.io.ClientConnector;
import org.eclipse.jetty.io.Content;
import org.eclipse.jetty.util.Promise;
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
    /** The side channels (admin snapshot, the engine's stats): a client of their own, not queued behind the load. */
    private final java.net.http.HttpClient side = java.net.http.HttpClient.newBuilder()
            .version(java.net.http.HttpClient.Version.HTTP_1_1).connectTimeout(Duration.ofSeconds(5)).build();
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
            if (r.error != null) {
                throw new BenchmarkException("probe through the " + path.label + " path failed: " + r.error);
            }
            if (r.tokens != o.latencyMaxTokens) {
                throw new BenchmarkException("probe through the " + path.label + " path: " + r.tokens
                        + " tokens counted, expected " + o.latencyMaxTokens);
            }
        }
    }

    void run() throws BenchmarkException, InterruptedException {
        probe();
        for (URI u : o.also) {
            Outcome r = send(new Target(u.getAuthority(), u), o.latencyMaxTokens).join();
            if (r.error != null || r.tokens != o.latencyMaxTokens) {
                throw new BenchmarkException("probe through " + u + " failed: " + (r.error != null ? r.error : r.tokens
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
                if (r.error != null || r.tokens != o.latencyMaxTokens) {
                    errors++;
                    System.err.println("proxy-overhead: " + t.label() + ": " + (r.error != null ? r.error : r.tokens + " tokens"));
                    if (errors > 10) {
                        throw new BenchmarkException("more than 10 failed requests in " + phase + "; see above");
                    }
                }
                if (i >= 0) {
                    e2e[p][i] = r.endNanos - r.startNanos;
                    ttft[p][i] = r.firstTokenNanos - r.startNanos;
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

    /**
     * One closed-loop run's result. {@code runtime}, {@code engine}, {@code client}: /proc over the
     * measured window of the path's proxy process (the idle runtime's on direct), the simulated
     * cluster's JVM and this client's JVM (null when not read); {@code held}: what the proxy
     * process held with the streams open, just after the window (null when not probed).
     */
    record Throughput(Path path, int streams, int maxTokens, double seconds, long tokens, long requests, long errors,
            long[] e2e, double poolMean, int poolMax, double stepMs, String firstError, ProcSample.Delta runtime,
            ProcSample.Delta engine, ProcSample.Delta client, Held held) {

        double tokensPerSecond() {
            return tokens / seconds;
        }

        double requestsPerSecond() {
            return requests / seconds;
        }

        String row(int streams, double directTokensPerSecond) {
            String vs = Double.isNaN(directTokensPerSecond) ? "" : String.format(Locale.ROOT, "%7.1f%%",
                    (tokensPerSecond() / directTokensPerSecond - 1) * 100);
            String proc = String.format(Locale.ROOT, " %12s %10s %8s %12s",
                    runtime == null || tokens == 0 ? "-" : String.format(Locale.ROOT, "%.3f", runtime.cpuPer100k(tokens)),
                    runtime == null || tokens == 0 || runtime.switches() < 0 ? "-"
                            : String.format(Locale.ROOT, "%.3f", (double) runtime.switches() / tokens),
                    runtime == null ? "-" : Integer.toString(runtime.threads()),
                    client == null || tokens == 0 ? "-" : String.format(Locale.ROOT, "%.3f", client.cpuPer100k(tokens)));
            return String.format(Locale.ROOT, "%7d %-7s %,10.0f %8s %8.1f %9.2f %9.2f %7d %11s %11s %9s%s%n", streams,
                    path.label, tokensPerSecond(), vs, requests / seconds, ms(pct(e2e, 50)), ms(pct(e2e, 99)), errors,
                    Double.isNaN(poolMean) ? "-" : String.format(Locale.ROOT, "%.1f", poolMean),
                    poolMax < 0 ? "-" : Integer.toString(poolMax),
                    Double.isNaN(stepMs) ? "-" : String.format(Locale.ROOT, "%.3f", stepMs), proc);
        }
    }

    /**
     * What a process holds: its threads, open file descriptors, resident memory and (a JVM) live
     * heap after a full collection, -1 where not known; {@code openStreams}: the client's requests
     * in flight when it was read.
     */
    record Held(int threads, int openFds, long rssBytes, long heapAfterGcBytes, int openStreams) {

        /** The process's figures now, with a full collection first when {@code heap} (and it is a JVM). */
        static Held of(long pid, int clockTicks, boolean heap, int openStreams) {
            long heapBytes = heap ? heapAfterFullGc(pid) : -1;
            ProcSample p = ProcSample.read(pid, clockTicks);
            return p == null ? new Held(-1, -1, -1, heapBytes, openStreams)
                    : new Held(p.threads(), p.openFds(), p.rssBytes(), heapBytes, openStreams);
        }
    }

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
                int depth = poolDepth();
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
            resetSimStats();
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
        double stepMs = simStepMs();
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
        if (t.firstError != null) {
            System.err.println("proxy-overhead: " + path.label + ", " + streams + " streams: " + t.errors
                    + " failed in the window; first: " + t.firstError);
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
     * What one run's streams share: the window, its counters and the flag that stops them. The
     * run's thread opens and closes the window ({@link #openNow()}, {@link #closeNow()}) right
     * where it reads /proc, so tokens and CPU are counted over the same span even when that
     * thread wakes late on a busy machine.
     */
    static final class Window {
        volatile long start;
        volatile long end;
        final LongAdder tokens = new LongAdder();
        final LongAdder requests = new LongAdder();
        final LongAdder errors = new LongAdder();
        final List<Long> e2e = new ArrayList<>();
        /** Requests sent and not ended. */
        final java.util.concurrent.atomic.AtomicInteger open = new java.util.concurrent.atomic.AtomicInteger();
        volatile String firstError;
        /** Set after the window (and the probes after it): no stream sends another request. */
        volatile boolean stopped;

        Window(long start, long end) {
            this.start = start;
            this.end = end;
        }

        /** A window not open yet: nothing is inside until {@link #openNow()}. */
        static Window closed() {
            return new Window(Long.MAX_VALUE, Long.MAX_VALUE);
        }

        void openNow() {
            start = System.nanoTime();
        }

        void closeNow() {
            end = System.nanoTime();
        }

        double seconds() {
            return (end - start) / 1e9;
        }

        boolean inside(long t) {
            return t >= start && t < end;
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
            if (w.inside(r.endNanos)) {
                if (r.error != null) {
                    w.errors.increment();
                    if (w.firstError == null) {
                        w.firstError = r.error;
                    }
                } else {
                    w.requests.increment();
                    synchronized (w.e2e) {
                        w.e2e.add(r.endNanos - r.startNanos);
                    }
                }
            } else if (r.error != null && r.endNanos < w.start) {
                System.err.println("proxy-overhead: warm-up error (" + path.label + "): " + r.error);
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

    /** The outcome of one request; times from {@link System#nanoTime()}. */
    record Outcome(long startNanos, long firstTokenNanos, long endNanos, int tokens, String error) {
        static Outcome failed(long start, String error) {
            return new Outcome(start, -1, System.nanoTime(), 0, error);
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

    /**
     * A stream's own connection to the server it streams from, held across its requests as a
     * client of a proxy holds one: opened on first use and again once the server closed it,
     * closed when the stream ends. Never pooled: with a connection pool of thousands per
     * destination, Jetty's pool scans its entries on every acquire and copies its list on every
     * removal, which at 8,192 streams cost this client more than reading the answers. Used by one
     * request at a time (the stream's next one starts after the last one ended).
     */
    static final class OwnConnection {
        private volatile Connection connection;

        void send(HttpClient client, Request request, Response.CompleteListener listener) {
            Connection c = connection;
            if (c != null && !c.isClosed()) {
                c.send(request, listener);
                return;
            }
            client.resolveDestination(request).newConnection(Promise.from(opened -> {
                connection = opened;
                opened.send(request, listener);
            }, failure -> listener.onComplete(new Result(request, failure, null))));
        }

        void close() {
            Connection c = connection;
            if (c != null) {
                c.close();
            }
        }
    }

    /**
     * Reads one SSE answer from the client's content chunks: the first token's time, the
     * cumulative {@code usage.completion_tokens} of each chunk (added to the window's count as it
     * grows), in-band errors and {@code [DONE]}. Lines are scanned in the chunks' own arrays (only
     * a line that a chunk cuts off is copied, into a small array of its own) and only the one
     * field it needs is looked for, to keep the client's CPU out of the figures.
     */
    static final class SseCounter implements Response.ContentSourceListener {
        private static final byte[] DATA = "data:".getBytes(StandardCharsets.US_ASCII);
        private static final byte[] DONE = "[DONE]".getBytes(StandardCharsets.US_ASCII);
        private static final byte[] ERROR = "{\"error\"".getBytes(StandardCharsets.US_ASCII);
        private static final byte[] COMPLETION_TOKENS = "\"completion_tokens\"".getBytes(StandardCharsets.US_ASCII);

        private final long start;
        private final Window window;
        private long first = -1;
        private int tokens;
        private boolean done;
        private String error;
        /** The answer's lines that are not data (an error answer's body), the first 500 characters. */
        private final StringBuilder other = new StringBuilder();
        /** The start of a line the last chunk cut off ({@code kept} bytes); null until one is. */
        private byte[] partial;
        private int kept;
        /** Where a direct buffer's bytes are scanned, one per thread. */
        private static final ThreadLocal<byte[]> SCRATCH = ThreadLocal.withInitial(() -> new byte[16 * 1024]);
        private Content.Source source;
        /** One demand callback for the answer's life, not a lambda per read. */
        private final Runnable readMore = org.eclipse.jetty.util.thread.Invocable.from(
                org.eclipse.jetty.util.thread.Invocable.InvocationType.NON_BLOCKING, this::read);

        SseCounter(long start, Window window) {
            this.start = start;
            this.window = window;
        }

        @Override
        public void onContentSource(Response response, Content.Source source) {
            this.source = source;
            read();
        }

        /** Every chunk available now, then a demand for more; a failure reaches the request's result. */
        private void read() {
            while (true) {
                Content.Chunk chunk = source.read();
                if (chunk == null) {
                    source.demand(readMore);
                    return;
                }
                if (Content.Chunk.isFailure(chunk)) {
                    return;
                }
                try {
                    feed(chunk.getByteBuffer());
                } finally {
                    chunk.release();
                }
                if (chunk.isLast()) {
                    return;
                }
            }
        }

        /**
         * Scans a chunk: each complete line in place, the rest kept for the next chunk. A heap
         * buffer (the client reads into heap buffers) is scanned in its array; a direct one is
         * first copied whole into this thread's scratch array.
         */
        void feed(ByteBuffer b) {
            if (b.hasArray()) {
                feed(b.array(), b.arrayOffset() + b.position(), b.arrayOffset() + b.limit());
            } else {
                int n = b.remaining();
                byte[] a = SCRATCH.get();
                if (a.length < n) {
                    a = new byte[Math.max(n, 2 * a.length)];
                    SCRATCH.set(a);
                }
                b.get(b.position(), a, 0, n);
                feed(a, 0, n);
            }
            b.position(b.limit());
        }

        private void feed(byte[] a, int from, int limit) {
            for (int i = from; i < limit; i++) {
                if (a[i] != '\n') {
                    continue;
                }
                if (kept > 0) {
                    keep(a, from, i);
                    int n = kept;
                    kept = 0;
                    line(partial, 0, n);
                } else {
                    line(a, from, i);
                }
                from = i + 1;
            }
            if (from < limit) {
                keep(a, from, limit);
            }
        }

        private void keep(byte[] a, int from, int to) {
            int n = to - from;
            if (partial == null || partial.length - kept < n) {
                partial = Arrays.copyOf(partial == null ? new byte[0] : partial, Math.max(512, 2 * (kept + n)));
            }
            System.arraycopy(a, from, partial, kept, n);
            kept += n;
        }

        private void line(byte[] a, int from, int to) {
            if (to > from && a[to - 1] == '\r') {
                to--;
            }
            if (!startsWith(a, from, to, DATA)) {
                for (int i = from; i < to && other.length() < 500; i++) {
                    other.append((char) (a[i] & 0xFF));
                }
                return;
            }
            int data = from + DATA.length;
            if (data < to && a[data] == ' ') {
                data++;
            }
            if (startsWith(a, data, to, DONE)) {
                done = true;
                return;
            }
            if (startsWith(a, data, to, ERROR)) {
                error = "in-band error: " + new String(a, from, to - from, StandardCharsets.UTF_8);
                return;
            }
            int cumulative = completionTokens(a, from, to);
            if (cumulative > tokens) {
                long now = System.nanoTime();
                if (first < 0) {
                    first = now;
                }
                if (window != null && window.inside(now)) {
                    window.tokens.add(cumulative - tokens);
                }
                tokens = cumulative;
            }
        }

        private static boolean startsWith(byte[] a, int from, int to, byte[] prefix) {
            if (to - from < prefix.length) {
                return false;
            }
            for (int k = 0; k < prefix.length; k++) {
                if (a[from + k] != prefix[k]) {
                    return false;
                }
            }
            return true;
        }

        /** The value of the last {@code "completion_tokens": N} in bytes [from, to), or -1. */
        static int completionTokens(byte[] a, int from, int to) {
            for (int at = to - COMPLETION_TOKENS.length; at >= from; at--) {
                if (a[at] != '"' || !startsWith(a, at, to, COMPLETION_TOKENS)) {
                    continue;
                }
                int i = at + COMPLETION_TOKENS.length;
                while (i < to && (a[i] == ' ' || a[i] == ':')) {
                    i++;
                }
                int v = 0;
                boolean any = false;
                while (i < to && a[i] >= '0' && a[i] <= '9') {
                    v = v * 10 + (a[i++] - '0');
                    any = true;
                }
                return any ? v : -1;
            }
            return -1;
        }

        /** The request failed (connect, reset, idle timeout): what was counted in the window stays counted. */
        Outcome failed(String why) {
            return Outcome.failed(start, why);
        }

        /** The answer ended with this status. */
        Outcome outcome(int status) {
            long end = System.nanoTime();
            if (kept > 0) { // a last line without its newline
                int n = kept;
                kept = 0;
                line(partial, 0, n);
            }
            if (status != 200) {
                return new Outcome(start, first, end, tokens, "HTTP " + status + " " + other);
            }
            if (error == null && !done) {
                error = "the stream ended without data: [DONE]";
            }
            return new Outcome(start, first, end, tokens, error);
        }
    }

    // ---------------------------------------------------------------- side channels

    static final class PoolSamples {
        private long sum;
        private int count;
        private int max = -1;
        private int failed;

        synchronized void sample(int depth) {
            if (depth < 0) {
                failed++;
                return;
            }
            sum += depth;
            count++;
            max = Math.max(max, depth);
        }

        synchronized double mean() {
            return count == 0 ? Double.NaN : (double) sum / count;
        }

        synchronized int max() {
            return max;
        }

        synchronized int failed() {
            return failed;
        }
    }

    /** The router's prompt-pool depth, or -1 when the admin API does not answer. */
    private int poolDepth() {
        try {
            HttpResponse<String> r = side.send(HttpRequest.newBuilder(o.proxy.resolve("/admin/snapshot"))
                    .timeout(Duration.ofSeconds(2)).header("Authorization", o.adminAuth).GET().build(),
                    HttpResponse.BodyHandlers.ofString());
            return r.statusCode() == 200 ? JSON.readTree(r.body()).path("poolDepth").asInt(-1) : -1;
        } catch (IOException e) {
            return -1;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return -1;
        }
    }

    private void resetSimStats() {
        if (o.sim == null) {
            return;
        }
        try {
            side.send(HttpRequest.newBuilder(o.sim.resolve("/sim/stats/reset")).timeout(Duration.ofSeconds(2))
                    .POST(HttpRequest.BodyPublishers.noBody()).build(), HttpResponse.BodyHandlers.discarding());
        } catch (IOException e) {
            System.err.println("proxy-overhead: POST /sim/stats/reset: " + e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** The engine's mean wall-clock decode step since the last reset, or NaN. */
    private double simStepMs() {
        if (o.sim == null) {
            return Double.NaN;
        }
        try {
            HttpResponse<String> r = side.send(HttpRequest.newBuilder(o.sim.resolve("/sim/stats"))
                    .timeout(Duration.ofSeconds(5)).GET().build(), HttpResponse.BodyHandlers.ofString());
            return r.statusCode() == 200 ? JSON.readTree(r.body()).path("meanStepMs").asDouble(Double.NaN) : Double.NaN;
        } catch (IOException e) {
            return Double.NaN;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return Double.NaN;
        }
    }

    /**
     * A process's CPU time, context switches, threads, open files and resident memory, read from
     * /proc at {@code nanos} ({@link System#nanoTime()}): {@code utime + stime} of /proc/PID/stat
     * (the whole thread group), the sum over /proc/PID/task/* of {@code voluntary_ctxt_switches +
     * nonvoluntary_ctxt_switches} (/proc/PID/status alone counts the main thread only), the entries
     * of /proc/PID/task and /proc/PID/fd, {@code VmRSS}, and the read and write system calls the
     * process made ({@code syscr + syscw} of /proc/PID/io: a socket read or write is one; how well
     * the relay batches tokens per call shows there). Threads that end between two samples
     * take their switches with them. A figure that cannot be read is -1; the CPU time is the one
     * that must be there (read twice before giving up).
     */
    record ProcSample(long nanos, double cpuSeconds, long switches, int threads, int openFds, long rssBytes,
            long syscalls, Map<String, Double> threadCpu) {

        /**
         * From one sample to a later one; threads, open files and memory are the later sample's;
         * {@code busiestThreadCpuSeconds}: the most CPU one thread took in between (-1 when the
         * threads' times were not read).
         */
        record Delta(double seconds, double cpuSeconds, long switches, int threads, int openFds, long rssBytes,
                long syscalls, double busiestThreadCpuSeconds) {

            /** CPU seconds per 100k tokens. */
            double cpuPer100k(long tokens) {
                return cpuSeconds / tokens * 100_000;
            }
        }

        Delta minus(ProcSample before) {
            double busiest = -1;
            if (threadCpu != null && before.threadCpu != null) {
                for (Map.Entry<String, Double> t : threadCpu.entrySet()) {
                    busiest = Math.max(busiest, t.getValue() - before.threadCpu.getOrDefault(t.getKey(), 0.0));
                }
            }
            return new Delta((nanos - before.nanos) / 1e9, cpuSeconds - before.cpuSeconds,
                    switches < 0 || before.switches < 0 ? -1 : switches - before.switches, threads, openFds, rssBytes,
                    syscalls < 0 || before.syscalls < 0 ? -1 : syscalls - before.syscalls, busiest);
        }

        /** The delta from {@code before} to {@code after}; null when either is. */
        static Delta between(ProcSample before, ProcSample after) {
            return before == null || after == null ? null : after.minus(before);
        }

        /** Null when the process's CPU time cannot be read (it ended, or pid is 0). */
        static ProcSample read(long pid, int clockTicks) {
            return read(pid, clockTicks, false);
        }

        /** With {@code perThread}, each thread's CPU time too (/proc/PID/task/TID/stat). */
        static ProcSample read(long pid, int clockTicks, boolean perThread) {
            if (pid <= 0) {
                return null;
            }
            long nanos = System.nanoTime();
            java.nio.file.Path proc = java.nio.file.Path.of("/proc/" + pid);
            double cpu;
            try {
                cpu = cpuSeconds(proc, clockTicks);
            } catch (IOException | RuntimeException first) {
                try {
                    cpu = cpuSeconds(proc, clockTicks);
                } catch (IOException | RuntimeException e) {
                    System.err.println("proxy-overhead: cannot read /proc/" + pid + "/stat: " + e);
                    return null;
                }
            }
            long switches = 0;
            int threads = 0;
            Map<String, Double> threadCpu = perThread ? new java.util.HashMap<>() : null;
            try (java.nio.file.DirectoryStream<java.nio.file.Path> tasks = java.nio.file.Files.newDirectoryStream(
                    proc.resolve("task"))) {
                for (java.nio.file.Path t : tasks) {
                    try {
                        for (String line : java.nio.file.Files.readAllLines(t.resolve("status"))) {
                            if (line.startsWith("voluntary_ctxt_switches:")
                                    || line.startsWith("nonvoluntary_ctxt_switches:")) {
                                switches += Long.parseLong(line.substring(line.indexOf(':') + 1).strip());
                            }
                        }
                        if (threadCpu != null) {
                            threadCpu.put(t.getFileName().toString(), cpuSeconds(t, clockTicks));
                        }
                        threads++;
                    } catch (IOException | RuntimeException ended) {
                        // the thread ended while listed
                    }
                }
            } catch (IOException | RuntimeException e) {
                System.err.println("proxy-overhead: cannot read /proc/" + pid + "/task: " + e);
                switches = -1;
                threads = -1;
            }
            int fds = -1;
            try (java.nio.file.DirectoryStream<java.nio.file.Path> open = java.nio.file.Files.newDirectoryStream(
                    proc.resolve("fd"))) {
                fds = 0;
                for (java.nio.file.Path ignored : open) {
                    fds++;
                }
            } catch (IOException | RuntimeException e) {
                System.err.println("proxy-overhead: cannot read /proc/" + pid + "/fd: " + e);
            }
            long rss = -1;
            try {
                for (String line : java.nio.file.Files.readAllLines(proc.resolve("status"))) {
                    if (line.startsWith("VmRSS:")) { // "VmRSS:     123456 kB"
                        rss = Long.parseLong(line.substring(6).replace("kB", "").strip()) * 1024;
                    }
                }
            } catch (IOException | RuntimeException e) {
                System.err.println("proxy-overhead: cannot read /proc/" + pid + "/status: " + e);
            }
            long syscalls = -1;
            try {
                long sum = 0;
                for (String line : java.nio.file.Files.readAllLines(proc.resolve("io"))) {
                    if (line.startsWith("syscr:") || line.startsWith("syscw:")) {
                        sum += Long.parseLong(line.substring(6).strip());
                    }
                }
                syscalls = sum;
            } catch (IOException | RuntimeException e) {
                // another user's process: /proc/PID/io is not readable; the figure is left out
            }
            return new ProcSample(nanos, cpu, switches, threads, fds, rss, syscalls, threadCpu);
        }

        private static double cpuSeconds(java.nio.file.Path proc, int clockTicks) throws IOException {
            String stat = java.nio.file.Files.readString(proc.resolve("stat"));
            // fields after the command name (which may hold spaces), from field 3 on: utime is 14, stime 15
            String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
            return (Long.parseLong(f[11]) + Long.parseLong(f[12])) / (double) clockTicks;
        }

        /** The soft limit on open files of the process ("Max open files" of /proc/PID/limits), or -1. */
        static long openFilesLimit(long pid) {
            try {
                for (String line : java.nio.file.Files.readAllLines(java.nio.file.Path.of("/proc/" + pid + "/limits"))) {
                    if (line.startsWith("Max open files")) {
                        String soft = line.substring("Max open files".length()).strip().split("\\s+")[0];
                        return "unlimited".equals(soft) ? Long.MAX_VALUE : Long.parseLong(soft);
                    }
                }
            } catch (IOException | RuntimeException e) {
                System.err.println("proxy-overhead: cannot read /proc/" + pid + "/limits: " + e);
            }
            return -1;
        }

        /** The process's command name (/proc/PID/comm: "java" for a JVM), or "". */
        static String command(long pid) {
            try {
                return java.nio.file.Files.readString(java.nio.file.Path.of("/proc/" + pid + "/comm")).strip();
            } catch (IOException | RuntimeException e) {
                return "";
            }
        }
    }

    /**
     * The live heap of a JVM after a full collection: {@code jcmd PID GC.run} then
     * {@code GC.heap_info} (one jcmd), the sum of its heap's {@code used} figures (G1's one line,
     * or a generational collector's generations; Metaspace excluded). -1 when the process is not
     * a JVM or jcmd fails.
     */
    static long heapAfterFullGc(long pid) {
        if (pid <= 0 || !"java".equals(ProcSample.command(pid))) {
            return -1;
        }
        java.nio.file.Path commands = null;
        try {
            commands = java.nio.file.Files.createTempFile("heap-after-gc", ".jcmd");
            java.nio.file.Files.writeString(commands, "GC.run\nGC.heap_info\n");
            java.nio.file.Path jcmd = java.nio.file.Path.of(System.getProperty("java.home"), "bin", "jcmd");
            Process p = new ProcessBuilder(java.nio.file.Files.isExecutable(jcmd) ? jcmd.toString() : "jcmd",
                    Long.toString(pid), "-f", commands.toString()).redirectErrorStream(true).start();
            String out;
            try (java.io.InputStream in = p.getInputStream()) {
                out = new String(in.readAllBytes(), StandardCharsets.UTF_8);
            }
            if (!p.waitFor(60, TimeUnit.SECONDS) || p.exitValue() != 0) {
                System.err.println("proxy-overhead: jcmd " + pid + " GC.run / GC.heap_info failed: " + out.strip());
                return -1;
            }
            long used = usedHeap(out);
            if (used < 0) {
                System.err.println("proxy-overhead: no heap figure in jcmd " + pid + " GC.heap_info: " + out.strip());
            }
            return used;
        } catch (IOException e) {
            System.err.println("proxy-overhead: jcmd " + pid + ": " + e);
            return -1;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return -1;
        } finally {
            if (commands != null) {
                try {
                    java.nio.file.Files.deleteIfExists(commands);
                } catch (IOException ignored) {
                    // a temporary file
                }
            }
        }
    }

    private static final java.util.regex.Pattern USED = java.util.regex.Pattern.compile("\\bused (\\d+)([KMG])\\b");

    /** The bytes of the {@code used NNNK} figures of GC.heap_info's heap lines (not Metaspace's), or -1. */
    static long usedHeap(String heapInfo) {
        long used = -1;
        for (String line : heapInfo.split("\n")) {
            String l = line.strip();
            if (l.startsWith("Metaspace") || l.startsWith("class space")) {
                continue;
            }
            java.util.regex.Matcher m = USED.matcher(l);
            if (m.find()) {
                long unit = switch (m.group(2)) {
                    case "K" -> 1024L;
                    case "M" -> 1024L * 1024;
                    default -> 1024L * 1024 * 1024;
                };
                used = Math.max(used, 0) + Long.parseLong(m.group(1)) * unit;
            }
        }
        return used;
    }

    // ---------------------------------------------------------------- statistics

    /** Nearest-rank percentile of a sorted array; 0 when empty. */
    static long pct(long[] sorted, double p) {
        if (sorted.length == 0) {
            return 0;
        }
        int rank = (int) Math.ceil(p / 100.0 * sorted.length);
        return sorted[Math.max(0, Math.min(sorted.length - 1, rank - 1))];
    }

    static long mean(long[] a) {
        long s = 0;
        for (long v : a) {
            s += v;
        }
        return a.length == 0 ? 0 : s / a.length;
    }

    static double ms(long nanos) {
        return nanos / 1e6;
    }

}
