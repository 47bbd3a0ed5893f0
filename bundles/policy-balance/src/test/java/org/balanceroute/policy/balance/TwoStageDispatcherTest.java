package org.balanceroute.policy.balance;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;
import org.balanceroute.api.RoutingPolicy;
import org.balanceroute.core.PoolState;
import org.balanceroute.core.Router;
import org.balanceroute.core.TrackedRequest;
import org.junit.jupiter.api.Test;

class TwoStageDispatcherTest {

    private static final BalanceSettings DEFAULTS = BalanceSettings.defaults();

    /**
     * Stage 2 on a single worker with free slots: the chosen set must reach the brute-force
     * maximum of F over all subsets of the R_max oldest with 1 <= |Q| <= cap; when that maximum
     * is not positive, exactly one request is placed (the starvation guard).
     */
    @Test
    void stageTwoSubsetSearchEqualsBruteForce() {
        Random random = new Random(17);
        int checkedPositive = 0, checkedGuard = 0;
        for (int trial = 0; trial < 400; trial++) {
            int workers = 2 + random.nextInt(7);
            int capacity = 6;
            PoolState state = new PoolState(workers, capacity);
            Router router = new Router(state, new Fixtures.Holding(), List.of());
            // Every worker full but worker 0, which has 1..4 free slots: S_tot <= S_greedy = G, so Stage 2 only.
            Fixtures.Placer placer = new Fixtures.Placer();
            router.setPolicy(placer);
            long id = 0;
            int cap = 1 + random.nextInt(Math.min(4, workers)); // S_tot = cap <= G: Stage 2 only
            for (int g = 0; g < workers; g++) {
                int n = g == 0 ? capacity - cap : capacity;
                for (int i = 0; i < n; i++) {
                    placer.target = g;
                    router.submit(new TrackedRequest(id++, 1 + random.nextInt(20_000), 0, 0, 0));
                }
            }
            router.setPolicy(new Fixtures.Holding());
            int poolSize = 1 + random.nextInt(12);
            List<TrackedRequest> pool = new ArrayList<>();
            for (int i = 0; i < poolSize; i++) {
                TrackedRequest r = new TrackedRequest(id++, 1 + random.nextInt(20_000), 0, 0, 0);
                pool.add(r);
                router.submit(r);
            }
            long max = state.maxLoad();
            long margin = max - state.load(0);
            int n = Math.min(DEFAULTS.rMax(), poolSize);
            long bestF = Long.MIN_VALUE;
            for (int mask = 1; mask < (1 << n); mask++) {
                if (Integer.bitCount(mask) > cap) {
                    continue;
                }
                long delta = 0;
                for (int i = 0; i < n; i++) {
                    if ((mask & (1 << i)) != 0) {
                        delta += pool.get(i).promptTokens();
                    }
                }
                bestF = Math.max(bestF, FScore.br0(delta, margin, workers));
            }
            router.setPolicy(BalancePolicy.br0(DEFAULTS));
            router.dispatch();
            Set<TrackedRequest> placed = new HashSet<>();
            long delta = 0;
            for (TrackedRequest r : pool) {
                if (r.worker() >= 0) {
                    assertEquals(0, r.worker());
                    assertTrue(pool.indexOf(r) < n, "only the R_max oldest are candidates");
                    placed.add(r);
                    delta += r.promptTokens();
                }
            }
            if (bestF > 0) {
                assertEquals(bestF, FScore.br0(delta, margin, workers), "the best subset was chosen");
                checkedPositive++;
            } else {
                assertEquals(1, placed.size(), "starvation guard places exactly one");
                long bestSingle = Long.MIN_VALUE;
                for (int i = 0; i < n; i++) {
                    bestSingle = Math.max(bestSingle, FScore.br0(pool.get(i).promptTokens(), margin, workers));
                }
                assertEquals(bestSingle, FScore.br0(delta, margin, workers));
                checkedGuard++;
            }
        }
        assertTrue(checkedPositive > 50 && checkedGuard > 20, checkedPositive + " / " + checkedGuard);
    }

