package org.balanceroute.trace;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The built-in workload: deterministic per seed, and shaped like the Mooncake conversation trace. */
class WorkloadGeneratorTest {

    @Test
    void theSameSeedGivesTheSameTrace() {
        Trace a = new WorkloadGenerator(7, 3.4).generate(500);
        Trace b = new WorkloadGenerator(7, 3.4).generate(500);
        assertEquals(a.requests(), b.requests());
        assertNotEquals(a.requests(), new WorkloadGenerator(8, 3.4).generate(500).requests());
        assertEquals("generator(seed=7, rate=3.4)", a.source());
    }

    @Test
    void lengthsResembleMooncake() {
        Trace trace = new WorkloadGenerator(1, 3.4).generate(50_000);
        int[] in = trace.requests().stream().mapToInt(TraceRequest::inputTokens).sorted().toArray();
        int[] out = trace.requests().stream().mapToInt(TraceRequest::outputTokens).sorted().toArray();
        assertEquals(6900, quantile(in, 0.5), 6900 * 0.05);
        assertEquals(12000, trace.meanInputTokens(), 12000 * 0.06);
        assertEquals(39500, quantile(in, 0.95), 39500 * 0.07);
        assertTrue(in[0] >= WorkloadGenerator.MIN_PROMPT && in[in.length - 1] <= WorkloadGenerator.MAX_PROMPT);
        assertEquals(343, trace.meanOutputTokens(), 343 * 0.04);
        assertEquals(350, quantile(out, 0.5), 350 * 0.04);
        assertEquals(700, quantile(out, 0.95), 700 * 0.04);
        assertTrue(out[0] >= 1);
    }

    @Test
    void arrivalsArePoissonAtTheRate() {
        Trace trace = new WorkloadGenerator(3, 20).generate(20_000);
        assertEquals(0.0, trace.requests().get(0).arrivalSeconds());
        double rate = (trace.size() - 1) / trace.durationSeconds();
        assertEquals(20, rate, 20 * 0.03);
        // exponential gaps: the coefficient of variation is 1
        double[] gaps = new double[trace.size() - 1];
        for (int i = 1; i < trace.size(); i++) {
            gaps[i - 1] = trace.requests().get(i).arrivalSeconds() - trace.requests().get(i - 1).arrivalSeconds();
        }
        double mean = Arrays.stream(gaps).average().orElseThrow();
        double sd = Math.sqrt(Arrays.stream(gaps).map(g -> (g - mean) * (g - mean)).average().orElseThrow());
        assertEquals(1.0, sd / mean, 0.05);
    }

    @Test
    void promptKeysRecurAboutHalfTheTime() {
        Trace trace = new WorkloadGenerator(5, 3.4).generate(10_000);
        Map<Long, Integer> counts = new HashMap<>();
        trace.requests().forEach(r -> counts.merge(r.promptKey(), 1, Integer::sum));
        long inRecurring = counts.values().stream().filter(c -> c > 1).mapToLong(c -> c).sum();
        assertTrue(trace.requests().stream().noneMatch(r -> r.promptKey() == TraceRequest.NO_PROMPT_KEY));
        assertTrue(inRecurring > 3500 && inRecurring < 6500, "requests sharing a key: " + inRecurring);
    }

    @Test
    void outputQuantileFunctionHitsTheKnots() {
        assertEquals(1, WorkloadGenerator.outputTokens(0));
        assertEquals(350, WorkloadGenerator.outputTokens(0.5));
        assertEquals(698, WorkloadGenerator.outputTokens(0.95));
        assertEquals(2000, WorkloadGenerator.outputTokens(0.9999999));
    }

    @Test
    void badArgumentsAreRefused() {
        assertThrows(IllegalArgumentException.class, () -> new WorkloadGenerator(1, 0));
        assertThrows(IllegalArgumentException.class, () -> new WorkloadGenerator(1, Double.NaN));
        assertThrows(IllegalArgumentException.class, () -> new WorkloadGenerator(1, 1).generate(-1));
        assertEquals(0, new WorkloadGenerator(1, 1).generate(0).size());
    }

    private static double quantile(int[] sorted, double p) {
        return sorted[(int) Math.round(p * (sorted.length - 1))];
    }
}
