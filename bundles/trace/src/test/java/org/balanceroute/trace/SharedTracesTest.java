package org.balanceroute.trace;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

/**
 * The real public traces load whole, with the row counts and means their README states.
 * They live next to the project, not in it, so the test is skipped where they are absent.
 */
class SharedTracesTest {

    private static Path sharedTraces() {
        for (Path dir = Path.of("").toAbsolutePath(); dir != null; dir = dir.getParent()) {
            Path traces = dir.resolve("shared").resolve("traces");
            if (Files.isDirectory(traces)) {
                return traces;
            }
        }
        return null;
    }

    private static Trace load(String name) throws TraceFormatException {
        Path traces = sharedTraces();
        Assumptions.assumeTrue(traces != null && Files.isRegularFile(traces.resolve(name)),
                "shared/traces/" + name + " not found above " + Path.of("").toAbsolutePath());
        return TraceLoader.load(traces.resolve(name), TraceOptions.defaults());
    }

    @Test
    void azureConversationTrace() throws Exception {
        Trace trace = load("azure2023-conv.csv");
        assertEquals(TraceFormat.AZURE, trace.format());
        assertEquals(19_366, trace.size());
        assertEquals(1155, trace.meanInputTokens(), 1155 * 0.01);
        assertEquals(211, trace.meanOutputTokens(), 211 * 0.01);
        assertEquals(0.0, trace.requests().get(0).arrivalSeconds());
        // About an hour of arrivals (README: ~58 min).
        assertTrue(trace.durationSeconds() > 50 * 60 && trace.durationSeconds() < 65 * 60, trace::toString);
    }

    @Test
    void mooncakeConversationTrace() throws Exception {
        Trace trace = load("mooncake-conversation.jsonl");
        assertEquals(TraceFormat.MOONCAKE, trace.format());
        assertEquals(12_031, trace.size());
        assertEquals(12035, trace.meanInputTokens(), 12035 * 0.01);
        assertEquals(343, trace.meanOutputTokens(), 343 * 0.01);
        assertTrue(trace.durationSeconds() > 50 * 60 && trace.durationSeconds() < 65 * 60, trace::toString);
        assertTrue(trace.requests().stream().allMatch(r -> r.promptKey() != TraceRequest.NO_PROMPT_KEY));
    }
}
