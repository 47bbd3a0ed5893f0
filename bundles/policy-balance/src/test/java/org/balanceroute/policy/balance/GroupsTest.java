package org.balanceroute.policy.balance;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import java.util.Random;
import org.balanceroute.core.DecodeLayout;
import org.balanceroute.core.PoolState;
import org.balanceroute.core.Router;
import org.balanceroute.core.TrackedRequest;
import org.junit.jupiter.api.Test;

/** Each decode instance (group) is its own barrier: a worker is scored against its group only. */
class GroupsTest {

    private static long ids = 1;

    /** Two groups of two; worker loads as given, placed through the real router. */
    private static Router twoGroups(long... loads) {
        PoolState state = new PoolState(DecodeLayout.of(new int[] {2, 2}, 4));
        Fixtures.Placer placer = new Fixtures.Placer();
        Router router = new Router(state, placer, List.of());
        for (int g = 0; g < loads.length; g++) {
            if (loads[g] > 0) {
                placer.target = g;
                router.submit(new TrackedRequest(ids++, (int) loads[g], 0, 0, 0));
            }
        }
        return router;
    }

    @Test
    void aWorkerTakesTheRequestThatFillsItsOwnGroupsDeficit() {
        // group 0: 3000 / 2000 (margin 1000); group 1: 10000 / 8000. Stage 1 gives worker 1 (the
        // lightest of all) a request: judged in its group, the 900 fills its deficit and the 5000
        // would raise group 0's barrier by 4000 (F = 5000 - 2 * 4000 < 0).
        Router router = twoGroups(3000, 2000, 10_000, 8000);
        router.setPolicy(BalancePolicy.br0(BalanceSettings.defaults()));
        TrackedRequest fits = new TrackedRequest(ids++, 900, 0, 0, 0);
        TrackedRequest big = new TrackedRequest(ids++, 5000, 0, 0, 0);
        router.submit(fits);
        router.submit(big);
        router.dispatch();
        assertEquals(1, fits.worker());

        // Seen as one barrier (M = 10000, margin 8000) the larger one is the better fill: group 0's
        // barrier rises by 4000.
        Router flat = twoGroups(3000, 2000, 10_000, 8000);
        flat.viewAsOneBarrier(true);
        flat.setPolicy(BalancePolicy.br0(BalanceSettings.defaults()));
        TrackedRequest fits2 = new TrackedRequest(ids++, 900, 0, 0, 0);
        TrackedRequest big2 = new TrackedRequest(ids++, 5000, 0, 0, 0);
        flat.submit(fits2);
        flat.submit(big2);
        flat.dispatch();
        assertEquals(1, big2.worker());
    }

    @Test
    void theBypassRuleJudgesEachWorkerInItsGroup() {
        Router router = twoGroups(3000, 2000, 10_000, 8000);
        router.setPolicy(new Br0BypassPolicy());
        TrackedRequest r = new TrackedRequest(ids++, 1500, 0, 0, 0);
        router.submit(r);
        assertEquals(3, r.worker());
    }

    @Test
    void theOverflowPenaltyIsTheGroupsOwnGMinusOne() {
        PoolState state = new PoolState(DecodeLayout.of(new int[] {3, 1, 5}, 8));
        Br0Score score = new Br0Score();
        score.prepare(state);
        // every margin is 0: F = -(G_group - 1) * delta
        assertEquals(-2 * 100, score.score(0, 100));
        assertEquals(-4 * 100, score.score(6, 100));
        assertEquals(1 - 5, score.slope(8, 0));
        // a group of one rank is never unbalanced: F = 0 whatever it takes
        assertEquals(0, score.score(3, 100));
        assertEquals(0, score.slope(3, 7));
    }

    @Test
    void aGroupOfOneRankIsAlwaysBalanced() {
        // dense pools: instances of one rank each; br0 still places everything
        PoolState state = new PoolState(DecodeLayout.of(new int[] {1, 1, 1}, 2));
        Router router = new Router(state, BalancePolicy.br0(BalanceSettings.defaults()), List.of());
        for (int i = 0; i < 6; i++) {
            router.submit(new TrackedRequest(ids++, 100 * (i + 1), 0, 0, 0));
        }
        router.dispatch();
        assertEquals(0, router.pool().size());
        for (int g = 0; g < 3; g++) {
            assertEquals(2, state.running(g));
            assertEquals(0, state.groupImbalance(g));
        }
    }

