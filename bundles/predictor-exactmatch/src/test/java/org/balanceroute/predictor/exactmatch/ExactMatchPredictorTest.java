package org.balanceroute.predictor.exactmatch;

import static org.balanceroute.api.TerminationPredictor.SURVIVES;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.lang.management.ManagementFactory;
import java.util.Arrays;
import java.util.Random;
import org.balanceroute.api.RequestView;
import org.balanceroute.predictor.survival.SurvivalPredictor;
import org.balanceroute.predictor.survival.SurvivalSettings;
import org.junit.jupiter.api.Test;

class ExactMatchPredictorTest {

    private static final long A = 0x1234_5678_9abcL;
    private static final long B = -42L;
    private static final long C = 7L;
    private static final SurvivalSettings SURVIVAL = new SurvivalSettings(1);

    /** An exact-match predictor and a stand-alone survival predictor fed the same completions. */
    private static final class Pair {
        final ExactMatchPredictor exact;
        final SurvivalPredictor survival = new SurvivalPredictor(SURVIVAL);

        Pair(ExactMatchSettings settings) {
            exact = new ExactMatchPredictor(settings, SURVIVAL);
        }

        void complete(long promptKey, int... lengths) {
            for (int length : lengths) {
                RequestView request = TestRequest.of(promptKey, 0);
                exact.onCompleted(request, length);
                survival.onCompleted(request, length);
            }
        }

        void assertFallsBack(long promptKey, int decoded, int horizon, double confidence) {
            RequestView request = TestRequest.of(promptKey, decoded);
            assertEquals(survival.predictEnd(request, horizon, confidence),
                    exact.predictEnd(request, horizon, confidence),
                    "fallback for key " + promptKey + " at j=" + decoded);
        }
    }

    private static int predict(ExactMatchPredictor p, long key, int decoded, int h, double conf) {
        return p.predictEnd(TestRequest.of(key, decoded), h, conf);
    }

    @Test
    void aPromptsHistoryAnswersTheConfiguredQuantile() {
        ExactMatchPredictor median = new ExactMatchPredictor(new ExactMatchSettings(1, 10, 8), SURVIVAL);
        ExactMatchPredictor low = new ExactMatchPredictor(new ExactMatchSettings(1, 10, 8), new SurvivalSettings(1, 0.2));
        for (int length : new int[] {3, 5, 7, 9, 11}) {
            median.onCompleted(TestRequest.of(A, 0), length);
            low.onCompleted(TestRequest.of(A, 0), length);
        }
        // j = 1, H = 20: all five end; the median is the 3rd (7: c = 6), the 0.2-quantile the 1st (3: c = 2)
        assertEquals(6, predict(median, A, 1, 20, 0.5));
        assertEquals(2, predict(low, A, 1, 20, 0.5));
    }

    @Test
    void nameIsExactMatch() {
        assertEquals("exact-match",
                new ExactMatchPredictor(ExactMatchSettings.defaults(), SurvivalSettings.defaults())
                        .name());
    }

    @Test
    void perPromptPredictionDiffersFromGlobal() {
        Pair pair = new Pair(ExactMatchSettings.defaults());
        for (int i = 0; i < 50; i++) {
            pair.complete(RequestView.NO_PROMPT_KEY, 1000);
        }
        pair.complete(A, 50, 50, 52);
        // Prompt A at j = 45, H = 10: all 3 end in (45, 55], half (2) reached at 50: c = 5.
        assertEquals(5, predict(pair.exact, A, 45, 10, 0.5));
        // Globally only 3 of 53 alive end within H: the survival predictor keeps it running.
        assertEquals(SURVIVES, pair.survival.predictEnd(TestRequest.of(A, 45), 10, 0.5));
    }

