package org.balanceroute.trace;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** Every malformed input fails the whole load, with the file, line and field in the message. */
class TraceLoaderErrorsTest {

    private static final String AZURE = "TIMESTAMP,ContextTokens,GeneratedTokens\n"
            + "2023-11-16 18:15:46.6805900,374,44\n";
    private static final String PLAIN = "arrival_s,input_tokens,output_tokens\n0.0,100,10\n";
    private static final String PLAIN_KEYED = "arrival_s,input_tokens,output_tokens,prompt_key\n0.0,100,10,5\n";
    private static final String MOONCAKE =
            "{\"timestamp\": 0, \"input_length\": 600, \"output_length\": 10, \"hash_ids\": [0, 1]}\n";

    @TempDir
    Path dir;

    /**
     * name, content, line, field (null: none), and a fragment of the detail. The bad line is
     * last, after good ones, so a half-load would show as a missing exception.
     */
    static Stream<Arguments> malformed() {
        return Stream.of(
                // Azure
                Arguments.of("azure2023-conv.csv", AZURE + "\n2023-11-16 18:15:47,374,abc\n", 4, "GeneratedTokens",
                        "expected a non-negative integer, got 'abc'"),
                Arguments.of("a.csv", AZURE + "2023-11-16 18:15:47,374\n", 3, null, "expected 3 columns"),
                Arguments.of("a.csv", AZURE + "2023-11-16 18:15:47,374,1,2\n", 3, null, "got 4"),
                Arguments.of("a.csv", AZURE + "16/11/2023 18:15:47,374,1\n", 3, "TIMESTAMP", "expected a timestamp"),
                Arguments.of("a.csv", AZURE + "2023-02-30 18:15:47,374,1\n", 3, "TIMESTAMP", "2023-02-30"),
                Arguments.of("a.csv", AZURE + "2023-11-16 18:15:47.1234567891,374,1\n", 3, "TIMESTAMP", "got"),
                Arguments.of("a.csv", AZURE + "2023-11-16 18:15:47.,374,1\n", 3, "TIMESTAMP", "got"),
                Arguments.of("a.csv", AZURE + "2023-11-16T18:15:47,374,1\n", 3, "TIMESTAMP", "got"),
                Arguments.of("a.csv", AZURE + "2023-11-16 24:00:00,374,1\n", 3, "TIMESTAMP", "got"),
                Arguments.of("a.csv", AZURE + "2023-11-16 18:60:00,374,1\n", 3, "TIMESTAMP", "got"),
                Arguments.of("a.csv", AZURE + "2023-11-16 18:15:47+0000,374,1\n", 3, "TIMESTAMP", "got"),
                Arguments.of("a.csv", AZURE + "2023-11-16 18:15:47 UTC,374,1\n", 3, "TIMESTAMP", "got"),
                Arguments.of("a.csv", AZURE + "2023-1-16 18:15:47,374,1\n", 3, "TIMESTAMP", "got"),
                Arguments.of("a.csv", AZURE + "2023-11-16 18:15:47,-374,1\n", 3, "ContextTokens", "'-374'"),
                Arguments.of("a.csv", AZURE + "2023-11-16 18:15:47,0,1\n", 3, "ContextTokens", "at least 1 token"),
                Arguments.of("a.csv", AZURE + "2023-11-16 18:15:47,374,0\n", 3, "GeneratedTokens", "at least 1 token"),
                Arguments.of("a.csv", AZURE + "2023-11-16 18:15:47,374,1.5\n", 3, "GeneratedTokens", "'1.5'"),
                Arguments.of("a.csv", AZURE + "2023-11-16 18:15:47,99999999999,1\n", 3, "ContextTokens", "too large"),
                Arguments.of("a.csv", AZURE + "2023-11-16 18:15:47,,1\n", 3, "ContextTokens", "got ''"),
                // plain
                Arguments.of("p.csv", PLAIN + "-1.0,100,10\n", 3, "arrival_s", "non-negative number"),
                Arguments.of("p.csv", PLAIN + "NaN,100,10\n", 3, "arrival_s", "'NaN'"),
                Arguments.of("p.csv", PLAIN + "Infinity,100,10\n", 3, "arrival_s", "'Infinity'"),
                Arguments.of("p.csv", PLAIN + "1e400,100,10\n", 3, "arrival_s", "'1e400'"),
                Arguments.of("p.csv", PLAIN + "1.2.3,100,10\n", 3, "arrival_s", "'1.2.3'"),
                Arguments.of("p.csv", PLAIN + "1.0,100,-10\n", 3, "output_tokens", "'-10'"),
                Arguments.of("p.csv", PLAIN + "1.0,100,10,7\n", 3, null, "expected 3 columns"),
                Arguments.of("p.csv", PLAIN_KEYED + "1.0,100,10,x7\n", 3, "prompt_key", "expected an integer"),
                Arguments.of("p.csv", PLAIN_KEYED + "1.0,100,10,99999999999999999999\n", 3, "prompt_key", "64 bits"),
                // Mooncake
                Arguments.of("m.jsonl", MOONCAKE + "{\"timestamp\": 1, \"input_length\": 600, \"hash_ids\": [0]}\n",
                        2, "output_length", "missing"),
                Arguments.of("m.jsonl", MOONCAKE + MOONCAKE.strip() + " x\n", 2, null, "unexpected text after"),
                Arguments.of("m.jsonl", MOONCAKE + MOONCAKE.strip() + "}\n", 2, null, "unexpected text after"),
                Arguments.of("m.jsonl", MOONCAKE.replace("\"output_length\": 10", "\"output_length\": 0"),
                        1, "output_length", "at least 1 token"),
                Arguments.of("m.jsonl", MOONCAKE.replace("600", "0"), 1, "input_length", "at least 1 token"),
                Arguments.of("m.jsonl", MOONCAKE.replace("\"timestamp\": 0", "\"timestamp\": -5"),
                        1, "timestamp", "'-5'"),
                Arguments.of("m.jsonl", MOONCAKE.replace("\"timestamp\": 0", "\"timestamp\": 1.5"),
                        1, "timestamp", "'1.5'"),
                Arguments.of("m.jsonl", MOONCAKE.replace("\"timestamp\": 0", "\"timestamp\": \"0\""),
                        1, "timestamp", "'\"0\"'"),
                Arguments.of("m.jsonl", MOONCAKE.replace("\"timestamp\": 0", "\"timestamp\": 007"),
                        1, "timestamp", "leading zeros"),
                Arguments.of("m.jsonl", MOONCAKE.replace("[0, 1]", "[0, -1]"), 1, "hash_ids[1]", "'-1'"),
                Arguments.of("m.jsonl", MOONCAKE.replace("[0, 1]", "[0 1]"), 1, null, "expected ',' or ']'"),
                Arguments.of("m.jsonl", MOONCAKE.replace("[0, 1]", "[0, 1"), 1, null, "expected ',' or ']'"),
                Arguments.of("m.jsonl", MOONCAKE.replace("[0, 1]", "7"), 1, "hash_ids", "expected an array"),
                Arguments.of("m.jsonl", MOONCAKE.replace("{\"timestamp\": 0,", "{\"timestamp\": 0, \"timestamp\": 1,"),
                        1, "timestamp", "duplicate key"),
                Arguments.of("m.jsonl", MOONCAKE.replace("\"hash_ids\"", "\"prompt\": 1, \"hash_ids\""),
                        1, "prompt", "unexpected key"),
                Arguments.of("m.jsonl", MOONCAKE.replace("\"output_length\": 10,", "\"output_length\": 10"),
                        1, null, "expected ',' or '}'"),
                Arguments.of("m.jsonl", MOONCAKE.replace("\"hash_ids\": [0, 1]}", "\"hash_ids\": [0, 1],}"),
                        1, null, "expected a quoted key"),
                Arguments.of("m.jsonl", MOONCAKE.replace("}", ""), 1, null, "line ends"),
                Arguments.of("m.jsonl", MOONCAKE + "\n[1, 2]\n", 3, null, "expected '{'"),
                Arguments.of("m.jsonl", MOONCAKE + "{}\n", 2, "timestamp", "missing"),
                // whole-file problems located on a line
                Arguments.of("u.csv", "\n\ntime,input,output\n0,1,1\n", 3, null, "unknown format"),
                Arguments.of("u.csv", "TIMESTAMP;ContextTokens;GeneratedTokens\n", 1, null, "unknown format"));
    }

