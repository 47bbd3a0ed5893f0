package org.balanceroute.router.internal;

import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.Map;
import org.balanceroute.api.BarrierFigures;
import org.balanceroute.api.CompletionListener;
import org.balanceroute.api.DispatchStep;
import org.balanceroute.api.PoolView;
import org.balanceroute.api.RequestView;
import org.balanceroute.api.RoutingPolicy;
import org.balanceroute.api.TerminationPredictor;
import org.balanceroute.router.DispatchObserver;

/**
 * The policies, predictors, completion listeners and the step observer as every pool's dispatch
 * loop sees them: one service object each, shared by all pools, so each call goes through one
 * lock common to all of them. Why: the SPI promises a policy (and what it calls: its predictor)
 * is "never called concurrently", and a predictor learns from completions while a policy reads
 * it; with one dispatch thread per pool, only a common lock keeps that promise. With one pool it
 * is never contended (a few nanoseconds per call); two pools that dispatch at the same instant
 * take turns.
 *
 * <p>Wrappers are made once per service (bind time), never per call.
 */
final class SharedPlugins {

    /** Held around every call into a shared plugin from a dispatch thread. */
    private final Object lock = new Object();
    /** Wrappers of the policies last offered, by service object; replaced whole (bind threads, under this). */
    private Map<RoutingPolicy, RoutingPolicy> policyWrappers = new IdentityHashMap<>();
    private final Map<CompletionListener, CompletionListener> listenerWrappers = new IdentityHashMap<>(); // guarded by this

    /** The policies by name, each behind the common lock (the same wrapper for the same service). */
    synchronized Map<String, RoutingPolicy> policies(Map<String, RoutingPolicy> byName) {
        Map<RoutingPolicy, RoutingPolicy> next = new IdentityHashMap<>();
        Map<String, RoutingPolicy> out = new LinkedHashMap<>();
        byName.forEach((name, p) -> {
            RoutingPolicy w = policyWrappers.get(p);
            next.put(p, w == null ? new Policy(p) : w);
            out.put(name, next.get(p));
        });
        policyWrappers = next;
        return out;
    }

    /** A completion listener (a predictor, the tuner's record) behind the common lock. */
    synchronized CompletionListener listener(CompletionListener l) {
        return listenerWrappers.computeIfAbsent(l, Listener::new);
    }

    /** Forgets a listener's wrapper (unbound). */
    synchronized void forget(CompletionListener l) {
        listenerWrappers.remove(l);
    }

    /** The step observer for one pool's loop: told the pool's name, behind the common lock. */
    DispatchObserver observer(DispatchObserver o, String pool) {
        return o == null ? null : new PoolObserver(o, pool);
    }

    private final class Policy implements RoutingPolicy {
        private final RoutingPolicy p;

        Policy(RoutingPolicy p) {
            this.p = p;
        }

        @Override
        public String name() {
            return p.name();
        }

        @Override
        public boolean usesPromptPool() {
            return p.usesPromptPool();
        }

        @Override
        public int route(PoolView view, RequestView request) {
            synchronized (lock) {
                return p.route(view, request);
            }
        }

        @Override
        public void dispatch(DispatchStep step) {
            synchronized (lock) {
                p.dispatch(step);
            }
        }

        @Override
        public Map<String, Object> parameters() {
            return p.parameters(); // any thread, by the SPI
        }

        @Override
        public String toString() {
            return p.toString();
        }
    }

    private final class Listener implements CompletionListener {
        private final CompletionListener l;

        Listener(CompletionListener l) {
            this.l = l;
        }

        @Override
        public void onCompleted(RequestView request, int outputTokens) {
            synchronized (lock) {
                l.onCompleted(request, outputTokens);
            }
        }

        @Override
        public String toString() {
            return l instanceof TerminationPredictor t ? "predictor " + t.name() : "completion listener " + l;
        }
    }

    private static final long[] NO_GROUPS = {};

    private final class PoolObserver implements DispatchObserver {
        private final DispatchObserver o;
        private final String pool;

        PoolObserver(DispatchObserver o, String pool) {
            this.o = o;
            this.pool = pool;
        }

        @Override
        public void stepCompleted(long durationNanos, long imbalance, int poolDepth) {
            stepCompleted(durationNanos, imbalance, poolDepth, NO_GROUPS);
        }

        @Override
        public void stepCompleted(long durationNanos, long imbalance, int poolDepth, long[] groupImbalances) {
            synchronized (lock) {
                o.stepCompleted(pool, durationNanos, imbalance, poolDepth, groupImbalances);
            }
        }

        @Override
        public void stepCompleted(long durationNanos, int poolDepth, BarrierFigures barrier) {
            synchronized (lock) {
                o.stepCompleted(pool, durationNanos, poolDepth, barrier);
            }
        }
    }
}
