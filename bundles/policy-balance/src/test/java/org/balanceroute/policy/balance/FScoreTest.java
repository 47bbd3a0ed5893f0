package org.balanceroute.policy.balance;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Random;
import org.junit.jupiter.api.Test;

/** The laws of spec section 3 that any F-score must obey. */
class FScoreTest {

    @Test
    void continuousAtTheMarginWithSlopesOneAndMinusGMinusOne() {
        for (int g : new int[] {2, 8, 16}) {
            long m = 1000;
            assertEquals(m, FScore.br0(m, m, g), "F(m) = m");
            assertEquals(m - 1, FScore.br0(m - 1, m, g), "slope +1 below the margin");
            assertEquals(m - (g - 1), FScore.br0(m + 1, m, g), "slope -(G-1) above it");
        }
    }

    @Test
    void oneWorkerNeverHasImbalance() {
        // G=1: the only worker is the max, so m = 0 and every F is 0 = -(change of I), I stays 0.
        for (long delta = 0; delta < 1000; delta += 37) {
            assertEquals(0, FScore.br0(delta, 0, 1));
        }
    }

    @Test
    void zeroMarginIsPureOverflow() {
        for (long delta = 1; delta < 5000; delta += 311) {
            assertEquals(-(8 - 1) * delta, FScore.br0(delta, 0, 8));
            assertTrue(FScore.br0(delta, 0, 8) < 0);
        }
    }

    /** F_g(Q) = -(I after - I before) exactly, so maximising F minimises the one-step increase of I. */
    @Test
    void maximisingFMinimisesTheIncreaseOfImbalanceOnRandomStates() {
        Random random = new Random(42);
        for (int trial = 0; trial < 2000; trial++) {
            int g = 1 + random.nextInt(16);
            long[] load = new long[g];
            for (int w = 0; w < g; w++) {
                load[w] = random.nextInt(100_000);
            }
            int n = 1 + random.nextInt(6);
            long[] prompts = new long[n];
            for (int i = 0; i < n; i++) {
                prompts[i] = 1 + random.nextInt(40_000);
            }
            long before = imbalance(load);
            long max = 0;
            for (long l : load) {
                max = Math.max(max, l);
            }
            long bestF = Long.MIN_VALUE, leastIncrease = Long.MAX_VALUE;
            for (int w = 0; w < g; w++) {
                for (int mask = 1; mask < (1 << n); mask++) {
                    long delta = 0;
                    for (int i = 0; i < n; i++) {
                        if ((mask & (1 << i)) != 0) {
                            delta += prompts[i];
                        }
                    }
                    long f = FScore.br0(delta, max - load[w], g);
                    load[w] += delta;
                    long increase = imbalance(load) - before;
                    load[w] -= delta;
                    assertEquals(-increase, f, "F = -(increase of I)");
                    bestF = Math.max(bestF, f);
                    leastIncrease = Math.min(leastIncrease, increase);
                }
            }
            assertEquals(-leastIncrease, bestF);
        }
    }

    /** I = G*M - sum L. */
    static long imbalance(long[] load) {
        long max = 0, sum = 0;
        for (long l : load) {
            max = Math.max(max, l);
            sum += l;
        }
        return load.length * max - sum;
    }
}
