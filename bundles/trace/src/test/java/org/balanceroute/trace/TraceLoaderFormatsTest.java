package org.balanceroute.trace;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Each format loads from small files, with the tolerated variations of layout. */
class TraceLoaderFormatsTest {

    private static final double EPS = 1e-9;

    @TempDir
    Path dir;

    private Path write(String name, String content) throws IOException {
        return Files.writeString(dir.resolve(name), content, StandardCharsets.UTF_8);
    }

    private static Trace load(Path file) throws TraceFormatException {
        return TraceLoader.load(file, TraceOptions.defaults());
    }

    @Test
    void azureArrivalsAreSecondsSinceTheFirstRow() throws Exception {
        Trace trace = load(write("conv.csv", """
                TIMESTAMP,ContextTokens,GeneratedTokens
                2023-11-16 18:15:46.6805900,374,44
                2023-11-16 18:15:50.9951690,396,109
                2023-11-16 18:16:00,879,1
                2023-11-17 00:00:00.5,1,1000
                """));
        assertEquals("conv.csv", trace.source());
        assertEquals(TraceFormat.AZURE, trace.format());
        assertEquals(4, trace.size());
        double[] expected = {0.0, 4.314579, 13.31941, 20653.81941};
        for (int i = 0; i < expected.length; i++) {
            assertEquals(expected[i], trace.requests().get(i).arrivalSeconds(), EPS, "arrival " + i);
        }
        assertEquals(396, trace.requests().get(1).inputTokens());
        assertEquals(109, trace.requests().get(1).outputTokens());
        assertEquals(TraceRequest.NO_PROMPT_KEY, trace.requests().get(1).promptKey());
    }

    @Test
    void azureAcceptsTheUtcOffsetOfThe2024Trace() throws Exception {
        Trace trace = load(write("conv2024.csv", """
                TIMESTAMP,ContextTokens,GeneratedTokens
                2024-05-10 00:00:00.009930+00:00,100,10
                2024-05-10 01:00:01.009930+01:00,100,10
                2024-05-09 19:00:02.009930-05:00,100,10
                2024-05-10 00:00:03.00993Z,100,10
                """));
        assertEquals(List.of(0.0, 1.0, 2.0, 3.0),
                trace.requests().stream().map(r -> Math.round(r.arrivalSeconds() * 1e9) / 1e9).toList());
    }

    @Test
    void unsortedRowsAreSortedAndRebasedOnTheEarliest() throws Exception {
        Trace trace = load(write("unsorted.csv", """
                TIMESTAMP,ContextTokens,GeneratedTokens
                2023-11-16 18:00:10,10,1
                2023-11-16 18:00:00,20,2
                2023-11-16 18:00:05,30,3
                """));
        assertEquals(List.of(20, 30, 10),
                trace.requests().stream().map(TraceRequest::inputTokens).toList());
        assertEquals(List.of(0.0, 5.0, 10.0),
                trace.requests().stream().map(TraceRequest::arrivalSeconds).toList());
    }

    @Test
    void windowsLineEndingsBlankLinesAndByteOrderMarkAreTolerated() throws Exception {
        Trace trace = load(write("crlf.csv", "\uFEFF\r\n"
                + "TIMESTAMP,ContextTokens,GeneratedTokens\r\n"
                + "2023-11-16 18:15:46.68,374,44\r\n"
                + "   \r\n"
                + "2023-11-16 18:15:47.68,396,109\r\n"));
        assertEquals(2, trace.size());
        assertEquals(1.0, trace.requests().get(1).arrivalSeconds(), EPS);
    }

    @Test
    void mooncakeKeysInAnyOrderWithAnyWhitespace() throws Exception {
        Trace trace = load(write("mc.jsonl", """
                {"timestamp": 3000, "input_length": 1000, "output_length": 50, "hash_ids": [0, 1]}

                {"hash_ids":[0,2,3],"output_length":7,"timestamp":6000,"input_length":1100}
                \t{ "input_length" : 600 ,"timestamp" : 9500 , "hash_ids" : [ ] , "output_length" : 1 }\t
                """.replace("\n", "\r\n")));
        assertEquals(TraceFormat.MOONCAKE, trace.format());
        assertEquals(3, trace.size());
        assertEquals(new TraceRequest(0.0, 1000, 50, trace.requests().get(0).promptKey()),
                trace.requests().get(0));
        assertEquals(3.0, trace.requests().get(1).arrivalSeconds(), EPS);
        assertEquals(1100, trace.requests().get(1).inputTokens());
        assertEquals(7, trace.requests().get(1).outputTokens());
        assertEquals(6.5, trace.requests().get(2).arrivalSeconds(), EPS);
        assertNotEquals(TraceRequest.NO_PROMPT_KEY, trace.requests().get(0).promptKey());
        assertNotEquals(trace.requests().get(0).promptKey(), trace.requests().get(1).promptKey());
        // No hash blocks, no identity.
        assertEquals(TraceRequest.NO_PROMPT_KEY, trace.requests().get(2).promptKey());
    }

    @Test
    void mooncakePromptKeysAreDeterministicAndOrderSensitive() throws Exception {
        String lines = """
                {"timestamp": 0, "input_length": 1, "output_length": 1, "hash_ids": [0, 5, 9]}
                {"timestamp": 0, "input_length": 1, "output_length": 1, "hash_ids": [0, 5, 9]}
                {"timestamp": 0, "input_length": 1, "output_length": 1, "hash_ids": [0, 9, 5]}
                """;
        Trace first = load(write("a.jsonl", lines));
        Trace again = load(write("b.jsonl", lines));
        long key = first.requests().get(0).promptKey();
        assertEquals(key, first.requests().get(1).promptKey());
        assertEquals(key, again.requests().get(0).promptKey());
        assertNotEquals(key, first.requests().get(2).promptKey());
    }

    @Test
    void equalArrivalsKeepFileOrder() throws Exception {
        Trace trace = load(write("ties.jsonl", """
                {"timestamp": 0, "input_length": 1, "output_length": 1, "hash_ids": [0]}
                {"timestamp": 0, "input_length": 2, "output_length": 1, "hash_ids": [0]}
                {"timestamp": 0, "input_length": 3, "output_length": 1, "hash_ids": [0]}
                """));
        assertEquals(List.of(1, 2, 3), trace.requests().stream().map(TraceRequest::inputTokens).toList());
    }

    @Test
    void plainCsvWithoutPromptKeys() throws Exception {
        Trace trace = load(write("plain.csv", """
                arrival_s,input_tokens,output_tokens
                10.5,100,20
                12, 200 ,30
                """));
        assertEquals(TraceFormat.PLAIN, trace.format());
        assertEquals(List.of(new TraceRequest(0.0, 100, 20, 0), new TraceRequest(1.5, 200, 30, 0)),
                trace.requests());
    }

    @Test
    void plainCsvWithPromptKeys() throws Exception {
        Trace trace = load(write("keys.csv", """
                arrival_s,input_tokens,output_tokens,prompt_key
                0,100,20,42
                1e-3,100,20,-7
                0.5,100,20,0
                """));
        assertEquals(List.of(42L, -7L, 0L),
                trace.requests().stream().map(TraceRequest::promptKey).toList());
        assertEquals(0.001, trace.requests().get(1).arrivalSeconds(), EPS);
    }

    @Test
    void theResultCannotBeModified() throws Exception {
        Trace trace = load(write("plain.csv", "arrival_s,input_tokens,output_tokens\n0,1,1\n"));
        assertThrows(UnsupportedOperationException.class,
                () -> trace.requests().add(new TraceRequest(1, 1, 1, 0)));
    }
}
