package org.balanceroute.policy.balance;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.LongRange;
import net.jqwik.api.constraints.Size;
import org.balanceroute.core.PoolState;
import org.balanceroute.core.Router;
import org.balanceroute.core.TrackedRequest;

/**
 * The F-score's laws (spec sections 3 and 5) as properties over generated cluster states. Seeds
 * are fixed: a property that fails fails on every run, never by chance. States are small (prompts
 * of at most 60 tokens) so that every delta around every margin is tried, not a sample of them.
 */
class FScorePropertyTest {

    /** One running request: its worker (taken modulo G), prompt and tokens decoded. */
    record Running(int worker, int prompt, int decoded) {
    }

    /** G workers in one barrier and what runs on them; {@code permutation[w]} is where worker w goes in the twin state. */
    record State(int workers, List<Running> running, List<Integer> permutation) {

        Router build(boolean permuted) {
            PoolState pool = new PoolState(workers, 64);
            Fixtures.Placer placer = new Fixtures.Placer();
            Router router = new Router(pool, placer, List.of());
            long id = 1;
            for (Running r : running) {
                int w = r.worker() % workers;
                placer.target = permuted ? permutation.get(w) : w;
                TrackedRequest t = new TrackedRequest(id++, r.prompt(), 0, 0, 0);
                router.submit(t);
                router.onTokens(t, r.decoded());
            }
            return router;
        }

        /** Enough deltas to cross every margin of this state (a margin is at most the heaviest load). */
        long deltas(PoolState pool) {
            long max = 0;
            for (int w = 0; w < workers; w++) {
                max = Math.max(max, pool.load(w));
            }
            return max + 8;
        }
    }

    @Provide
    Arbitrary<State> states() {
        Arbitrary<Running> running = Combinators.combine(Arbitraries.integers().between(0, 15),
                Arbitraries.integers().between(1, 60), Arbitraries.integers().between(0, 20)).as(Running::new);
        return Arbitraries.integers().between(1, 8).flatMap(g -> {
            List<Integer> identity = new ArrayList<>();
            for (int w = 0; w < g; w++) {
                identity.add(w);
            }
            return Combinators.combine(running.list().ofMaxSize(24), Arbitraries.shuffle(identity))
                    .as((rs, perm) -> new State(g, rs, perm));
        });
    }

    /** The definition: F_g(Q) is exactly the drop of I = G*M - sum L when Q's Delta tokens go to worker g. */
    @Property(seed = "20261203")
    void fIsTheDropOfTheImbalance(@ForAll @Size(min = 1, max = 16) List<@LongRange(max = 1_000_000) Long> loads,
            @ForAll @IntRange(max = 15) int pick, @ForAll @LongRange(max = 2_000_000) long delta) {
        long[] load = loads.stream().mapToLong(Long::longValue).toArray();
        int w = pick % load.length;
        long max = 0;
        for (long l : load) {
            max = Math.max(max, l);
        }
        long before = FScoreTest.imbalance(load);
        load[w] += delta;
        assertEquals(before - FScoreTest.imbalance(load), FScore.br0(delta, max - (load[w] - delta), load.length));
    }

    /**
     * The barrier term: inside the margin F is Delta (every token fills deficit); past it F < Delta
     * (each token over raises the barrier for all G); F peaks at the margin.
     */
    @Property(seed = "20261204")
    void insideTheMarginFIsDeltaAndPastItTheBarrierCosts(@ForAll @LongRange(max = 100_000) long delta,
            @ForAll @LongRange(max = 100_000) long margin, @ForAll @IntRange(min = 2, max = 64) int workers) {
        long f = FScore.br0(delta, margin, workers);
        if (delta <= margin) {
            assertEquals(delta, f);
        } else {
            assertTrue(f < delta, "past the margin: F " + f + " < Delta " + delta);
            assertEquals(margin - (workers - 1) * (delta - margin), f, "slope -(G-1) past the margin");
        }
        assertTrue(FScore.br0(margin, margin, workers) >= f, "F peaks at the margin");
    }