    @Test
    void ownConfidenceGateAnswersSurvivesRatherThanFallingBack() {
        Pair pair = new Pair(ExactMatchSettings.defaults());
        pair.complete(A, 20, 20, 100);
        for (int i = 0; i < 20; i++) {
            pair.complete(RequestView.NO_PROMPT_KEY, 18);
        }
        // j = 15, H = 10: P = 2/3 for prompt A.
        assertEquals(5, predict(pair.exact, A, 15, 10, 0.6));
        assertEquals(SURVIVES, predict(pair.exact, A, 15, 10, 0.7));
        assertEquals(SURVIVES, predict(pair.exact, A, 15, 10, Double.NaN));
        // The global distribution would have answered (most lengths are 18).
        assertEquals(3, pair.survival.predictEnd(TestRequest.of(A, 15), 10, 0.7));
        // Nothing in (j, j+H]: no evidence to time an end.
        assertEquals(SURVIVES, predict(pair.exact, A, 20, 10, 0.0));
    }

    @Test
    void fallsBackBelowMinCount() {
        Pair pair = new Pair(ExactMatchSettings.defaults());
        pair.complete(RequestView.NO_PROMPT_KEY, 100, 100, 100, 100);
        pair.complete(A, 50, 50);
        pair.assertFallsBack(A, 45, 10, 0.5);
        // Survival at j = 45: 2 of 6 alive end within H, below the gate.
        assertEquals(SURVIVES, predict(pair.exact, A, 45, 10, 0.5));
        pair.complete(A, 50);
        assertEquals(5, predict(pair.exact, A, 45, 10, 0.5));
    }

    @Test
    void fallsBackForUnknownAndUnseenPrompts() {
        Pair pair = new Pair(ExactMatchSettings.defaults());
        pair.complete(RequestView.NO_PROMPT_KEY, 10, 12, 12, 30);
        assertEquals(0, pair.exact.promptCount(), "key 0 is never recorded");
        pair.complete(A, 5, 5, 5);
        for (int j = 0; j < 35; j += 3) {
            pair.assertFallsBack(RequestView.NO_PROMPT_KEY, j, 8, 0.5);
            pair.assertFallsBack(B, j, 8, 0.5);
        }
        assertEquals(1, pair.exact.promptCount());
    }

    @Test
    void fallsBackWhenRequestOutlivedItsPromptHistory() {
        Pair pair = new Pair(ExactMatchSettings.defaults());
        pair.complete(A, 10, 10, 12);
        pair.complete(RequestView.NO_PROMPT_KEY, 15, 15, 40);
        assertEquals(1, predict(pair.exact, A, 9, 5, 1.0));
        pair.assertFallsBack(A, 12, 5, 0.5);
        // Survival at j = 12: alive {15, 15, 40}, 2 end by 17, half (1) at 15: c = 3.
        assertEquals(3, predict(pair.exact, A, 12, 5, 0.5));
    }

    @Test
    void feedsFallbackWithEveryCompletion() {
        ExactMatchPredictor exact = new ExactMatchPredictor(
                new ExactMatchSettings(3, 10, 8), new SurvivalSettings(4));
        exact.onCompleted(TestRequest.of(A, 0), 8);
        exact.onCompleted(TestRequest.of(B, 0), 8);
        exact.onCompleted(TestRequest.of(RequestView.NO_PROMPT_KEY, 0), 8);
        assertEquals(SURVIVES, predict(exact, C, 5, 5, 1.0), "3 samples < minSamples 4");
        exact.onCompleted(TestRequest.of(C, 0), 8);
        assertEquals(3, predict(exact, C, 5, 5, 1.0));
    }

    @Test
    void ignoresNonPositiveLengths() {
        ExactMatchPredictor exact = new ExactMatchPredictor(
                new ExactMatchSettings(1, 10, 8), new SurvivalSettings(1));
        exact.onCompleted(TestRequest.of(A, 0), 0);
        exact.onCompleted(TestRequest.of(A, 0), -3);
        assertEquals(0, exact.promptCount());
        assertEquals(SURVIVES, predict(exact, A, 0, 10, 0.0));
    }