    @ParameterizedTest(name = "[{index}] {0} line {2} field {3}: {4}")
    @MethodSource("malformed")
    void malformedInputIsRejected(String name, String content, int line, String field, String detail)
            throws IOException {
        Path file = Files.writeString(dir.resolve(name), content);
        TraceFormatException e = assertThrows(TraceFormatException.class,
                () -> TraceLoader.load(file, TraceOptions.defaults()));
        String location = name + ":" + line + ": " + (field == null ? "" : "field '" + field + "': ");
        assertTrue(e.getMessage().startsWith(location), () -> "expected '" + location + "...' in: " + e.getMessage());
        assertTrue(e.getMessage().contains(detail), () -> "expected '" + detail + "' in: " + e.getMessage());
        assertEquals(name, e.fileName());
        assertEquals(line, e.line());
        assertEquals(Optional.ofNullable(field), e.field());
    }

    @Test
    void theMessageMatchesTheDocumentedShape() throws IOException {
        StringBuilder content = new StringBuilder(AZURE);
        for (int i = 3; i < 17; i++) {
            content.append("2023-11-16 18:15:47,374,44\n");
        }
        content.append("2023-11-16 18:15:48,374,abc\n");
        Path file = Files.writeString(dir.resolve("azure2023-conv.csv"), content);
        TraceFormatException e = assertThrows(TraceFormatException.class,
                () -> TraceLoader.load(file, TraceOptions.defaults()));
        assertEquals("azure2023-conv.csv:17: field 'GeneratedTokens': expected a non-negative integer, got 'abc'",
                e.getMessage());
    }