    /** Monotone in load: a worker at least as heavy as another never scores higher for the same Delta. */
    @Property(seed = "20261205", tries = 300)
    void aHeavierWorkerNeverScoresHigher(@ForAll("states") State s) {
        PoolState pool = s.build(false).state();
        Br0Score score = new Br0Score();
        score.prepare(pool);
        long deltas = s.deltas(pool);
        for (int a = 0; a < s.workers(); a++) {
            for (int b = 0; b < s.workers(); b++) {
                if (pool.load(a) <= pool.load(b)) {
                    for (long d = 0; d <= deltas; d++) {
                        assertTrue(score.score(a, d) >= score.score(b, d),
                                "worker " + a + " (load " + pool.load(a) + ") vs " + b + " (load " + pool.load(b) + "), Delta " + d);
                    }
                }
            }
        }
    }

    /** Workers have no identity in the score: permuting them permutes the scores and the order margins, nothing else. */
    @Property(seed = "20261206", tries = 300)
    void scoresAreSymmetricUnderAPermutationOfTheWorkers(@ForAll("states") State s) {
        PoolState pool = s.build(false).state();
        PoolState twin = s.build(true).state();
        Br0Score score = new Br0Score();
        Br0Score permuted = new Br0Score();
        score.prepare(pool);
        permuted.prepare(twin);
        long deltas = s.deltas(pool);
        for (int w = 0; w < s.workers(); w++) {
            int p = s.permutation().get(w);
            assertEquals(score.orderMargin(w), permuted.orderMargin(p), "order margin of worker " + w);
            for (long d = 0; d <= deltas; d++) {
                assertEquals(score.score(w, d), permuted.score(p, d), "worker " + w + " -> " + p + ", Delta " + d);
            }
        }
    }

    /**
     * BarrierScore's contract the dispatcher's binary search relies on: slope(d) is F(d+1) - F(d),
     * and F is concave (the slope never rises), for BR-0 and for BR-H at any settings.
     */
    @Property(seed = "20261207", tries = 300)
    void theSlopeIsTheNextTokensGainAndNeverRises(@ForAll("states") State s, @ForAll @IntRange(max = 12) int horizon,
            @ForAll @IntRange(min = 1, max = 14) int endsAfter, @ForAll @IntRange(min = 1, max = 50) int beta,
            @ForAll @IntRange(min = 10, max = 100) int gammaPercent) {
        PoolState pool = s.build(false).state();
        BalanceSettings settings = BalanceSettings.defaults().withHorizon(horizon, 1, beta, gammaPercent / 100.0);
        for (BarrierScore score : List.of(new Br0Score(), new HorizonScore(settings, new Fixtures.ConstantPredictor(endsAfter)))) {
            score.prepare(pool);
            long deltas = s.deltas(pool);
            for (int w = 0; w < s.workers(); w++) {
                for (long d = 0; d <= deltas; d++) {
                    double gain = score.score(w, d + 1) - score.score(w, d);
                    double tolerance = 1e-9 * Math.max(1, Math.abs(score.score(w, d)));
                    assertEquals(gain, score.slope(w, d), tolerance, score.getClass().getSimpleName() + " worker " + w + ", Delta " + d);
                    assertTrue(score.slope(w, d + 1) <= score.slope(w, d) + tolerance,
                            score.getClass().getSimpleName() + ": the slope rises at worker " + w + ", Delta " + d);
                }
            }
        }
    }

    /** Spec section 5's required identity: BR-H with H=0, alpha=1, beta=G is BR-0, on every state. */
    @Property(seed = "20261208", tries = 300)
    void horizonZeroWithAlphaOneAndBetaGIsBr0(@ForAll("states") State s) {
        PoolState pool = s.build(false).state();
        Br0Score br0 = new Br0Score();
        HorizonScore brh = new HorizonScore(BalanceSettings.defaults().withHorizon(0, 1, s.workers(), 0.64),
                new Fixtures.ConstantPredictor(1));
        br0.prepare(pool);
        brh.prepare(pool);
        long deltas = s.deltas(pool);
        for (int w = 0; w < s.workers(); w++) {
            assertEquals(br0.orderMargin(w), brh.orderMargin(w));
            for (long d = 0; d <= deltas; d++) {
                assertEquals(br0.score(w, d), brh.score(w, d), "worker " + w + ", Delta " + d);
            }
        }
    }
}
