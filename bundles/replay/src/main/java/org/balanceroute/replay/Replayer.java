package org.balanceroute.replay;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.net.ConnectException;
import java.net.URI;
import java.net.URISyntaxException;
import java.net.http.HttpClient;
import java.net.http.HttpConnectTimeoutException;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.balanceroute.trace.TraceRequest;
import org.balanceroute.wire.CompletionBodies;
import org.balanceroute.wire.OpenAiErrorBody;
import org.balanceroute.wire.TokenIdPrompt;

/**
 * Replays requests against an OpenAI-compatible endpoint: each request is sent at its arrival
 * time (divided by the rate scale) as {@code POST /v1/completions} with a token-id prompt of its
 * input length (ids cycling 1..1000), {@code max_tokens} its output length, {@code ignore_eos},
 * streamed with {@code stream_options.include_usage}; at most {@code concurrency} requests are in
 * flight (a request whose time has come waits for a free slot). Per request it measures TTFT
 * (send to the first chunk with a token), TPOT (first to last token over tokens - 1) and the
 * output tokens (the final usage chunk when sent, else the chunks with text).
 * java.net.http over HTTP/1.1; one thread per request in flight.
 *
 * <p>A request whose connection ended before any byte of an answer came back is sent once more
 * and counted apart ({@link ReplayResult#retried}), as the OpenAI clients do: java.net.http can
 * hand out a pooled connection the server is closing, and the request then never reached it.
 */
public final class Replayer {

    /** Prompt token ids cycle through 1..PROMPT_ID_CYCLE ({@link TokenIdPrompt#cycling}). */
    public static final int PROMPT_ID_CYCLE = TokenIdPrompt.ID_CYCLE;

    private static final ObjectMapper JSON = new ObjectMapper();

    /** Seconds an idle pooled connection is kept, unless {@code -Djdk.httpclient.keepalive.timeout} says. */
    static final String KEEP_ALIVE_SECONDS = "4";

    /**
     * Shortens the JDK client's keep-alive (1200 s by default) below the servers' own: vLLM's
     * uvicorn closes idle connections after 5 s, and a client that reuses one as the server closes
     * it loses a request it never sent. It also stops a finished replay's thousands of idle
     * connections from holding the endpoint's resources for 20 minutes. The JDK reads the property
     * once, when its first client is built: call this before any.
     */
    public static void configureJdkClient() {
        if (System.getProperty("jdk.httpclient.keepalive.timeout") == null) {
            System.setProperty("jdk.httpclient.keepalive.timeout", KEEP_ALIVE_SECONDS);
        }
    }

    /** The endpoints' completion URIs: request i goes to {@code completions[i % n]} (round-robin). */
    private final URI[] completions;
    private final String model;
    private final double rateScale;
    private final int concurrency;
    private final PrintStream progress;
    private final Duration requestTimeout;
    private final String idPrefix;
    private volatile boolean continuousUsage;

    /**
     * @param baseUrl the endpoint, e.g. {@code http://127.0.0.1:8000} (a trailing {@code /v1} is
     *     accepted)
     * @param model the {@code model} field sent; null to send none
     * @param rateScale arrivals are divided by it (> 0)
     * @param concurrency most requests in flight (>= 1)
     * @param progress where progress lines go every 2 s; null for none
     * @throws IllegalArgumentException for a URL that is not http(s)://host[:port][/path]
     */
    public Replayer(String baseUrl, String model, double rateScale, int concurrency, PrintStream progress) {
        this(List.of(baseUrl), model, rateScale, concurrency, progress);
    }

    /**
     * A replay spread over several endpoints (proxy replicas behind no load balancer): request i
     * goes to {@code baseUrls[i % n]}, round-robin, as a load balancer in front of them would.
     *
     * @throws IllegalArgumentException for no URL or a URL that is not http(s)://host[:port][/path]
     */
    public Replayer(List<String> baseUrls, String model, double rateScale, int concurrency, PrintStream progress) {
        if (baseUrls.isEmpty()) {
            throw new IllegalArgumentException("at least one URL is needed");
        }
        this.completions = baseUrls.stream().map(Replayer::completionsUri).toArray(URI[]::new);
        if (!(rateScale > 0) || Double.isInfinite(rateScale)) {
            throw new IllegalArgumentException("rate scale must be finite and > 0, got " + rateScale);
        }
        if (concurrency < 1) {
            throw new IllegalArgumentException("concurrency must be >= 1, got " + concurrency);
        }
        this.model = model;
        this.rateScale = rateScale;
        this.concurrency = concurrency;
        this.progress = progress;
        this.requestTimeout = Duration.ofMinutes(30);
        this.idPrefix = "replay-" + Long.toHexString(System.nanoTime() & 0xFFFFFFL) + "-";
    }

