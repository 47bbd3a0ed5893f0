package org.balanceroute.predictor.survival;

import static org.balanceroute.api.TerminationPredictor.SURVIVES;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Arrays;
import java.util.Random;
import org.junit.jupiter.api.Test;

class OutputLengthDistributionTest {

    private static OutputLengthDistribution of(int initialCapacity, int... lengths) {
        OutputLengthDistribution d = new OutputLengthDistribution(initialCapacity);
        for (int length : lengths) {
            d.add(length);
        }
        return d;
    }

    @Test
    void countAtMostMatchesHandComputedCdf() {
        OutputLengthDistribution d = of(16, 1, 2, 2, 5, 10);
        assertEquals(5, d.count());
        long[] expected = {0, 1, 3, 3, 3, 4, 4, 4, 4, 4, 5, 5, 5};
        for (int x = 0; x < expected.length; x++) {
            assertEquals(expected[x], d.countAtMost(x), "C(" + x + ")");
        }
        assertEquals(0, d.countAtMost(-3));
        assertEquals(5, d.countAtMost(Integer.MAX_VALUE));
    }

    @Test
    void removeForgetsOneLength() {
        OutputLengthDistribution d = of(16, 1, 2, 2, 5);
        d.remove(2);
        assertEquals(3, d.count());
        assertEquals(2, d.countAtMost(2));
        assertEquals(3, d.countAtMost(5));
        assertThrows(IllegalArgumentException.class, () -> d.remove(3), "never recorded");
        assertThrows(IllegalArgumentException.class, () -> d.remove(100), "past the capacity");
    }

    @Test
    void growsPastInitialCapacityKeepingCounts() {
        OutputLengthDistribution d = of(2, 1, 2, 2);
        d.add(5); // 2 -> 8
        d.add(10); // 8 -> 16
        d.add(1000); // 16 -> 1024, several doublings at once
        d.add(3);
        assertEquals(7, d.count());
        assertEquals(1, d.countAtMost(1));
        assertEquals(3, d.countAtMost(2));
        assertEquals(4, d.countAtMost(3));
        assertEquals(5, d.countAtMost(9));
        assertEquals(6, d.countAtMost(999));
        assertEquals(7, d.countAtMost(1000));
        assertEquals(7, d.countAtMost(5000));
    }

    @Test
    void rejectsLengthsOutOfRange() {
        OutputLengthDistribution d = new OutputLengthDistribution();
        assertThrows(IllegalArgumentException.class, () -> d.add(0));
        assertThrows(IllegalArgumentException.class, () -> d.add(-1));
        assertThrows(IllegalArgumentException.class,
                () -> d.add(OutputLengthDistribution.MAX_LENGTH + 1));
        assertThrows(IllegalArgumentException.class, () -> new OutputLengthDistribution(0));
    }

    @Test
    void countAtMostAgreesWithNaiveCountOnRandomData() {
        Random random = new Random(42);
        OutputLengthDistribution d = new OutputLengthDistribution(4);
        int[] lengths = new int[3000];
        for (int i = 0; i < lengths.length; i++) {
            // Mostly short lengths with a long tail, so the tree grows several times.
            lengths[i] = random.nextInt(10) == 0 ? 1 + random.nextInt(20_000) : 1 + random.nextInt(300);
            d.add(lengths[i]);
            if (i % 500 == 499) {
                assertMatchesNaive(d, Arrays.copyOf(lengths, i + 1), random);
            }
        }
    }

    private static void assertMatchesNaive(OutputLengthDistribution d, int[] seen, Random random) {
        int[] sorted = seen.clone();
        Arrays.sort(sorted);
        for (int q = 0; q < 500; q++) {
            int x = random.nextInt(25_000) - 10;
            assertEquals(naiveCountAtMost(sorted, x), d.countAtMost(x), "C(" + x + ")");
        }
    }

    private static long naiveCountAtMost(int[] sorted, int x) {
        int count = 0;
        while (count < sorted.length && sorted[count] <= x) {
            count++;
        }
        return count;
    }

    @Test
    void endWithinGatesOnMinSamples() {
        OutputLengthDistribution d = of(16, 1, 2, 2, 5, 10);
        assertEquals(SURVIVES, d.endWithin(0, 10, 0.0, 6));
        assertEquals(2, d.endWithin(0, 2, 0.0, 5));
    }

    @Test
    void endWithinGatesOnConfidence() {
        OutputLengthDistribution d = of(16, 1, 2, 2, 5, 10);
        // j = 0, H = 2: P = (C(2) - C(0)) / (5 - C(0)) = 3/5.
        assertEquals(2, d.endWithin(0, 2, 0.6, 1));
        assertEquals(SURVIVES, d.endWithin(0, 2, 0.61, 1));
        assertEquals(SURVIVES, d.endWithin(0, 2, Double.NaN, 1));
        // j = 2, H = 2: alive {5, 10}, none ends in (2, 4] so P = 0: no evidence, even at 0.
        assertEquals(SURVIVES, d.endWithin(2, 2, 0.0, 1));
    }

    @Test
    void endWithinSurvivesWhenRequestOutlivedEverything() {
        OutputLengthDistribution d = of(16, 1, 2, 2, 5, 10);
        assertEquals(SURVIVES, d.endWithin(10, 5, 0.0, 1));
        assertEquals(SURVIVES, d.endWithin(5000, 5, 0.0, 1));
    }

    @Test
    void endWithinSurvivesForEmptyHorizon() {
        OutputLengthDistribution d = of(16, 1, 2, 2, 5, 10);
        assertEquals(SURVIVES, d.endWithin(0, 0, 0.0, 1));
    }

