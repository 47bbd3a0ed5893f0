package org.balanceroute.trace;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import com.code_intelligence.jazzer.junit.FuzzTest;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The three trace parsers (detected from the first line) over any file: a trace whose every
 * request is valid (finite, non-negative arrival; positive token counts as the loader documents),
 * or a {@link TraceFormatException} naming the file (and a line when it is about one); nothing
 * else escapes. Options vary too. The committed inputs replay in every build.
 */
class TraceLoaderFuzzTest {

    private static Path file;

    @FuzzTest(maxDuration = "3m")
    void everyFileIsATraceOrANamedError(FuzzedDataProvider data) throws Exception {
        String name = data.pickValue(new String[] {"t.csv", "t.jsonl", "t.txt"});
        int limit = data.consumeInt(0, 5);
        int minOutput = data.consumeInt(-1, 3);
        int prefix = data.consumeInt(0, 4);
        double rateScale = data.pickValue(new Double[] {1.0, 40.0, 0.5});
        byte[] text = data.consumeRemainingAsBytes();
        if (file == null) {
            file = Files.createTempDirectory("trace-fuzz");
        }
        Path f = Files.write(file.resolve(name), text);
        Trace trace;
        try {
            trace = TraceLoader.load(f, new TraceOptions(limit, minOutput, rateScale, prefix));
        } catch (TraceFormatException e) {
            assertNotNull(e.getMessage());
            assertTrue(e.getMessage().contains(name), e.getMessage());
            assertEquals(name, e.fileName());
            return;
        }
        assertTrue(limit == 0 || trace.size() <= limit);
        double previous = 0;
        for (TraceRequest r : trace.requests()) {
            assertTrue(r.arrivalSeconds() >= previous, "sorted by arrival");
            assertTrue(Double.isFinite(r.arrivalSeconds()) && r.arrivalSeconds() >= 0, r.toString());
            assertTrue(r.inputTokens() >= 1 && r.outputTokens() >= 1, r.toString());
            assertTrue(minOutput < 0 || r.outputTokens() > minOutput, r.toString());
            previous = r.arrivalSeconds();
        }
    }
}