    @Test
    void heterogeneousCapacityBoundsEachGroupByItsOwnB() {
        PoolState state = new PoolState(DecodeLayout.of(new int[] {2, 2}, new int[] {1, 3}));
        Router router = new Router(state, BalancePolicy.br0(BalanceSettings.defaults()), List.of());
        for (int i = 0; i < 10; i++) {
            router.submit(new TrackedRequest(ids++, 1000, 0, 0, 0));
        }
        for (int step = 0; step < 4; step++) {
            router.dispatch();
        }
        assertEquals(8, state.totalRunning());
        assertEquals(2, router.pool().size());
        assertEquals(1, state.running(0));
        assertEquals(1, state.running(1));
        assertEquals(3, state.running(2));
        assertEquals(3, state.running(3));
        assertEquals(3, state.capacity());
        assertEquals(1, state.capacity(1));
    }

    @Test
    void brhAtHorizonZeroIsBr0WithinEachGroup() {
        Random random = new Random(11);
        BalanceSettings s = BalanceSettings.defaults().withHorizon(0, 1.0, 4, 0.5);
        for (int trial = 0; trial < 50; trial++) {
            PoolState state = new PoolState(DecodeLayout.of(new int[] {4, 4}, 16));
            Fixtures.Placer placer = new Fixtures.Placer();
            Router router = new Router(state, placer, List.of());
            for (int g = 0; g < 8; g++) {
                for (int i = random.nextInt(6); i > 0; i--) {
                    placer.target = g;
                    router.submit(new TrackedRequest(ids++, 1 + random.nextInt(20_000), 0, 0, 0));
                }
            }
            Br0Score br0 = new Br0Score();
            HorizonScore brh = new HorizonScore(s, new Fixtures.ConstantPredictor(5));
            br0.prepare(state);
            brh.prepare(state);
            for (int g = 0; g < 8; g++) {
                long delta = random.nextInt(40_000);
                assertEquals(br0.score(g, delta), brh.score(g, delta), 1e-6, "worker " + g + " delta " + delta);
                assertEquals(br0.orderMargin(g), brh.orderMargin(g), "worker " + g);
            }
        }
    }

    @Test
    void brhProjectsEachGroupOnItsOwn() {
        // group 0's heavy worker ends within the horizon; group 1 is unaffected by group 0's future
        PoolState state = new PoolState(DecodeLayout.of(new int[] {2, 2}, 8));
        Fixtures.Placer placer = new Fixtures.Placer();
        Router router = new Router(state, placer, List.of());
        placer.target = 0;
        router.submit(new TrackedRequest(ids++, 50_000, 0, 0, 0));
        placer.target = 2;
        router.submit(new TrackedRequest(ids++, 1000, 0, 0, 0));
        HorizonScore brh = new HorizonScore(
                BalanceSettings.defaults().withHorizon(4, 1.0, 2, 1.0), new Fixtures.ConstantPredictor(100));
        brh.prepare(state);
        // worker 3's margins are against worker 2 (1000 + h for h = 0..4), never against group 0's
        // 50,000: 1005 tokens overflow them by 5 + 4 + 3 + 2 + 1
        assertEquals(5 * 1000, brh.score(3, 1000), 1e-9);
        assertEquals(5 * 1005 - 2 * 15, brh.score(3, 1005), 1e-9);
        // ... while the order puts group 1's workers after group 0's lightest: gap 49,000 now
        assertEquals(50_000 + 2, brh.orderMargin(1), 1);
        assertEquals(1000 + 2 + 49_000, brh.orderMargin(3), 1);
    }

    @Test
    void anEmptyInstanceIsFedFirstThoughItsFScoreSeesItBalanced() {
        // group 1 is new and empty: every margin there is 0, so F < 0 for any request; the order by
        // the heaviest group's barrier gives Stage 1 its workers first
        Router router = twoGroups(3000, 2000, 0, 0);
        router.setPolicy(BalancePolicy.br0(BalanceSettings.defaults()));
        TrackedRequest small = new TrackedRequest(ids++, 100, 0, 0, 0);
        TrackedRequest large = new TrackedRequest(ids++, 900, 0, 0, 0);
        router.submit(small);
        router.submit(large);
        router.dispatch();
        assertEquals(2, router.state().group(small.worker()) + router.state().group(large.worker()),
                "both went to the empty instance: " + small.worker() + ", " + large.worker());
    }
}