    @Test
    void endWithinReturnsConditionalMedian() {
        // lengths 3,4,4,6,9,20 and j = 3: alive {4,4,6,9,20}.
        OutputLengthDistribution d = of(16, 3, 4, 4, 6, 9, 20);
        // H = 6: ending in (3, 9] = {4,4,6,9} (4 of 5, P = 0.8); half is 2, reached at 4: c = 1.
        assertEquals(1, d.endWithin(3, 6, 0.8, 1));
        assertEquals(SURVIVES, d.endWithin(3, 6, 0.81, 1));
        // j = 4: alive {6,9,20}; H = 5: ending {6,9} (P = 2/3), half is 1, reached at 6: c = 2.
        assertEquals(2, d.endWithin(4, 5, 0.5, 1));
        // j = 4, H = 16: ending {6,9,20} (P = 1), ceil(3/2) = 2 reached at 9: c = 5.
        assertEquals(5, d.endWithin(4, 16, 1.0, 1));
        // j = 0, H = 20: all six end, half is 3, reached at 4 (C(4) = 3): c = 4.
        assertEquals(4, d.endWithin(0, 20, 1.0, 1));
    }

    @Test
    void endWithinReturnsTheConditionalQuantile() {
        // lengths 3,4,4,6,9,20 and j = 3, H = 17: ending in (3, 20] = {4,4,6,9,20}, five of them.
        OutputLengthDistribution d = of(16, 3, 4, 4, 6, 9, 20);
        // q = 0.1: ceil(0.5) = 1 reached at 4: c = 1; q = 0.5: ceil(2.5) = 3 at 6: c = 3;
        // q = 0.8: 4 at 9: c = 6; q = 1: all 5 at 20: c = 17.
        assertEquals(1, d.endWithin(3, 17, 0.0, 1, 0.1));
        assertEquals(3, d.endWithin(3, 17, 0.0, 1, 0.5));
        assertEquals(6, d.endWithin(3, 17, 0.0, 1, 0.8));
        assertEquals(17, d.endWithin(3, 17, 0.0, 1, 1.0));
        // the gate does not depend on the quantile
        assertEquals(SURVIVES, d.endWithin(3, 5, 0.61, 1, 0.9), "ending {4,4,6}: P = 3/5");
    }

    @Test
    void theDefaultQuantileIsTheMedian() {
        Random random = new Random(5);
        OutputLengthDistribution d = new OutputLengthDistribution(8);
        for (int i = 0; i < 300; i++) {
            d.add(1 + random.nextInt(500));
        }
        for (int trial = 0; trial < 3000; trial++) {
            int j = random.nextInt(520);
            int h = 1 + random.nextInt(100);
            assertEquals(d.endWithin(j, h, 0.3, 1), d.endWithin(j, h, 0.3, 1, SurvivalSettings.DEFAULT_QUANTILE));
        }
    }

    @Test
    void quantileRankIsCeilOfQTimesNWithinOneToN() {
        assertEquals(1, OutputLengthDistribution.quantileRank(Double.MIN_VALUE, 7));
        assertEquals(4, OutputLengthDistribution.quantileRank(0.5, 7));
        assertEquals(3, OutputLengthDistribution.quantileRank(0.5, 6));
        assertEquals(2, OutputLengthDistribution.quantileRank(0.25, 5));
        assertEquals(7, OutputLengthDistribution.quantileRank(1.0, 7));
    }

    @Test
    void endWithinHandlesHorizonPastIntRange() {
        OutputLengthDistribution d = of(16, 3, 4, 4, 6, 9, 20);
        assertEquals(5, d.endWithin(4, Integer.MAX_VALUE, 1.0, 1));
    }

    @Test
    void endWithinAlwaysWithinOneToHorizonAndMatchesDefinition() {
        Random random = new Random(7);
        OutputLengthDistribution d = new OutputLengthDistribution(8);
        int[] lengths = new int[400];
        for (int i = 0; i < lengths.length; i++) {
            lengths[i] = 1 + random.nextInt(random.nextBoolean() ? 50 : 2000);
            d.add(lengths[i]);
        }
        int answered = 0;
        for (int trial = 0; trial < 5000; trial++) {
            int j = random.nextInt(2100);
            int h = 1 + random.nextInt(120);
            double confidence = random.nextDouble();
            int c = d.endWithin(j, h, confidence, 1);
            int expected = naiveEndWithin(lengths, j, h, confidence);
            assertEquals(expected, c, "j=" + j + " H=" + h + " conf=" + confidence);
            if (c != SURVIVES) {
                answered++;
                assertTrue(c >= 1 && c <= h, "c=" + c + " H=" + h);
            }
        }
        assertTrue(answered > 100, "answered " + answered);
    }

    /** The definition, evaluated literally over h = 1..H. */
    private static int naiveEndWithin(int[] lengths, int j, int h, double confidence) {
        long alive = Arrays.stream(lengths).filter(o -> o > j).count();
        long ending = Arrays.stream(lengths).filter(o -> o > j && o <= j + h).count();
        if (alive == 0 || ending == 0 || (double) ending / alive < confidence) {
            return SURVIVES;
        }
        for (int step = 1; step <= h; step++) {
            int end = j + step;
            long within = Arrays.stream(lengths).filter(o -> o > j && o <= end).count();
            if (within >= ending / 2.0) {
                return step;
            }
        }
        throw new AssertionError("unreachable");
    }
}