    @Test
    void missingFileIsNamed() {
        Path file = dir.resolve("nowhere.jsonl");
        TraceFormatException e = assertThrows(TraceFormatException.class,
                () -> TraceLoader.load(file, TraceOptions.defaults()));
        assertTrue(e.getMessage().startsWith("nowhere.jsonl: no such file"), e.getMessage());
        assertTrue(e.getMessage().contains(file.toAbsolutePath().toString()), e.getMessage());
        assertEquals(0, e.line());
    }

    @Test
    void emptyAndBlankFilesAreRejected() throws IOException {
        for (String content : new String[] {"", "\n  \r\n\t\n"}) {
            Path file = Files.writeString(dir.resolve("empty.csv"), content);
            TraceFormatException e = assertThrows(TraceFormatException.class,
                    () -> TraceLoader.load(file, TraceOptions.defaults()));
            assertEquals("empty.csv: empty file", e.getMessage());
        }
    }

    @Test
    void aHeaderWithoutRequestsIsRejected() throws IOException {
        Path file = Files.writeString(dir.resolve("header.csv"), "TIMESTAMP,ContextTokens,GeneratedTokens\n\n");
        TraceFormatException e = assertThrows(TraceFormatException.class,
                () -> TraceLoader.load(file, TraceOptions.defaults()));
        assertEquals("header.csv: no requests after the header", e.getMessage());
    }

    @Test
    void invalidUtf8IsRejectedOnItsLine() throws IOException {
        byte[] good = PLAIN.getBytes(StandardCharsets.US_ASCII);
        byte[] bad = {'1', ',', (byte) 0xC3, (byte) 0x28, ',', '1', '\n'};
        byte[] content = new byte[good.length + bad.length];
        System.arraycopy(good, 0, content, 0, good.length);
        System.arraycopy(bad, 0, content, good.length, bad.length);
        Path file = Files.write(dir.resolve("binary.csv"), content);
        TraceFormatException e = assertThrows(TraceFormatException.class,
                () -> TraceLoader.load(file, TraceOptions.defaults()));
        assertTrue(e.getMessage().startsWith("binary.csv:3: field 'input_tokens': "), e.getMessage());
    }

    @Test
    void aDirectoryIsNotATrace() {
        TraceFormatException e = assertThrows(TraceFormatException.class,
                () -> TraceLoader.load(dir, TraceOptions.defaults()));
        assertTrue(e.getMessage().startsWith(dir.getFileName() + ": cannot read"), e.getMessage());
    }
}
