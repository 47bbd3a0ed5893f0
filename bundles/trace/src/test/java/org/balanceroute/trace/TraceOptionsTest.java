package org.balanceroute.trace;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Option validation, and the order the loader applies the options in. */
class TraceOptionsTest {

    @TempDir
    Path dir;

    @Test
    void defaultsKeepEverythingUnscaled() {
        assertEquals(new TraceOptions(0, -1, 1.0, 0), TraceOptions.defaults());
    }

    @Test
    void invalidValuesNameTheCliOption() {
        assertRejected("--limit", () -> new TraceOptions(-1, -1, 1.0, 0));
        assertRejected("--min-output", () -> new TraceOptions(0, -2, 1.0, 0));
        assertRejected("--rate-scale", () -> new TraceOptions(0, -1, 0.0, 0));
        assertRejected("--rate-scale", () -> new TraceOptions(0, -1, -2.0, 0));
        assertRejected("--rate-scale", () -> new TraceOptions(0, -1, Double.NaN, 0));
        assertRejected("--rate-scale", () -> new TraceOptions(0, -1, Double.POSITIVE_INFINITY, 0));
        assertRejected("--prompt-prefix-blocks", () -> new TraceOptions(0, -1, 1.0, -1));
    }

    private static void assertRejected(String option, Runnable construct) {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, construct::run);
        assertTrue(e.getMessage().startsWith(option + " "), e.getMessage());
    }

    /** Arrivals 10, 11, ..., 15 s with outputs 5, 50, 5, 50, 50, 50. */
    private Path plain() throws IOException {
        return Files.writeString(dir.resolve("six.csv"), """
                arrival_s,input_tokens,output_tokens
                10,1,5
                11,2,50
                12,3,5
                13,4,50
                14,5,50
                15,6,50
                """);
    }

    @Test
    void limitKeepsTheFirstRequests() throws Exception {
        Trace trace = TraceLoader.load(plain(), new TraceOptions(2, -1, 1.0, 0));
        assertEquals(List.of(1, 2), inputs(trace));
        assertEquals(List.of(0.0, 1.0), arrivals(trace));
    }

    @Test
    void theOutputFilterAppliesBeforeTheLimitAndIsStrict() throws Exception {
        Trace trace = TraceLoader.load(plain(), new TraceOptions(2, 5, 1.0, 0));
        assertEquals(List.of(2, 4), inputs(trace));
        // Rebased on the first kept request, not on the file's first.
        assertEquals(List.of(0.0, 2.0), arrivals(trace));
        assertEquals(4, TraceLoader.load(plain(), new TraceOptions(0, 5, 1.0, 0)).size());
        assertEquals(6, TraceLoader.load(plain(), new TraceOptions(0, 4, 1.0, 0)).size());
    }

    @Test
    void aFilterThatKeepsNothingGivesAnEmptyTrace() throws Exception {
        Trace trace = TraceLoader.load(plain(), new TraceOptions(0, 1000, 1.0, 0));
        assertEquals(0, trace.size());
        assertEquals(0.0, trace.durationSeconds());
    }

    @Test
    void rateScaleCompressesArrivals() throws Exception {
        Trace trace = TraceLoader.load(plain(), new TraceOptions(0, -1, 4.0, 0));
        assertEquals(List.of(0.0, 0.25, 0.5, 0.75, 1.0, 1.25), arrivals(trace));
    }

    @Test
    void promptPrefixBlocksDecideWhichPromptsShareAKey() throws Exception {
        Path file = Files.writeString(dir.resolve("prefix.jsonl"), """
                {"timestamp": 0, "input_length": 2000, "output_length": 9, "hash_ids": [0, 7, 8, 9]}
                {"timestamp": 1, "input_length": 1500, "output_length": 9, "hash_ids": [0, 7, 20]}
                {"timestamp": 2, "input_length": 1500, "output_length": 9, "hash_ids": [0, 6, 8]}
                """);
        List<TraceRequest> byTwo = TraceLoader.load(file, new TraceOptions(0, -1, 1.0, 2)).requests();
        assertEquals(byTwo.get(0).promptKey(), byTwo.get(1).promptKey());
        assertNotEquals(byTwo.get(0).promptKey(), byTwo.get(2).promptKey());

        List<TraceRequest> byAll = TraceLoader.load(file, TraceOptions.defaults()).requests();
        assertNotEquals(byAll.get(0).promptKey(), byAll.get(1).promptKey());

        // More prefix blocks than a prompt has means all of them.
        List<TraceRequest> byTen = TraceLoader.load(file, new TraceOptions(0, -1, 1.0, 10)).requests();
        assertEquals(byAll, byTen);

        // Every Mooncake prompt starts with block 0, so one block identifies nothing.
        List<TraceRequest> byOne = TraceLoader.load(file, new TraceOptions(0, -1, 1.0, 1)).requests();
        assertEquals(1, byOne.stream().mapToLong(TraceRequest::promptKey).distinct().count());
        assertNotEquals(TraceRequest.NO_PROMPT_KEY, byOne.get(0).promptKey());
    }

    private static List<Integer> inputs(Trace trace) {
        return trace.requests().stream().map(TraceRequest::inputTokens).toList();
    }

    private static List<Double> arrivals(Trace trace) {
        return trace.requests().stream().map(TraceRequest::arrivalSeconds).toList();
    }
}