    @Test
    void stageOneGivesTheLargestRequestThatFitsToTheEmptiestWorker() {
        PoolState state = new PoolState(2, 64);
        Router router = new Router(state, new Fixtures.Holding(), List.of());
        Fixtures.Placer placer = new Fixtures.Placer();
        router.setPolicy(placer);
        placer.target = 0;
        router.submit(new TrackedRequest(1, 10_000, 0, 0, 0));
        router.setPolicy(new Fixtures.Holding());
        TrackedRequest small = new TrackedRequest(2, 2_000, 0, 0, 0);
        TrackedRequest fits = new TrackedRequest(3, 9_000, 0, 0, 0);
        TrackedRequest tooBig = new TrackedRequest(4, 30_000, 0, 0, 0);
        router.submit(small);
        router.submit(fits);
        router.submit(tooBig);
        router.setPolicy(BalancePolicy.br0(DEFAULTS));
        router.dispatch();
        // Worker 1 has most free slots and margin 10,000: the 9,000 request fills it best.
        assertEquals(1, fits.worker());
        assertEquals(0, router.pool().size(), "plenty of slots: Stage 1 places everything");
    }

    /** Through whole dispatch steps on random states: BR-H(H=0, alpha=1, beta=G) decides exactly as BR-0. */
    @Test
    void horizonZeroMakesExactlyBr0Decisions() {
        Random random = new Random(23);
        for (int trial = 0; trial < 300; trial++) {
            int workers = 1 + random.nextInt(12);
            long seed = random.nextLong();
            List<String> br0 = decisions(seed, workers, BalancePolicy.br0(DEFAULTS));
            List<String> brh = decisions(seed, workers, BalancePolicy.brh("h0",
                    DEFAULTS.withHorizon(0, 1, workers, 0.64), new Fixtures.ConstantPredictor(1)));
            assertEquals(br0, brh);
        }
    }

    private static List<String> decisions(long seed, int workers, RoutingPolicy policy) {
        Random random = new Random(seed);
        Router router = Fixtures.randomState(random, workers, 8, random.nextInt(40), new long[] {1});
        List<TrackedRequest> pool = new ArrayList<>();
        for (int i = 0; i < router.pool().size(); i++) {
            pool.add(router.pool().get(i));
        }
        router.setPolicy(policy);
        router.dispatch();
        List<String> out = new ArrayList<>();
        for (TrackedRequest r : pool) {
            out.add(r.id() + "->" + r.worker());
        }
        return out;
    }

    /** BR-0 and BR-H never place a pooled request on an unavailable worker, and still place on the others. */
    @Test
    void poolPoliciesSkipUnavailableWorkers() {
        Random random = new Random(29);
        int placedSomewhere = 0;
        for (int trial = 0; trial < 300; trial++) {
            int workers = 2 + random.nextInt(10);
            Router router = Fixtures.randomState(random, workers, 8, 1 + random.nextInt(40), new long[] {1});
            int down = random.nextInt(workers);
            router.setWorkerAvailable(down, false);
            List<TrackedRequest> pool = new ArrayList<>();
            for (int i = 0; i < router.pool().size(); i++) {
                pool.add(router.pool().get(i));
            }
            router.setPolicy(trial % 2 == 0 ? BalancePolicy.br0(DEFAULTS) : BalancePolicy.brh("c",
                    DEFAULTS, new Fixtures.ConstantPredictor(3)));
            placedSomewhere += router.dispatch();
            for (TrackedRequest r : pool) {
                assertTrue(r.worker() != down, "trial " + trial + ": request " + r.id() + " placed on down worker " + down);
            }
        }
        assertTrue(placedSomewhere > 100, "placed " + placedSomewhere);
    }
}
