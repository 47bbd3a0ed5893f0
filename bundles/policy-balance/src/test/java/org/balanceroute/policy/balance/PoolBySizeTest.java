package org.balanceroute.policy.balance;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;

import java.util.Random;
import org.balanceroute.api.PromptPoolView;
import org.balanceroute.api.RequestView;
import org.balanceroute.core.Router;
import org.junit.jupiter.api.Test;

/** Stage 1's binary search against the plain scan it replaces: highest F, then larger, then older. */
class PoolBySizeTest {

    @Test
    void br0PickEqualsTheScanExactlyIncludingTies() {
        Random random = new Random(31);
        for (int trial = 0; trial < 2000; trial++) {
            int workers = 1 + random.nextInt(6); // includes G=1, where F has a plateau past the margin
            Router router = Fixtures.randomState(random, workers, 4, 1 + random.nextInt(60), new long[] {1});
            if (random.nextBoolean()) {
                // few distinct sizes: many ties
                router = Fixtures.randomState(new SmallSizes(random), workers, 4, 1 + random.nextInt(60), new long[] {1});
            }
            Br0Score score = new Br0Score();
            score.prepare(router.state());
            checkAgainstScan(router.pool(), score, workers, true);
        }
    }

    @Test
    void horizonPickReachesTheScansBestScore() {
        Random random = new Random(37);
        for (int trial = 0; trial < 500; trial++) {
            int workers = 1 + random.nextInt(6);
            int horizon = random.nextInt(20);
            BalanceSettings s = BalanceSettings.defaults().withHorizon(horizon, 0.5 + random.nextDouble(),
                    random.nextDouble() * 40, 0.3 + 0.7 * random.nextDouble());
            Router router = Fixtures.randomState(random, workers, 4, 1 + random.nextInt(60), new long[] {1});
            HorizonScore score = new HorizonScore(s, new Fixtures.ConstantPredictor(1 + random.nextInt(horizon + 2)));
            score.prepare(router.state());
            checkAgainstScan(router.pool(), score, workers, false);
        }
    }

    private static void checkAgainstScan(PromptPoolView pool, BarrierScore score, int workers, boolean exact) {
        PoolBySize index = new PoolBySize();
        index.build(pool);
        for (int g = 0; g < workers; g++) {
            int best = 0;
            for (int i = 1; i < pool.size(); i++) {
                double f = score.score(g, pool.get(i).promptTokens());
                double bestF = score.score(g, pool.get(best).promptTokens());
                if (f > bestF || (f == bestF && pool.get(i).promptTokens() > pool.get(best).promptTokens())) {
                    best = i;
                }
            }
            RequestView picked = index.request(index.best(score, g));
            if (exact) {
                assertSame(pool.get(best), picked);
            } else {
                double expected = score.score(g, pool.get(best).promptTokens());
                assertEquals(expected, score.score(g, picked.promptTokens()), 1e-9 * Math.max(1, Math.abs(expected)));
            }
        }
    }

    @Test
    void removalsMapBackToCurrentPoolPositions() {
        Random random = new Random(41);
        Router router = Fixtures.randomState(random, 2, 1, 50, new long[] {1});
        PromptPoolView pool = router.pool();
        java.util.List<RequestView> live = new java.util.ArrayList<>();
        for (int i = 0; i < pool.size(); i++) {
            live.add(pool.get(i));
        }
        PoolBySize index = new PoolBySize();
        index.build(pool);
        while (index.size() > 0) {
            int i = random.nextInt(index.size());
            RequestView r = index.request(i);
            int position = index.remove(i);
            assertSame(live.get(position), r);
            live.remove(position);
        }
    }

    /** A Random whose nextInt draws from five sizes only, to force equal prompts. */
    static final class SmallSizes extends Random {
        private static final long serialVersionUID = 1L;
        private final Random inner;

        SmallSizes(Random inner) {
            this.inner = inner;
        }

        @Override
        public int nextInt(int bound) {
            return bound == 30_000 ? 1000 * (1 + inner.nextInt(5)) : inner.nextInt(bound);
        }

        @Override
        public boolean nextBoolean() {
            return inner.nextBoolean();
        }
    }
}