    /**
     * Also asks for {@code stream_options.continuous_usage_stats} (vLLM: cumulative usage on
     * every chunk), so a router in between counts multi-token chunks right. Off by default.
     */
    public Replayer continuousUsage(boolean on) {
        this.continuousUsage = on;
        return this;
    }

    /** {@code baseUrl + /v1/completions}, checked. */
    public static URI completionsUri(String baseUrl) {
        Objects.requireNonNull(baseUrl, "url");
        URI uri;
        try {
            uri = new URI(baseUrl.strip());
        } catch (URISyntaxException e) {
            throw new IllegalArgumentException("bad URL '" + baseUrl + "': " + e.getMessage());
        }
        String scheme = uri.getScheme();
        if (scheme == null || !(scheme.equalsIgnoreCase("http") || scheme.equalsIgnoreCase("https"))
                || uri.getHost() == null) {
            throw new IllegalArgumentException("bad URL '" + baseUrl + "': expected http://HOST[:PORT][/PATH]");
        }
        String path = uri.getPath() == null ? "" : uri.getPath();
        while (path.endsWith("/")) {
            path = path.substring(0, path.length() - 1);
        }
        if (path.endsWith("/v1/completions")) {
            path = path.substring(0, path.length() - "/v1/completions".length());
        } else if (path.endsWith("/v1")) {
            path = path.substring(0, path.length() - 3);
        }
        return URI.create(scheme.toLowerCase(Locale.ROOT) + "://" + uri.getRawAuthority() + path + "/v1/completions");
    }

    /** The first endpoint's completion URI. */
    public URI completionsUri() {
        return completions[0];
    }

    /** Replays {@code requests} (in arrival order) and waits for every answer. */
    public ReplayResult run(List<TraceRequest> requests) throws InterruptedException {
        HttpClient client = HttpClient.newBuilder()
                .version(HttpClient.Version.HTTP_1_1)
                .connectTimeout(Duration.ofSeconds(10))
                .build();
        int n = requests.size();
        RequestOutcome[] outcomes = new RequestOutcome[n];
        Semaphore slots = new Semaphore(concurrency);
        AtomicInteger done = new AtomicInteger();
        AtomicInteger failed = new AtomicInteger();
        AtomicInteger retried = new AtomicInteger();
        ExecutorService pool = Executors.newCachedThreadPool(r -> {
            Thread t = new Thread(r, "replay");
            t.setDaemon(true);
            return t;
        });
        long start = System.nanoTime();
        Thread reporter = null;
        if (progress != null) {
            reporter = new Thread(() -> {
                try {
                    while (true) {
                        Thread.sleep(2000);
                        progress.printf(Locale.ROOT, "replay: %.0f s, %d/%d done, %d in flight, %d errors%n",
                                (System.nanoTime() - start) / 1e9, done.get(), n,
                                concurrency - slots.availablePermits(), failed.get());
                    }
                } catch (InterruptedException e) {
                    // finished
                }
            }, "replay-progress");
            reporter.setDaemon(true);
            reporter.start();
        }
        try {
            for (int i = 0; i < n; i++) {
                TraceRequest request = requests.get(i);
                long due = start + (long) (request.arrivalSeconds() / rateScale * 1e9);
                long wait = due - System.nanoTime();
                if (wait > 0) {
                    TimeUnit.NANOSECONDS.sleep(wait);
                }
                slots.acquire();
                int index = i;
                pool.execute(() -> {
                    try {
                        outcomes[index] = send(client, index, request, retried);
                    } catch (RuntimeException e) {
                        outcomes[index] = RequestOutcome.failure(request, e.toString(), index % completions.length);
                    } finally {
                        if (outcomes[index].error() != null) {
                            failed.incrementAndGet();
                        }
                        done.incrementAndGet();
                        slots.release();
                    }
                });
            }
            slots.acquire(concurrency); // every request answered
            slots.release(concurrency);
        } finally {
            pool.shutdownNow();
            if (reporter != null) {
                reporter.interrupt();
            }
        }
        double wall = (System.nanoTime() - start) / 1e9;
        List<RequestOutcome> list = new ArrayList<>(n);
        for (RequestOutcome o : outcomes) {
            list.add(o);
        }
        List<String> targets = new ArrayList<>(completions.length);
        for (URI u : completions) {
            targets.add(u.toString());
        }
        return ReplayResult.of(targets, list, wall, retried.get());
    }