    @Test
    void maxPromptsBoundsTheTable() {
        Pair pair = new Pair(new ExactMatchSettings(1, 2, 8));
        pair.complete(A, 20);
        pair.complete(B, 30);
        pair.complete(C, 40);
        assertEquals(2, pair.exact.promptCount());
        assertEquals(10, predict(pair.exact, A, 10, 20, 1.0));
        assertEquals(10, predict(pair.exact, B, 20, 20, 1.0));
        pair.assertFallsBack(C, 30, 20, 1.0);
        // Known prompts keep learning once the table is full.
        pair.complete(A, 21);
        assertEquals(10, predict(pair.exact, A, 10, 20, 1.0));
        assertEquals(1, predict(pair.exact, A, 20, 20, 1.0));
    }

    @Test
    void keepsOnlyTheLatestLengthsPerPrompt() {
        Pair pair = new Pair(new ExactMatchSettings(3, 10, 3));
        pair.complete(A, 10, 10, 10);
        assertEquals(5, predict(pair.exact, A, 5, 10, 1.0));
        pair.complete(A, 50, 50, 50); // evicts all three 10s
        assertEquals(SURVIVES, predict(pair.exact, A, 5, 10, 0.0));
        assertEquals(5, predict(pair.exact, A, 45, 10, 1.0));
        pair.complete(A, 10); // history {10, 50, 50}: the oldest 50 went
        assertEquals(SURVIVES, predict(pair.exact, A, 5, 10, 0.34));
        assertEquals(5, predict(pair.exact, A, 5, 10, 1.0 / 3));
        pair.complete(A, 10, 10); // wraps around: {10, 10, 10}
        assertEquals(5, predict(pair.exact, A, 5, 10, 1.0));
        pair.assertFallsBack(A, 45, 10, 0.0);
    }

    @Test
    void ringGrowsToMaxLengthsPerPrompt() {
        Pair pair = new Pair(new ExactMatchSettings(10, 10, 64));
        for (int length = 1; length <= 10; length++) {
            pair.complete(A, length);
        }
        for (int i = 0; i < 20; i++) {
            pair.complete(RequestView.NO_PROMPT_KEY, 1000);
        }
        // All ten lengths 1..10 are held: j = 0, H = 10, P = 1, half (5) reached at 5.
        assertEquals(5, predict(pair.exact, A, 0, 10, 1.0));
        assertEquals(SURVIVES, pair.survival.predictEnd(TestRequest.of(A, 0), 10, 1.0));
    }

    @Test
    void manyPromptsEachKeepTheirOwnHistory() {
        ExactMatchPredictor exact = new ExactMatchPredictor(
                new ExactMatchSettings(1, 100_000, 4), new SurvivalSettings(Long.MAX_VALUE));
        Random random = new Random(3);
        long[] keys = new long[20_000];
        for (int i = 0; i < keys.length; i++) {
            do {
                keys[i] = i % 2 == 0 ? random.nextLong() : i; // mixed and sequential keys
            } while (keys[i] == RequestView.NO_PROMPT_KEY);
            exact.onCompleted(TestRequest.of(keys[i], 0), 10 + i % 500);
        }
        assertEquals(keys.length, exact.promptCount());
        for (int i = 0; i < keys.length; i++) {
            assertEquals(10 + i % 500, predict(exact, keys[i], 0, 1000, 1.0), "prompt " + i);
        }
        assertEquals(SURVIVES, predict(exact, 123_456_789L, 0, 1000, 0.0));
    }

