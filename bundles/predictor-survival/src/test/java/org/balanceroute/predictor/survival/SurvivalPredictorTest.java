package org.balanceroute.predictor.survival;

import static org.balanceroute.api.TerminationPredictor.SURVIVES;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.lang.management.ManagementFactory;
import org.junit.jupiter.api.Test;

class SurvivalPredictorTest {

    @Test
    void settingsValidateAndDefault() {
        assertEquals(32, SurvivalSettings.defaults().minSamples());
        IllegalArgumentException e =
                assertThrows(IllegalArgumentException.class, () -> new SurvivalSettings(0));
        assertTrue(e.getMessage().contains("minSamples"), e.getMessage());
    }

    @Test
    void quantileValidatesAndDefaultsToTheMedian() {
        assertEquals(0.5, SurvivalSettings.defaults().quantile());
        assertEquals(0.5, new SurvivalSettings(4).quantile());
        for (double bad : new double[] {0.0, -0.1, 1.01, Double.NaN}) {
            IllegalArgumentException e =
                    assertThrows(IllegalArgumentException.class, () -> new SurvivalSettings(1, bad));
            assertEquals("quantile must be in (0, 1], got " + bad, e.getMessage());
        }
    }

    @Test
    void windowValidates() {
        assertEquals(0, SurvivalSettings.defaults().window());
        assertEquals(32, new SurvivalSettings(32, 0.5, 32).window());
        IllegalArgumentException e =
                assertThrows(IllegalArgumentException.class, () -> new SurvivalSettings(32, 0.5, 31));
        assertEquals("window must be 0 (every length) or in [minSamples = 32, 1048576], got 31", e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> new SurvivalSettings(1, 0.5, -1));
        assertThrows(IllegalArgumentException.class, () -> new SurvivalSettings(1, 0.5, SurvivalSettings.MAX_WINDOW + 1));
    }

    @Test
    void aWindowForgetsTheOlderLengths() {
        SurvivalPredictor windowed = new SurvivalPredictor(new SurvivalSettings(1, 0.5, 2));
        SurvivalPredictor all = new SurvivalPredictor(new SurvivalSettings(1));
        for (int length : new int[] {3, 50, 50}) {
            windowed.onCompleted(TestRequest.decoded(0), length);
            all.onCompleted(TestRequest.decoded(0), length);
        }
        // j = 0, H = 10: over all three, only 3 ends within H (P = 1/3, over the gate 0.3: c = 3);
        // the window holds {50, 50}: none ends within H
        assertEquals(3, all.predictEnd(TestRequest.decoded(0), 10, 0.3));
        assertEquals(SURVIVES, windowed.predictEnd(TestRequest.decoded(0), 10, 0.0));
        // at j = 45 the window's two both end at 50: c = 5
        assertEquals(5, windowed.predictEnd(TestRequest.decoded(45), 10, 1.0));
    }

    @Test
    void predictsTheConfiguredQuantile() {
        SurvivalPredictor low = new SurvivalPredictor(new SurvivalSettings(1, 0.25));
        SurvivalPredictor high = new SurvivalPredictor(new SurvivalSettings(1, 1.0));
        for (int length : new int[] {2, 4, 6, 8}) {
            low.onCompleted(TestRequest.decoded(0), length);
            high.onCompleted(TestRequest.decoded(0), length);
        }
        // j = 0, H = 10: all four end; the 0.25-quantile is the 1st (length 2), 1.0 the 4th (8)
        assertEquals(2, low.predictEnd(TestRequest.decoded(0), 10, 0.5));
        assertEquals(8, high.predictEnd(TestRequest.decoded(0), 10, 0.5));
    }

    @Test
    void nameIsSurvival() {
        assertEquals("survival", new SurvivalPredictor(SurvivalSettings.defaults()).name());
    }

    @Test
    void learnsOnlineFromCompletions() {
        SurvivalPredictor predictor = new SurvivalPredictor(new SurvivalSettings(4));
        TestRequest atNine = TestRequest.decoded(9);
        for (int i = 0; i < 3; i++) {
            predictor.onCompleted(TestRequest.decoded(10), 10);
            assertEquals(SURVIVES, predictor.predictEnd(atNine, 5, 0.9), "below minSamples");
        }
        predictor.onCompleted(TestRequest.decoded(10), 10);
        // Every length seen is 10: at j = 9 the request ends on the current step.
        assertEquals(1, predictor.predictEnd(atNine, 5, 0.9));
        assertEquals(SURVIVES, predictor.predictEnd(TestRequest.decoded(10), 5, 0.0), "outlived");

        // Longer completions make the end at 10 less certain: 4 of 8 alive at j = 9 end by 14.
        for (int i = 0; i < 4; i++) {
            predictor.onCompleted(TestRequest.decoded(100), 100);
        }
        assertEquals(SURVIVES, predictor.predictEnd(atNine, 5, 0.9));
        assertEquals(1, predictor.predictEnd(atNine, 5, 0.5));
        // Past 10 only the 100s remain: they end within H = 100 at c = 100 - 20.
        assertEquals(80, predictor.predictEnd(TestRequest.decoded(20), 100, 1.0));
    }

    @Test
    void ignoresNonPositiveLengthsAndClampsHugeOnes() {
        SurvivalPredictor predictor = new SurvivalPredictor(new SurvivalSettings(2));
        predictor.onCompleted(TestRequest.decoded(0), 0);
        predictor.onCompleted(TestRequest.decoded(0), -5);
        predictor.onCompleted(TestRequest.decoded(0), 3);
        assertEquals(SURVIVES, predictor.predictEnd(TestRequest.decoded(0), 5, 0.0), "one sample");
        predictor.onCompleted(TestRequest.decoded(0), Integer.MAX_VALUE);
        // {3, MAX_LENGTH}: half of the alive end by 3.
        assertEquals(3, predictor.predictEnd(TestRequest.decoded(0), 5, 0.5));
        assertEquals(SURVIVES, predictor.predictEnd(TestRequest.decoded(0), 5, 0.51));
    }

    @Test
    void warmStartPreloads() {
        SurvivalPredictor predictor = new SurvivalPredictor(new SurvivalSettings(5));
        predictor.warmStart(new int[] {1, 2, 2, 5, 10});
        // j = 2: alive {5, 10}; H = 8: both end, half (1) reached at 5: c = 3.
        assertEquals(3, predictor.predictEnd(TestRequest.decoded(2), 8, 1.0));
    }

    @Test
    void predictEndDoesNotAllocate() {
        assumeTrue(ManagementFactory.getThreadMXBean()
                instanceof com.sun.management.ThreadMXBean);
        com.sun.management.ThreadMXBean threads =
                (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        assumeTrue(threads.isThreadAllocatedMemorySupported()
                && threads.isThreadAllocatedMemoryEnabled());
        SurvivalPredictor predictor = new SurvivalPredictor(new SurvivalSettings(1));
        TestRequest[] requests = new TestRequest[64];
        for (int i = 0; i < requests.length; i++) {
            requests[i] = TestRequest.decoded(i * 5);
            predictor.onCompleted(requests[i], 1 + i * 7);
        }
        long sink = 0;
        long before = threads.getCurrentThreadAllocatedBytes();
        for (int round = 0; round < 20_000; round++) {
            for (TestRequest request : requests) {
                sink += predictor.predictEnd(request, 80, 0.3);
            }
        }
        long allocated = threads.getCurrentThreadAllocatedBytes() - before;
        assertTrue(sink > 0);
        // 1.28 M calls: even one small object per call would be tens of MB.
        assertTrue(allocated < 64 * 1024, "allocated " + allocated + " bytes");
    }
}
