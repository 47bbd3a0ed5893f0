package org.balanceroute.benchmarks;

import java.util.List;
import java.util.Random;
import org.balanceroute.api.RoutingPolicy;
import org.balanceroute.core.DecodeLayout;
import org.balanceroute.core.PoolState;
import org.balanceroute.core.Router;
import org.balanceroute.core.TrackedRequest;

/**
 * A cluster state to dispatch over, drawn once from a seed and rebuilt on demand through the real
 * {@link Router}: a placer policy puts each running request on its worker at arrival and it is
 * credited with its decoded tokens, a holding pool policy stages the prompt pool, then the policy
 * under test takes over. Every {@link #build} gives the same state, so every measured dispatch
 * step does the same work.
 */
final class Scenario {

    final String label;
    final int workers;
    final int capacity;
    /** Running requests per worker. */
    final int[] running;
    /** Prompt tokens and decoded tokens of the running requests, worker by worker. */
    final int[] runningPrompt;
    final int[] runningDecoded;
    /** Prompt tokens of the waiting requests, oldest first. */
    final int[] poolPrompt;

    private Scenario(String label, int workers, int capacity, int[] running, int[] runningPrompt,
            int[] runningDecoded, int[] poolPrompt) {
        this.label = label;
        this.workers = workers;
        this.capacity = capacity;
        this.running = running;
        this.runningPrompt = runningPrompt;
        this.runningDecoded = runningDecoded;
        this.poolPrompt = poolPrompt;
    }

    /**
     * Heavy-load steady state: every worker runs between {@code minRunning} and
     * {@code maxRunning} requests (uniform), each already decoded 0..{@code maxDecoded} tokens
     * (uniform); Mooncake-like prompts everywhere.
     */
    static Scenario steady(int workers, int capacity, int poolSize, int minRunning, int maxRunning,
            int maxDecoded, long seed) {
        Random random = new Random(seed);
        int[] running = new int[workers];
        int total = 0;
        for (int g = 0; g < workers; g++) {
            running[g] = minRunning + random.nextInt(maxRunning - minRunning + 1);
            total += running[g];
        }
        int[] prompt = new int[total];
        int[] decoded = new int[total];
        for (int i = 0; i < total; i++) {
            prompt[i] = MooncakeLike.promptTokens(random);
            decoded[i] = random.nextInt(maxDecoded + 1);
        }
        return new Scenario("steady", workers, capacity, running, prompt, decoded, pool(random, poolSize));
    }

    /** Abundant capacity: every worker empty, only the pool. */
    static Scenario empty(int workers, int capacity, int poolSize, long seed) {
        Random random = new Random(seed);
        return new Scenario("abundant", workers, capacity, new int[workers], new int[0], new int[0],
                pool(random, poolSize));
    }

    private static int[] pool(Random random, int poolSize) {
        int[] pool = new int[poolSize];
        for (int i = 0; i < poolSize; i++) {
            pool[i] = MooncakeLike.promptTokens(random);
        }
        return pool;
    }

    /** A fresh router holding this state, with {@code policy} in charge. */
    Router build(RoutingPolicy policy) {
        return build(policy, DecodeLayout.single(workers, capacity));
    }

    /**
     * A fresh router holding this state over the decode instances of {@code layout} (its workers
     * must be this state's; worker g keeps its requests whichever instance it falls in), with
     * {@code policy} in charge.
     */
    Router build(RoutingPolicy policy, DecodeLayout layout) {
        if (layout.workers() != workers) {
            throw new IllegalArgumentException("the layout has " + layout.workers() + " workers, the state " + workers);
        }
        StagingPolicies.Placer placer = new StagingPolicies.Placer();
        Router router = new Router(new PoolState(layout), placer, List.of());
        long id = 0;
        int i = 0;
        for (int g = 0; g < workers; g++) {
            placer.target = g;
            for (int n = 0; n < running[g]; n++, i++) {
                TrackedRequest r = new TrackedRequest(id, runningPrompt[i], 0, 0, id);
                id++;
                router.submit(r);
                router.onTokens(r, runningDecoded[i]);
            }
        }
        router.setPolicy(new StagingPolicies.Holding());
        for (int prompt : poolPrompt) {
            router.submit(new TrackedRequest(id, prompt, 0, 0, id));
            id++;
        }
        router.setPolicy(policy);
        return router;
    }

    /** One line describing the state and what one dispatch step of {@code policy} does to it. */
    String describe(RoutingPolicy policy, int sGreedy) {
        return describe(policy, sGreedy, DecodeLayout.single(workers, capacity));
    }

    /** The same over the decode instances of {@code layout}. */
    String describe(RoutingPolicy policy, int sGreedy, DecodeLayout layout) {
        Router router = build(policy, layout);
        PoolState c = router.state();
        int free = 0;
        long sum = 0;
        long max = 0;
        for (int g = 0; g < workers; g++) {
            free += c.freeSlots(g);
            sum += c.load(g);
            max = Math.max(max, c.load(g));
        }
        int pool = router.pool().size();
        int placed = router.dispatch();
        int stage1 = Math.min(pool, Math.max(0, free - sGreedy));
        int freeAfter = 0;
        long maxAfter = 0;
        for (int g = 0; g < workers; g++) {
            freeAfter += c.freeSlots(g);
            maxAfter = Math.max(maxAfter, c.load(g));
        }
        return String.format("[%s G=%d %s] running=%d freeSlots=%d (S_greedy=%d) pool=%d maxLoad=%d "
                        + "imbalance I=%d -> placed=%d (stage1=%d, stage2=%d) freeSlotsAfter=%d maxLoadAfter=%d",
                label, workers, policy.name(), c.totalRunning() - placed, free, sGreedy, pool, max,
                workers * max - sum, placed, stage1, placed - stage1, freeAfter, maxAfter);
    }
}