    @Test
    void matchesTheDefinitionOnRandomHistories() {
        Random random = new Random(11);
        for (int trial = 0; trial < 300; trial++) {
            int k = 1 + random.nextInt(64);
            // Survival fallback never answers, so a fallback shows up as SURVIVES.
            ExactMatchPredictor exact = new ExactMatchPredictor(
                    new ExactMatchSettings(1, 4, 64), new SurvivalSettings(Long.MAX_VALUE));
            int[] lengths = new int[k];
            for (int i = 0; i < k; i++) {
                lengths[i] = 1 + random.nextInt(300);
                exact.onCompleted(TestRequest.of(A, 0), lengths[i]);
            }
            for (int q = 0; q < 50; q++) {
                int j = random.nextInt(320);
                int h = 1 + random.nextInt(100);
                double confidence = random.nextDouble();
                int c = predict(exact, A, j, h, confidence);
                assertEquals(naive(lengths, j, h, confidence), c,
                        Arrays.toString(lengths) + " j=" + j + " H=" + h + " conf=" + confidence);
                assertTrue(c == SURVIVES || (c >= 1 && c <= h));
            }
        }
    }

    /** The definition, evaluated literally over h = 1..H. */
    private static int naive(int[] lengths, int j, int h, double confidence) {
        long alive = Arrays.stream(lengths).filter(o -> o > j).count();
        long ending = Arrays.stream(lengths).filter(o -> o > j && o <= j + h).count();
        if (alive == 0 || ending == 0 || (double) ending / alive < confidence) {
            return SURVIVES;
        }
        for (int step = 1; step <= h; step++) {
            int end = j + step;
            if (Arrays.stream(lengths).filter(o -> o > j && o <= end).count() >= ending / 2.0) {
                return step;
            }
        }
        throw new AssertionError("unreachable");
    }

    @Test
    void warmStartPreloadsTableAndFallback() {
        ExactMatchPredictor exact = new ExactMatchPredictor(
                ExactMatchSettings.defaults(), new SurvivalSettings(4));
        exact.warmStart(new long[] {A, A, A, RequestView.NO_PROMPT_KEY},
                new int[] {50, 50, 52, 9});
        assertEquals(1, exact.promptCount());
        assertEquals(5, predict(exact, A, 45, 10, 1.0));
        // Fallback holds all four: at j = 8 only the 9 ends within 10 steps (P = 1/4).
        assertEquals(1, predict(exact, B, 8, 10, 0.25));
        assertThrows(IllegalArgumentException.class,
                () -> exact.warmStart(new long[] {A}, new int[] {1, 2}));
    }

    @Test
    void predictEndDoesNotAllocate() {
        assumeTrue(ManagementFactory.getThreadMXBean()
                instanceof com.sun.management.ThreadMXBean);
        com.sun.management.ThreadMXBean threads =
                (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        assumeTrue(threads.isThreadAllocatedMemorySupported()
                && threads.isThreadAllocatedMemoryEnabled());
        ExactMatchPredictor exact = new ExactMatchPredictor(
                new ExactMatchSettings(3, 1000, 64), new SurvivalSettings(1));
        TestRequest[] requests = new TestRequest[64];
        for (int i = 0; i < requests.length; i++) {
            // Mix of known prompts, too-short histories, unknown prompts and key 0.
            long key = i % 4 == 3 ? RequestView.NO_PROMPT_KEY : 1 + i % 16;
            requests[i] = TestRequest.of(key, i * 3);
            for (int n = 0; n < 1 + i % 5; n++) {
                exact.onCompleted(requests[i], 20 + (i * 37 + n * 11) % 200);
            }
        }
        long sink = 0;
        long before = threads.getCurrentThreadAllocatedBytes();
        for (int round = 0; round < 20_000; round++) {
            for (TestRequest request : requests) {
                sink += exact.predictEnd(request, 80, 0.3);
            }
        }
        long allocated = threads.getCurrentThreadAllocatedBytes() - before;
        assertTrue(sink > 0);
        // 1.28 M calls: even one small object per call would be tens of MB.
        assertTrue(allocated < 64 * 1024, "allocated " + allocated + " bytes");
    }
}