    private RequestOutcome send(HttpClient client, int index, TraceRequest request, AtomicInteger retried) {
        String body = body(request);
        int target = index % completions.length;
        URI completions = this.completions[target];
        HttpRequest http = HttpRequest.newBuilder(completions)
                .timeout(requestTimeout)
                .header("Content-Type", "application/json")
                .header("Accept", "text/event-stream")
                .header("X-Request-Id", idPrefix + index)
                .POST(HttpRequest.BodyPublishers.ofString(body, StandardCharsets.UTF_8))
                .build();
        long t0 = System.nanoTime();
        HttpResponse<InputStream> response;
        try {
            try {
                response = client.send(http, HttpResponse.BodyHandlers.ofInputStream());
            } catch (IOException e) {
                if (!endedBeforeAnyAnswer(e)) {
                    throw e;
                }
                retried.incrementAndGet();
                response = client.send(http, HttpResponse.BodyHandlers.ofInputStream());
            }
        } catch (ConnectException e) {
            return RequestOutcome.failure(request, "connection refused: nothing listens at " + completions.getAuthority(), target);
        } catch (HttpConnectTimeoutException e) {
            return RequestOutcome.failure(request, "connect timeout to " + completions.getAuthority(), target);
        } catch (HttpTimeoutException e) {
            return RequestOutcome.failure(request, "no answer within " + requestTimeout.toSeconds() + " s", target);
        } catch (IOException e) {
            return RequestOutcome.failure(request, "I/O error: " + e.getMessage(), target);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return RequestOutcome.failure(request, "interrupted", target);
        }
        try (InputStream in = response.body();
             BufferedReader reader = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8))) {
            if (response.statusCode() != 200) {
                String text = new String(in.readAllBytes(), StandardCharsets.UTF_8);
                return RequestOutcome.failure(request, "HTTP " + response.statusCode() + ": " + errorMessage(text), target);
            }
            long first = -1;
            long last = -1;
            int chunks = 0;
            int usageTokens = -1;
            boolean sawDone = false;
            for (String line = reader.readLine(); line != null; line = reader.readLine()) {
                if (!line.startsWith("data:")) {
                    continue;
                }
                String data = line.substring(5).strip();
                if (data.equals("[DONE]")) {
                    sawDone = true;
                    break;
                }
                JsonNode chunk = JSON.readTree(data);
                if (chunk.has("error")) {
                    return RequestOutcome.failure(request, "in-band error: " + errorMessage(data), target);
                }
                JsonNode usage = chunk.get("usage");
                if (usage != null && usage.hasNonNull("completion_tokens")) {
                    usageTokens = usage.get("completion_tokens").asInt();
                }
                JsonNode choices = chunk.get("choices");
                if (choices != null && choices.size() > 0) {
                    JsonNode text = choices.get(0).get("text");
                    if (text != null && !text.asText().isEmpty()) {
                        long now = System.nanoTime();
                        if (first < 0) {
                            first = now;
                        }
                        last = now;
                        chunks++;
                    }
                }
            }
            if (!sawDone) {
                return RequestOutcome.failure(request, "the stream ended without data: [DONE]", target);
            }
            int tokens = usageTokens >= 0 ? usageTokens : chunks;
            double ttft = first < 0 ? Double.NaN : (first - t0) / 1e9;
            double tpot = tokens > 1 && first >= 0 ? (last - first) / 1e6 / (tokens - 1) : Double.NaN;
            return new RequestOutcome(request, tokens, ttft, tpot, null, target);
        } catch (IOException e) {
            return RequestOutcome.failure(request, "stream broken: " + e.getMessage(), target);
        }
    }

    /**
     * The connection ended before the status line: java.net.http's "header parser received no
     * bytes" (an end of stream) or a reset. Not a timeout or a refused connect: those are answers.
     */
    static boolean endedBeforeAnyAnswer(IOException e) {
        if (e instanceof HttpTimeoutException || e instanceof ConnectException) {
            return false;
        }
        for (Throwable t = e; t != null; t = t.getCause()) {
            String m = t.getMessage();
            if (t instanceof java.io.EOFException || m != null && (m.contains("header parser received no bytes")
                    || m.contains("Connection reset"))) {
                return true;
            }
        }
        return false;
    }

    /** The OpenAI error body's message, else the body itself (shortened). */
    public static String errorMessage(String body) {
        try {
            String message = OpenAiErrorBody.message(JSON.readTree(body));
            if (message != null) {
                return message;
            }
        } catch (IOException | RuntimeException e) {
            // not JSON
        }
        String s = body.strip();
        return s.length() > 300 ? s.substring(0, 300) + "..." : s;
    }

    String body(TraceRequest request) {
        try {
            return JSON.writeValueAsString(CompletionBodies.streamed(model, TokenIdPrompt.cycling(request.inputTokens()),
                    request.outputTokens(), continuousUsage));
        } catch (JsonProcessingException e) {
            throw new IllegalStateException(e); // a tree of plain values always writes
        }
    }
}
