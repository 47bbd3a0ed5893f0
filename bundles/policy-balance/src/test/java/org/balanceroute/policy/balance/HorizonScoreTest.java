package org.balanceroute.policy.balance;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.Random;
import org.balanceroute.api.PoolView;
import org.balanceroute.api.RequestView;
import org.balanceroute.api.TerminationPredictor;
import org.balanceroute.core.Router;
import org.junit.jupiter.api.Test;

class HorizonScoreTest {

    /** The O(log H) score against the formula of spec section 5 evaluated term by term. */
    @Test
    void fastScoreEqualsTheFormulaOnRandomStates() {
        Random random = new Random(3);
        long[] ids = {1};
        for (int trial = 0; trial < 300; trial++) {
            int workers = 1 + random.nextInt(8);
            int horizon = random.nextInt(30);
            BalanceSettings s = BalanceSettings.defaults().withHorizon(horizon, 0.5 + random.nextDouble(),
                    random.nextDouble() * 50, 0.3 + 0.7 * random.nextDouble());
            TerminationPredictor predictor = new Fixtures.ConstantPredictor(1 + random.nextInt(horizon + 2));
            Router router = Fixtures.randomState(random, workers, 6, 0, ids);
            HorizonScore score = new HorizonScore(s, predictor);
            score.prepare(router.state());
            long[][] projected = project(router.state(), horizon, predictor, s.confidence());
            for (int g = 0; g < workers; g++) {
                for (int k = 0; k < 5; k++) {
                    long delta = random.nextInt(200_000);
                    double expected = formula(projected, g, delta, s);
                    assertEquals(expected, score.score(g, delta), 1e-6 * Math.max(1, Math.abs(expected)));
                }
            }
        }
    }

    @Test
    void horizonZeroWithAlphaOneAndBetaGIsBr0() {
        Random random = new Random(11);
        long[] ids = {1};
        for (int trial = 0; trial < 200; trial++) {
            int workers = 1 + random.nextInt(16);
            Router router = Fixtures.randomState(random, workers, 5, 0, ids);
            HorizonScore horizon = new HorizonScore(BalanceSettings.defaults().withHorizon(0, 1, workers, 0.64),
                    new Fixtures.ConstantPredictor(1));
            Br0Score br0 = new Br0Score();
            horizon.prepare(router.state());
            br0.prepare(router.state());
            for (int g = 0; g < workers; g++) {
                assertEquals(br0.orderMargin(g), horizon.orderMargin(g));
                long delta = random.nextInt(100_000);
                assertEquals(br0.score(g, delta), horizon.score(g, delta));
            }
        }
    }

    @Test
    void aWorkerWhoseRequestsEndSoonHasRoomAhead() {
        org.balanceroute.core.PoolState state = new org.balanceroute.core.PoolState(2, 4);
        Fixtures.Placer placer = new Fixtures.Placer();
        Router router = new Router(state, placer, java.util.List.of());
        placer.target = 0;
        router.submit(new org.balanceroute.core.TrackedRequest(1, 10_000, 0, 0, 0)); // ends after 1 step
        placer.target = 1;
        router.submit(new org.balanceroute.core.TrackedRequest(2, 9_000, 0, 0, 0)); // survives
        TerminationPredictor byId = new TerminationPredictor() {
            public String name() { return "by-id"; }
            public int predictEnd(RequestView r, int horizon, double confidence) {
                return r.id() == 1 ? 1 : SURVIVES;
            }
            public void onCompleted(RequestView r, int n) { }
        };
        BalanceSettings s = BalanceSettings.defaults().withHorizon(4, 1, 2, 1.0)
                .withOrdering(BalanceSettings.Stage1Worker.SLOTS, BalanceSettings.HorizonMargin.MIN);
        HorizonScore score = new HorizonScore(s, byId);
        score.prepare(state);
        // now: worker 0 is the max (margin 0); from h=1 on it is empty and worker 1 is the max
        assertEquals(0, score.orderMargin(0));
        assertEquals(0, score.orderMargin(1));
        // the other orderings: worker 0's margins are 0, 9001, 9002, 9003, 9004 (gamma 1: plain mean)
        HorizonScore mean = new HorizonScore(s.withOrdering(BalanceSettings.Stage1Worker.SLOTS,
                BalanceSettings.HorizonMargin.MEAN), byId);
        mean.prepare(state);
        assertEquals(Math.round((0 + 9001 + 9002 + 9003 + 9004) / 5.0), mean.orderMargin(0));
        HorizonScore present = new HorizonScore(s.withOrdering(BalanceSettings.Stage1Worker.SLOTS,
                BalanceSettings.HorizonMargin.NOW), byId);
        present.prepare(state);
        assertEquals(0, present.orderMargin(0));
        assertEquals(1_000, present.orderMargin(1));
        // 5,000 tokens on worker 0 overflow now (by 5,000) but fit for h = 1..4 (margin 9,000 + h)
        assertEquals(5 * 5_000 - 2 * 5_000, score.score(0, 5_000), 1e-9);
        // on worker 1 they fit now (margin 1,000 -> overflow 4,000) and overflow by 5,000 later
        assertEquals(5 * 5_000 - 2 * (4_000 + 4 * 5_000), score.score(1, 5_000), 1e-9);
        // BR-0 sees only the present and prefers worker 1
        Br0Score now = new Br0Score();
        now.prepare(state);
        assertEquals(true, now.score(1, 5_000) > now.score(0, 5_000));
    }

    /** L_g(k+h) by the definition: sum over running i with c_i > h of (w_i + h). */
    static long[][] project(PoolView view, int horizon, TerminationPredictor p, double confidence) {
        long[][] l = new long[view.workers()][horizon + 1];
        for (int g = 0; g < view.workers(); g++) {
            for (int i = 0; i < view.running(g); i++) {
                RequestView r = view.active(g, i);
                int c = horizon == 0 ? 1 : p.predictEnd(r, horizon, confidence);
                if (c == TerminationPredictor.SURVIVES) {
                    c = horizon + 1;
                }
                for (int h = 0; h <= horizon; h++) {
                    if (c > h) {
                        l[g][h] += r.kvLoad() + h;
                    }
                }
            }
        }
        return l;
    }

    static double formula(long[][] projected, int g, long delta, BalanceSettings s) {
        double gain = 0, penalty = 0, d = 1;
        for (int h = 0; h <= s.horizon(); h++) {
            long max = 0;
            for (long[] row : projected) {
                max = Math.max(max, row[h]);
            }
            long margin = max - projected[g][h];
            gain += d * delta;
            penalty += d * Math.max(0, delta - margin);
            d *= s.gamma();
        }
        return s.alpha() * gain - s.beta() * penalty;
    }
}
