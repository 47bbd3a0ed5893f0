package org.balanceroute.itests;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Flow;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.balanceroute.enginesim.SimCluster;
import org.balanceroute.enginesim.SimConfig;
import org.junit.AfterClass;
import org.junit.BeforeClass;
import org.junit.Test;

/**
 * Thousands of streams on one runtime (issue 23): 2,048 streamed completions opened at once
 * through a real runtime process in front of a simulated cluster of 8 ranks (512 running at a
 * time, the rest held in the router's prompt pool), every one must end whole: its tokens, the
 * usage the engine reported for it, {@code [DONE]}; and the engine's ground truth must count
 * exactly those requests and tokens (nothing lost, nothing sent twice). The runtime's threads
 * must stay bounded by the load: none per stream, none per waiting request.
 */
public class ManyStreamsIT {

    static final int STREAMS = 2048;
    static final String MODEL = "balanceroute-sim";

    private static SimCluster engines;
    private static RuntimeProcess runtime;

    @BeforeClass
    public static void start() throws Exception {
        engines = SimCluster.start(SimConfig.builder().prefill(1).decode(8).portBase(0).timeFactor(0.01).build());
        Path work = Files.createTempDirectory(Path.of(System.getProperty("java.io.tmpdir")), "balanceroute-many");
        runtime = new RuntimeProcess("many", work, RuntimeProcess.poolConfig(engines, 1, 8)).start(null).awaitUp();
    }

    @AfterClass
    public static void stop() throws Exception {
        if (runtime != null) {
            runtime.close();
        }
        if (engines != null) {
            engines.close();
        }
    }

    /** What one stream saw: the tokens of its text chunks, its last usage, whether it ended with [DONE]. */
    static final class Seen implements Flow.Subscriber<String> {
        int textChunks;
        int usageTokens = -1;
        boolean done;
        String error;
        final CompletableFuture<Seen> ended = new CompletableFuture<>();

        @Override
        public void onSubscribe(Flow.Subscription s) {
            s.request(Long.MAX_VALUE);
        }

        @Override
        public void onNext(String line) {
            if (line.equals("data: [DONE]")) {
                done = true;
            } else if (line.startsWith("data: ")) {
                try {
                    JsonNode chunk = RuntimeProcess.JSON.readTree(line.substring(6));
                    if (chunk.has("error")) {
                        error = chunk.path("error").toString();
                    }
                    if (chunk.path("choices").size() > 0 && !chunk.path("choices").get(0).path("text").asText().isEmpty()) {
                        textChunks++;
                    }
                    if (chunk.path("usage").has("completion_tokens")) {
                        usageTokens = chunk.path("usage").path("completion_tokens").asInt();
                    }
                } catch (IOException e) {
                    error = "unreadable chunk: " + line;
                }
            }
        }

        @Override
        public void onError(Throwable t) {
            error = t.toString();
            ended.complete(this);
        }

        @Override
        public void onComplete() {
            ended.complete(this);
        }
    }

    @Test
    public void twoThousandStreamsOpenedAtOnceEveryOneEndsWholeWithTheUsageTheEngineReported() throws Exception {
        runtime.awaitIdle(Duration.ofSeconds(30));
        int idleThreads = threads(runtime.pid());
        engines.resetStats();
        // one client thread pair, non-blocking line subscribers: the client holds no thread per stream either
        ExecutorService clientThreads = Executors.newFixedThreadPool(2);
        HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).executor(clientThreads).build();
        List<CompletableFuture<Seen>> streams = new ArrayList<>();
        int[] maxTokens = new int[STREAMS];
        long expectedTokens = 0;
        for (int i = 0; i < STREAMS; i++) {
            maxTokens[i] = 16 + i % 49; // 16..64: ends spread over many steps
            expectedTokens += maxTokens[i];
            String body = "{\"model\": \"" + MODEL + "\", \"prompt\": [" + (1 + i % 1000) + ", 2, 3, 4, 5, 6, 7, 8],"
                    + " \"max_tokens\": " + maxTokens[i] + ", \"ignore_eos\": true, \"stream\": true,"
                    + " \"stream_options\": {\"include_usage\": true}}";
            HttpRequest request = HttpRequest.newBuilder(URI.create(runtime.base() + "/v1/completions"))
                    .header("Content-Type", "application/json").timeout(Duration.ofSeconds(180))
                    .POST(HttpRequest.BodyPublishers.ofString(body)).build();
            Seen seen = new Seen();
            int n = i;
            streams.add(http.sendAsync(request, HttpResponse.BodyHandlers.fromLineSubscriber(seen, s -> s, "\n"))
                    .handle((r, e) -> {
                        if (e != null) {
                            seen.error = "stream " + n + ": " + e;
                        } else if (r.statusCode() != 200) {
                            seen.error = "stream " + n + ": HTTP " + r.statusCode();
                        }
                        return seen;
                    }));
        }
        // the runtime's threads while the streams are open (sampled until every stream ended)
        AtomicInteger peakThreads = new AtomicInteger(idleThreads);
        CompletableFuture<Void> all = CompletableFuture.allOf(streams.toArray(new CompletableFuture[0]));
        while (!all.isDone()) {
            peakThreads.accumulateAndGet(threads(runtime.pid()), Math::max);
            try {
                all.get(200, TimeUnit.MILLISECONDS);
            } catch (java.util.concurrent.TimeoutException stillRunning) {
                // sample again
            }
        }
        all.get();
        clientThreads.shutdownNow();

        int whole = 0;
        long usageSum = 0;
        List<String> broken = new ArrayList<>();
        for (int i = 0; i < STREAMS; i++) {
            Seen s = streams.get(i).get();
            boolean ok = s.error == null && s.done && s.usageTokens == maxTokens[i] && s.textChunks == maxTokens[i];
            if (ok) {
                whole++;
                usageSum += s.usageTokens;
            } else if (broken.size() < 5) {
                broken.add("stream " + i + ": error " + s.error + ", [DONE] " + s.done + ", usage " + s.usageTokens
                        + ", text chunks " + s.textChunks + ", max_tokens " + maxTokens[i]);
            }
        }
        assertEquals("streams that did not end whole: " + broken, STREAMS, whole);
        assertEquals(expectedTokens, usageSum);
        // the engine's ground truth: exactly these requests and tokens
        JsonNode stats = RuntimeProcess.JSON.readTree(engines.statsJson());
        assertEquals(stats.toString(), STREAMS, stats.path("completed").asInt());
        assertEquals(stats.toString(), expectedTokens, stats.path("outputTokens").asLong());
        assertEquals(stats.toString(), 0, stats.path("aborted").asInt());
        System.out.printf("ManyStreamsIT: %d streams whole; runtime threads idle %d, at most %d under the load%n",
                STREAMS, idleThreads, peakThreads.get());
        assertTrue("the runtime's threads grew with the streams: " + idleThreads + " idle, " + peakThreads.get()
                + " under " + STREAMS + " streams", peakThreads.get() <= 2 * idleThreads);
    }

    /** The process's threads now (Linux /proc). */
    static int threads(long pid) throws IOException {
        try (var tasks = Files.list(Path.of("/proc", Long.toString(pid), "task"))) {
            return (int) tasks.count();
        }
    }
}
