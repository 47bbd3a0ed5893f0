package org.balanceroute.benchmarks;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.URI;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The benchmarks' options: each name the scripts and docs pass, its default, and what a wrong value says. */
class OverheadOptionsTest {

    private static final String U = "http://127.0.0.1:8400";
    private static final List<String> REQUIRED = List.of("--proxy", U, "--prefill", "http://127.0.0.1:8500",
            "--decode", "http://127.0.0.1:8600, http://127.0.0.1:8601/v1,");

    private static OverheadOptions parsed(String... more) {
        OverheadOptions o = new OverheadOptions();
        String[] args = java.util.stream.Stream.concat(REQUIRED.stream(), java.util.Arrays.stream(more))
                .toArray(String[]::new);
        assertTrue(OverheadOptions.parse(args, o, o));
        return o;
    }

    @Test
    void theDefaults() {
        OverheadOptions o = parsed();
        assertEquals(URI.create(U), o.proxy);
        assertEquals(List.of(URI.create("http://127.0.0.1:8600"), URI.create("http://127.0.0.1:8601")), o.decode);
        assertEquals(List.of(), o.also);
        assertNull(o.sim);
        assertEquals("Basic YWRtaW46YWRtaW4=", o.adminAuth);
        assertEquals("balanceroute-sim", o.model);
        assertEquals(List.of(128, 16, 1000, 200, 128, 100), List.of(o.promptTokens, o.latencyMaxTokens,
                o.latencyRequests, o.latencyWarmup, o.streamMaxTokens, o.clockTicks));
        assertArrayEquals(new int[] {1, 64, 512}, o.concurrency);
        assertEquals(List.of(5.0, 20.0, 60.0, 300.0, 0.08), List.of(o.warmupSeconds, o.durationSeconds,
                o.warmLoadSeconds, o.replayRate, o.replayTimeFactor));
        assertTrue(o.latency && o.throughput && o.replay && o.shortRequests && o.poolSamples);
        assertEquals(List.of(0L, 0L, 0L), List.of(o.runtimePid, o.enginePid, o.peerPid));
        assertEquals(List.of(1000, 1000, 64, 3000, 32, 8), List.of(o.clientWarmup, o.freshRequests, o.warmLoadStreams,
                o.replayRequests, o.replayStreamInterval, o.shortMaxTokens));
        assertArrayEquals(new int[] {64, 512}, o.shortConcurrency);
        assertNull(o.peer);
        assertNull(o.json);
        assertNull(o.chart);
        assertNull(o.replayLauncher);
    }

    @Test
    void everyOption() {
        OverheadOptions o = parsed("--also", U + "," + U, "--sim", "http://127.0.0.1:8699", "--admin", "a:b",
                "--model", "m", "--prompt-tokens", "64", "--latency-max-tokens", "8", "--latency-requests", "10",
                "--latency-warmup", "0", "--stream-max-tokens", "32", "--concurrency", "1,64",
                "--warmup-seconds", "1.5", "--duration-seconds", "10", "--runtime-pid", "11", "--engine-pid", "12",
                "--clock-ticks", "250", "--skip-latency", "--skip-throughput", "--skip-replay", "--skip-short",
                "--short-concurrency", "4", "--short-max-tokens", "2", "--chart", "c.png", "--peer", U,
                "--peer-pid", "13", "--json", "r.json", "--client-warmup", "5", "--fresh-requests", "6",
                "--warm-load-seconds", "7", "--warm-load-streams", "9", "--replay-launcher", "./balanceroute",
                "--replay-requests", "100", "--replay-rate", "50", "--replay-time-factor", "0.5",
                "--replay-stream-interval", "16");
        assertEquals(List.of(URI.create(U), URI.create(U)), o.also);
        assertEquals(URI.create("http://127.0.0.1:8699"), o.sim);
        assertEquals("Basic YTpi", o.adminAuth);
        assertEquals("m", o.model);
        assertEquals(List.of(64, 8, 10, 0, 32, 250), List.of(o.promptTokens, o.latencyMaxTokens, o.latencyRequests,
                o.latencyWarmup, o.streamMaxTokens, o.clockTicks));
        assertArrayEquals(new int[] {1, 64}, o.concurrency);
        assertEquals(List.of(1.5, 10.0, 7.0, 50.0, 0.5), List.of(o.warmupSeconds, o.durationSeconds,
                o.warmLoadSeconds, o.replayRate, o.replayTimeFactor));
        assertFalse(o.latency || o.throughput || o.replay || o.shortRequests);
        assertEquals(List.of(11L, 12L, 13L), List.of(o.runtimePid, o.enginePid, o.peerPid));
        assertArrayEquals(new int[] {4}, o.shortConcurrency);
        assertEquals(List.of(2, 5, 6, 9, 100, 16), List.of(o.shortMaxTokens, o.clientWarmup, o.freshRequests,
                o.warmLoadStreams, o.replayRequests, o.replayStreamInterval));
        assertEquals(URI.create(U), o.peer);
        assertEquals(Path.of("c.png"), o.chart);
        assertEquals(Path.of("r.json"), o.json);
        assertEquals("./balanceroute", o.replayLauncher);
    }

    @Test
    void aToolsOwnDefaultsStandUnlessGiven() {
        OverheadOptions o = new OverheadOptions();
        o.concurrency = new int[] {64, 256};
        o.durationSeconds = 15;
        assertTrue(OverheadOptions.parse(REQUIRED.toArray(String[]::new), o, o));
        assertArrayEquals(new int[] {64, 256}, o.concurrency);
        assertEquals(15, o.durationSeconds);
    }

    @Test
    void givenTwiceTheLastCountsButUrlListsAddUp() {
        OverheadOptions o = parsed("--model", "a", "--model", "b", "--concurrency", "1,2", "--concurrency", "3",
                "--proxy", "http://127.0.0.1:9000", "--decode", "http://127.0.0.1:8602");
        assertEquals("b", o.model);
        assertArrayEquals(new int[] {3}, o.concurrency);
        assertEquals(URI.create("http://127.0.0.1:9000"), o.proxy);
        assertEquals(3, o.decode.size());
    }

    @Test
    void soaksOwnOptionsAndItsWarmup() {
        Soak.Options s = new Soak.Options();
        s.overhead.warmupSeconds = 30;
        String[] args = java.util.stream.Stream.concat(REQUIRED.stream(),
                java.util.stream.Stream.of("--streams", "64", "--minutes", "2.5", "--histogram-dir", "h"))
                .toArray(String[]::new);
        assertTrue(OverheadOptions.parse(args, s, s.overhead));
        assertEquals(List.of(64, 2.5, 30.0), List.of(s.streams, s.minutes, s.overhead.warmupSeconds));
        assertEquals(Path.of("h"), s.histograms);
    }

    @Test
    void helpAndMistakes() {
        OverheadOptions o = new OverheadOptions();
        assertFalse(OverheadOptions.parse(new String[] {"--help"}, o, o));
        assertEquals("--latency-warmup must be an integer from 0 to 10000000, got '-1'", message("--latency-warmup", "-1"));
        assertEquals("--sim must be http://HOST:PORT, got 'ftp://x'", message("--sim", "ftp://x"));
        assertEquals("--warmup-seconds must be a number of seconds >= 0.0, got 'x'", message("--warmup-seconds", "x"));
        assertEquals("unknown option '--nope'", message("--nope"));
        assertEquals("--model needs a value", message("--model"));
    }

    private static String message(String... more) {
        return assertThrows(IllegalArgumentException.class, () -> parsed(more)).getMessage();
    }
}
