package org.balanceroute.simulator;

import org.balanceroute.api.DispatchStep;
import org.balanceroute.api.PoolView;
import org.balanceroute.api.PromptPoolView;
import org.balanceroute.api.RequestView;
import org.balanceroute.api.RoutingPolicy;
import org.balanceroute.policy.balance.BalancePolicy;
import org.balanceroute.policy.balance.BalanceSettings;

/**
 * {@code jsq-br0}, a two-level comparison rule for several decode instances, for the simulator
 * only: not shipped to the runtime as a policy (package-private, no DS component, not in
 * {@link PolicyCatalog#NAMES}; {@code simulate --policies jsq-br0} runs it by name). JSQ across
 * instances, then BR-0 within one.
 * What a router that balances instances by request counts (as a proxy in front of several
 * instances would) and runs BR-0 inside each would do, to set against BR-0 judging every rank
 * against its own instance's barrier ({@code br0}).
 *
 * <p>At each dispatch, every waiting request, oldest first, is given to the instance with the
 * fewest outstanding requests (running + queued, plus those already given to it in this
 * dispatch) per slot (G_i * B_i), among the instances with a free slot; ties: the lower index.
 * Per slot, so that a smaller instance is not filled first; with instances of one size it is
 * the plain count. Then each instance, in order, places its share with BR-0's two-stage dispatch
 * ({@link BalancePolicy#br0}) over a view of that instance alone; what it leaves waits in the pool
 * for the next dispatch, where it is given again. Arrival routing (an all-down pool held the
 * request) picks the instance the same way and the worker by BR-0's bypass rule within it.
 * With one instance this is {@code br0}.
 */
final class JsqThenBr0Policy implements RoutingPolicy {

    static final String NAME = "jsq-br0";

    private final BalancePolicy br0;
    private int[] owner = new int[16];
    private int[] given = new int[0];

    JsqThenBr0Policy(BalanceSettings settings) {
        this.br0 = BalancePolicy.br0(settings);
    }

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public boolean usesPromptPool() {
        return true;
    }

    @Override
    public int route(PoolView view, RequestView request) {
        int[] none = new int[view.groups()];
        int i = instance(view, none, true);
        if (i < 0) {
            i = instance(view, none, false);
        }
        Instance part = new Instance(view, i);
        return view.groupStart(i) + br0.route(part, request);
    }

    @Override
    public void dispatch(DispatchStep step) {
        PoolView view = step.view();
        PromptPoolView pool = step.pool();
        int n = pool.size();
        if (owner.length < n) {
            owner = new int[Math.max(n, 2 * owner.length)];
        }
        if (given.length != view.groups()) {
            given = new int[view.groups()];
        }
        java.util.Arrays.fill(given, 0);
        for (int p = 0; p < n; p++) {
            int i = instance(view, given, true);
            owner[p] = i;
            if (i >= 0) {
                given[i]++;
            }
        }
        for (int i = 0; i < view.groups(); i++) {
            if (given[i] > 0) {
                br0.dispatch(new Share(step, i, n));
                n = pool.size();
            }
        }
    }

    /**
     * The instance with the fewest outstanding requests per slot, counting {@code given} more on
     * each; with {@code needSlot} only among instances with a free slot (-1 if none has one).
     */
    private static int instance(PoolView view, int[] given, boolean needSlot) {
        int best = -1;
        double bestScore = Double.POSITIVE_INFINITY;
        for (int i = 0; i < view.groups(); i++) {
            int outstanding = given[i], slots = 0, free = 0, available = 0;
            for (int g = view.groupStart(i), end = g + view.groupSize(i); g < end; g++) {
                outstanding += view.outstanding(g);
                slots += view.capacity(g);
                free += view.freeSlots(g);
                available += view.available(g) ? 1 : 0;
            }
            if ((needSlot && free == 0) || available == 0) {
                continue;
            }
            double score = (double) outstanding / slots;
            if (score < bestScore) {
                best = i;
                bestScore = score;
            }
        }
        return best;
    }

    /**
     * The dispatch of one instance: its workers numbered from 0, the waiting requests given to it
     * (oldest first); assignments go through to the whole step.
     */
    private final class Share implements DispatchStep, PromptPoolView {

        private final DispatchStep step;
        private final int group;
        private final Instance view;
        /** Pool positions of this instance's requests, ascending. */
        private final int[] positions;
        private int size;
        private int poolSize;

        Share(DispatchStep step, int group, int poolSize) {
            this.step = step;
            this.group = group;
            this.view = new Instance(step.view(), group);
            this.poolSize = poolSize;
            this.positions = new int[given[group]];
            for (int p = 0; p < poolSize; p++) {
                if (owner[p] == group) {
                    positions[size++] = p;
                }
            }
        }

        @Override
        public PoolView view() {
            return view;
        }

        @Override
        public PromptPoolView pool() {
            return this;
        }

        @Override
        public void assign(int poolIndex, int worker) {
            step.assign(take(poolIndex), view.start + worker);
        }

        @Override
        public void assignQueued(int poolIndex, int worker) {
            step.assignQueued(take(poolIndex), view.start + worker);
        }

        /** The whole pool's position of share position i, which leaves both. */
        private int take(int i) {
            if (i < 0 || i >= size) {
                throw new IllegalArgumentException("pool index " + i + " out of range [0, " + size + ")");
            }
            int p = positions[i];
            System.arraycopy(positions, i + 1, positions, i, size - i - 1);
            size--;
            for (int k = i; k < size; k++) {
                positions[k]--;
            }
            System.arraycopy(owner, p + 1, owner, p, poolSize - p - 1);
            poolSize--;
            return p;
        }

        @Override
        public int size() {
            return size;
        }

        @Override
        public RequestView get(int index) {
            if (index < 0 || index >= size) {
                throw new IndexOutOfBoundsException("pool index " + index + " out of range [0, " + size + ")");
            }
            return step.pool().get(positions[index]);
        }
    }

    /** One decode instance of a cluster as a cluster of its own: its workers numbered from 0, one barrier. */
    static final class Instance implements PoolView {

        private final PoolView view;
        final int start;
        private final int size;

        Instance(PoolView view, int group) {
            this.view = view;
            this.start = view.groupStart(group);
            this.size = view.groupSize(group);
        }

        @Override
        public int workers() {
            return size;
        }

        @Override
        public int capacity() {
            int max = 0;
            for (int g = 0; g < size; g++) {
                max = Math.max(max, view.capacity(start + g));
            }
            return max;
        }

        @Override
        public int capacity(int worker) {
            return view.capacity(start + worker);
        }

        @Override
        public boolean draining(int worker) {
            return view.draining(start + worker);
        }

        @Override
        public long step() {
            return view.step();
        }

        @Override
        public long load(int worker) {
            return view.load(start + worker);
        }

        @Override
        public int running(int worker) {
            return view.running(start + worker);
        }

        @Override
        public int queued(int worker) {
            return view.queued(start + worker);
        }

        @Override
        public long queuedTokens(int worker) {
            return view.queuedTokens(start + worker);
        }

        @Override
        public long inFlightBytes(int worker) {
            return view.inFlightBytes(start + worker);
        }

        @Override
        public RequestView active(int worker, int index) {
            return view.active(start + worker, index);
        }

        @Override
        public boolean available(int worker) {
            return view.available(start + worker);
        }

        @Override
        public int freeSlots(int worker) {
            return view.freeSlots(start + worker);
        }
    }
}
