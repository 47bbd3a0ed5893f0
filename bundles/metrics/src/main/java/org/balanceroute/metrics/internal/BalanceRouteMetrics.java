package org.balanceroute.metrics.internal;

import io.prometheus.client.Collector.MetricFamilySamples;
import io.prometheus.client.Collector.MetricFamilySamples.Sample;
import io.prometheus.client.Collector.Type;
import io.prometheus.client.CollectorRegistry;
import io.prometheus.client.Counter;
import io.prometheus.client.Histogram;
import io.prometheus.client.exporter.common.TextFormat;
import java.io.IOException;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;
import org.balanceroute.api.BarrierFigures;
import org.balanceroute.api.PoolSnapshot;
import org.balanceroute.fleet.Fleet;
import org.balanceroute.fleet.PoolTopology;
import org.balanceroute.proxy.ProxyObserver;
import org.balanceroute.router.DispatchObserver;
import org.balanceroute.router.ReplicaShare;
import org.balanceroute.router.ReplicasStatus;
import org.osgi.service.component.annotations.Component;

/**
 * The metrics of the runtime, in a Prometheus simpleclient registry of their own (not the
 * library's default registry, which other bundles may share).
 *
 * <p>Two kinds: what the router's and the proxy's hooks report as it happens (dispatch step
 * latency, running means of the imbalance, TTFT, TPOT, requests by outcome: counters, histograms
 * and atomic sums updated without allocation or lock), and what a scrape reads from the router's
 * snapshot (per-worker KV load, running and queued requests, draining, pool depth, current
 * imbalance).
 *
 * <p>A scrape reads every pool from its own router ({@link PoolState}). Per-worker metrics carry
 * {@code pool}, {@code instance} (the decode instance's name in the fleet's topology) and
 * {@code worker} (the worker's index in its pool); per-instance ones {@code pool} and
 * {@code instance}; per-pool ones (pool depth, imbalance, decode step, active policy, the prefill
 * tier) {@code pool}. The pool's imbalance is the sum over its instances of each one's max - min
 * over its workers not draining (one instance: the classic {@code max_g L_g - min_g L_g}). The step
 * hook's figures (step latency, running means) are kept per pool ({@link StepStats}): the router
 * names the pool that stepped, and a scrape shows those of the pools it lists.
 */
@Component(service = {BalanceRouteMetrics.class, DispatchObserver.class, ProxyObserver.class}, immediate = true)
public final class BalanceRouteMetrics implements DispatchObserver, ProxyObserver {

    static final String PREFIX = "balanceroute_";
    static final String WORKER_LOAD = PREFIX + "worker_kv_load_tokens";
    static final String WORKER_RUNNING = PREFIX + "worker_running_requests";
    static final String WORKER_QUEUED = PREFIX + "worker_queued_requests";
    static final String WORKER_AVAILABLE = PREFIX + "worker_available";
    static final String WORKER_DRAINING = PREFIX + "worker_draining";
    static final String INSTANCE_IMBALANCE = PREFIX + "instance_imbalance_tokens";
    static final String INSTANCE_IMBALANCE_MEAN = PREFIX + "instance_imbalance_mean_tokens";
    static final String INSTANCE_IDLE = PREFIX + "instance_barrier_idle_tokens";
    static final String INSTANCE_IDLE_MEAN = PREFIX + "instance_barrier_idle_mean_tokens";
    static final String INSTANCE_WASTE = PREFIX + "instance_barrier_waste_ratio";
    static final String INSTANCE_WASTE_MEAN = PREFIX + "instance_barrier_waste_mean_ratio";
    /** Counters: the family's name; its samples end in {@code _total}. */
    static final String INSTANCE_STEPS = PREFIX + "instance_steps";
    static final String STRAGGLER_STEPS = PREFIX + "straggler_steps";
    static final String POOL_DEPTH = PREFIX + "pool_depth";
    static final String IMBALANCE = PREFIX + "imbalance_tokens";
    static final String IMBALANCE_MEAN = PREFIX + "imbalance_mean_tokens";
    static final String STEP_DURATION = PREFIX + "dispatch_step_duration_seconds";
    static final String TTFT = PREFIX + "time_to_first_token_seconds";
    static final String TPOT = PREFIX + "time_per_output_token_seconds";
    static final String REQUESTS = PREFIX + "requests";
    static final String OUTPUT_TOKENS = PREFIX + "output_tokens";
    static final String DECODE_STEP = PREFIX + "decode_step_seconds";
    static final String PREFILL_IN_FLIGHT = PREFIX + "prefill_in_flight_requests";
    static final String PREFILL_QUEUED = PREFIX + "prefill_queued_requests";
    static final String CLUSTER_MEMBERS = PREFIX + "cluster_members";
    static final String CLUSTER_DISPATCHER = PREFIX + "cluster_is_dispatcher";
    static final String CLUSTER_STALENESS = PREFIX + "cluster_view_staleness_seconds";
    static final String MEMBER_LOAD = PREFIX + "member_worker_kv_load_tokens";
    static final String MEMBER_RUNNING = PREFIX + "member_worker_running_requests";
    static final String MEMBER_POOLED = PREFIX + "member_pooled_requests";
    static final String ACTIVE_POLICY = PREFIX + "pool_active_policy";

    /** The prefill tier as the connector sees it: prefills running per instance, and waiting for a slot. */
    public record PrefillTier(int[] inFlight, int queued) {
    }

    /**
     * One pool as a scrape reads it from its own router and connector.
     *
     * @param name the pool's name
     * @param topology its topology in the fleet (the instances' names), or null without one
     * @param snapshot its router's snapshot, or null when the router cannot answer (its router
     *     gauges are left out)
     * @param cluster its router's membership and shares, or null when it cannot answer (left out)
     * @param activePolicy the policy its router uses now, or null (left out)
     * @param decodeStepNanos the decode step period its router observes, 0 while unknown
     * @param prefill its connector's prefill counts, or null without a connector (left out)
     */
    public record PoolState(String name, PoolTopology topology, PoolSnapshot snapshot, ReplicasStatus replicas,
            String activePolicy, long decodeStepNanos, PrefillTier prefill) {
    }

    private static final double NANOS = 1e9;
    /** A step's wasted fraction is summed in these units (a long, so an atomic add). */
    private static final double WASTE_UNIT = 1e-9;

    private static final String STEP_DURATION_HELP =
            "Duration of one dispatch step on the pool's dispatch thread (placement decisions and bookkeeping)";
    private static final double[] STEP_BUCKETS = {1e-6, 2.5e-6, 5e-6, 1e-5, 2.5e-5, 5e-5, 1e-4, 2.5e-4, 5e-4, 1e-3,
        2.5e-3, 5e-3, 1e-2, 2.5e-2, 0.1, 0.5};

    private final CollectorRegistry registry = new CollectorRegistry(true);
    private final Histogram ttft = Histogram.build().name(TTFT)
            .help("Time from a streaming request's arrival at the proxy to its first token")
            .buckets(0.001, 0.005, 0.01, 0.02, 0.04, 0.06, 0.08, 0.1, 0.25, 0.5, 0.75, 1.0, 2.5, 5.0, 7.5, 10.0,
                    20.0, 40.0, 80.0, 160.0, 640.0)
            .withoutExemplars().register(registry);
    private final Histogram tpot = Histogram.build().name(TPOT)
            .help("Mean time per output token after the first, per streaming request")
            .buckets(0.001, 0.005, 0.01, 0.025, 0.05, 0.075, 0.1, 0.15, 0.2, 0.3, 0.4, 0.5, 0.75, 1.0, 2.5, 5.0,
                    7.5, 10.0)
            .withoutExemplars().register(registry);
    private final Counter requests = Counter.build().name(REQUESTS)
            .help("Generation requests the proxy finished, by outcome")
            .labelNames("outcome").withoutExemplars().register(registry);
    private final Counter outputTokens = Counter.build().name(OUTPUT_TOKENS)
            .help("Output tokens the proxy relayed: streamed chunks' tokens as they pass, non-streamed answers' "
                    + "completion_tokens")
            .withoutExemplars().register(registry);
    /** One child per outcome, resolved up front: counting needs no label lookup (no allocation). */
    private final Counter.Child[] byOutcome = new Counter.Child[Outcome.values().length];

    /**
     * The step hook's figures by pool name: created on a pool's first step (or first scrape), found
     * without allocation after that; a pool a scrape no longer lists is dropped.
     */
    private final Map<String, StepStats> stepStats = new ConcurrentHashMap<>();

    /**
     * One pool's step figures: its step latency histogram (unregistered, unlabelled: the scrape adds
     * the {@code pool} label), its imbalance summed over its steps and their number (the running
     * mean's terms), and its instances' sums. Its steps come from its dispatch loop one at a time,
     * maybe from different threads over time: atomics and a volatile array, no lock.
     */
    static final class StepStats {
        final Histogram duration = Histogram.build().name(STEP_DURATION).help(STEP_DURATION_HELP)
                .buckets(STEP_BUCKETS).withoutExemplars().create();
        final AtomicLong imbalanceSum = new AtomicLong();
        final AtomicLong steps = new AtomicLong();
        /**
         * Per decode instance i (layout order), at {@code SUMS * i +}: {@link #IMBALANCE_SUM} its
         * imbalance summed over the steps that reported it, {@link #STEPS} their number,
         * {@link #IDLE_SUM} its idle capacity summed, {@link #WASTE_SUM} its wasted fraction summed
         * (in units of WASTE_UNIT). Replaced by a longer or shorter copy (the instances kept keep
         * their sums, a new one starts from 0) when the pool's router reports another number of
         * instances: with the pool's creation, the only allocation of the step hook.
         */
        volatile AtomicLongArray instanceSums = new AtomicLongArray(0);
        static final int SUMS = 4;
        static final int IMBALANCE_SUM = 0;
        static final int STEPS = 1;
        static final int IDLE_SUM = 2;
        static final int WASTE_SUM = 3;
        /**
         * Per worker (its index in the pool): the steps at which it was its instance's straggler.
         * Grown when a higher index is the straggler (the only other allocation); never shrunk, so
         * the counters stay monotonic.
         */
        volatile AtomicLongArray stragglerSteps = new AtomicLongArray(0);

        /** The latency and the running mean's terms. */
        void step(long durationNanos, long imbalance) {
            duration.observe(durationNanos / NANOS);
            imbalanceSum.addAndGet(imbalance);
            steps.incrementAndGet();
        }

        /** Each instance's running sums (its imbalance only); {@code groupImbalances} is read here and not kept. */
        void instances(long[] groupImbalances) {
            int n = groupImbalances.length;
            AtomicLongArray sums = sized(n);
            for (int i = 0; i < n; i++) {
                sums.addAndGet(SUMS * i + IMBALANCE_SUM, groupImbalances[i]);
                sums.incrementAndGet(SUMS * i + STEPS);
            }
        }

        /** Each instance's running sums and straggler; {@code barrier} is read here and not kept. */
        void instances(BarrierFigures barrier) {
            int n = barrier.instances();
            AtomicLongArray sums = sized(n);
            for (int i = 0; i < n; i++) {
                int at = SUMS * i;
                sums.addAndGet(at + IMBALANCE_SUM, barrier.imbalance(i));
                sums.incrementAndGet(at + STEPS);
                sums.addAndGet(at + IDLE_SUM, barrier.idle(i));
                sums.addAndGet(at + WASTE_SUM, Math.round(barrier.wasteFraction(i) / WASTE_UNIT));
                int straggler = barrier.straggler(i);
                if (straggler >= 0) {
                    AtomicLongArray counts = stragglerSteps;
                    if (straggler >= counts.length()) {
                        counts = grown(counts, straggler + 1);
                    }
                    counts.incrementAndGet(straggler);
                }
            }
        }

        /** The per-instance sums for {@code instances}, the first ones carried over; published. */
        private AtomicLongArray sized(int instances) {
            AtomicLongArray old = instanceSums;
            if (old.length() == SUMS * instances) {
                return old;
            }
            AtomicLongArray sums = new AtomicLongArray(SUMS * instances);
            for (int k = 0, end = Math.min(old.length(), sums.length()); k < end; k++) {
                sums.set(k, old.get(k));
            }
            instanceSums = sums;
            return sums;
        }

        private AtomicLongArray grown(AtomicLongArray old, int workers) {
            AtomicLongArray counts = new AtomicLongArray(workers);
            for (int g = 0; g < old.length(); g++) {
                counts.set(g, old.get(g));
            }
            stragglerSteps = counts;
            return counts;
        }
    }

    public BalanceRouteMetrics() {
        for (Outcome o : Outcome.values()) {
            byOutcome[o.ordinal()] = requests.labels(o.label());
        }
    }

    /**
     * A step without the pool's name nor per-instance figures: the latency and the running mean
     * only, counted for the pool named {@code default} ({@link Fleet#DEFAULT_POOL}). No allocation
     * (but once for the pool), no lock.
     */
    @Override
    public void stepCompleted(long durationNanos, long imbalance, int poolDepth) {
        stats(Fleet.DEFAULT_POOL).step(durationNanos, imbalance);
    }

    /**
     * A step without the pool's name: counted for the pool named {@code default}
     * ({@link Fleet#DEFAULT_POOL}), as {@link #stepCompleted(String, long, long, int, long[])}.
     */
    @Override
    public void stepCompleted(long durationNanos, long imbalance, int poolDepth, long[] groupImbalances) {
        stepCompleted(Fleet.DEFAULT_POOL, durationNanos, imbalance, poolDepth, groupImbalances);
    }

    /**
     * A step of pool {@code pool}'s router with each instance's imbalance (the one the router
     * calls): the pool's latency, running mean and each of its instances' running sums.
     * {@code groupImbalances} is read here and not kept. On the pool's dispatch thread: no
     * allocation (but once for the pool and once when its number of instances changes), no lock.
     */
    @Override
    public void stepCompleted(String pool, long durationNanos, long imbalance, int poolDepth, long[] groupImbalances) {
        StepStats stats = stats(pool);
        stats.step(durationNanos, imbalance);
        stats.instances(groupImbalances);
    }

    /**
     * A step of pool {@code pool}'s router with each instance's barrier (the one the router calls):
     * the pool's latency, running mean, each of its instances' running sums and the straggler
     * counts. {@code barrier} is read here and not kept. On the pool's dispatch thread: no
     * allocation (but once for the pool, when its number of instances changes, and when a higher
     * worker index is a straggler), no lock.
     */
    @Override
    public void stepCompleted(String pool, long durationNanos, int poolDepth, BarrierFigures barrier) {
        StepStats stats = stats(pool);
        stats.step(durationNanos, barrier.imbalance());
        stats.instances(barrier);
    }

    /** Pool {@code pool}'s step figures, created the first time (a map lookup without allocation after). */
    private StepStats stats(String pool) {
        StepStats stats = stepStats.get(pool);
        return stats != null ? stats : stepStats.computeIfAbsent(pool, p -> new StepStats());
    }

    @Override
    public void firstToken(long nanos) {
        ttft.observe(nanos / NANOS);
    }

    @Override
    public void timePerOutputToken(long nanosPerToken) {
        tpot.observe(nanosPerToken / NANOS);
    }

    @Override
    public void requestEnded(Outcome outcome) {
        byOutcome[outcome.ordinal()].inc();
    }

    @Override
    public void outputTokens(int tokens) {
        outputTokens.inc(tokens);
    }

    /**
     * The exposition, Prometheus text format 0.0.4.
     *
     * @param pools every pool, the primary one first (the cluster-wide gauges are read from its
     *     router); the step figures of a pool not listed are dropped
     */
    public String scrape(List<PoolState> pools) {
        List<MetricFamilySamples> families = new ArrayList<>(snapshotFamilies(pools));
        families.addAll(prefillFamilies(pools));
        families.addAll(clusterFamilies(pools));
        families.addAll(stepFamilies(pools));
        families.removeIf(f -> f.samples.isEmpty()); // what no pool has is left out, not announced empty
        families.addAll(Collections.list(registry.metricFamilySamples()));
        StringWriter out = new StringWriter();
        try {
            TextFormat.write004(out, Collections.enumeration(families));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return out.toString();
    }

    /** The prefill tier of every pool that has a connector; none without one. */
    static List<MetricFamilySamples> prefillFamilies(List<PoolState> pools) {
        List<Sample> running = new ArrayList<>();
        List<Sample> queued = new ArrayList<>();
        for (PoolState pool : pools) {
            PrefillTier p = pool.prefill();
            if (p == null) {
                continue;
            }
            for (int i = 0; i < p.inFlight().length; i++) {
                running.add(new Sample(PREFILL_IN_FLIGHT, Labels.POOL_INSTANCE, List.of(pool.name(), Integer.toString(i)),
                        p.inFlight()[i]));
            }
            queued.add(new Sample(PREFILL_QUEUED, Labels.POOL, List.of(pool.name()), p.queued()));
        }
        if (queued.isEmpty()) {
            return List.of();
        }
        return List.of(
                new MetricFamilySamples(PREFILL_IN_FLIGHT, Type.GAUGE,
                        "Prefills running on the prefill instance (at most the connector's prefillMaxInFlight)", running),
                new MetricFamilySamples(PREFILL_QUEUED, Type.GAUGE,
                        "Prefills waiting in the connector for a prefill slot (a full queue answers 429)", queued));
    }

    /**
     * The step hook's figures of every pool listed, labelled with its own names: the step latency
     * histogram (zero counts before the pool's first step), the pool's running mean (0 before it) and
     * each instance's (from the instance's first step). The figures of pools no longer listed are
     * dropped.
     */
    List<MetricFamilySamples> stepFamilies(List<PoolState> pools) {
        Set<String> listed = new HashSet<>();
        List<Sample> durations = new ArrayList<>();
        List<Sample> poolMeans = new ArrayList<>(pools.size());
        List<Sample> perInstance = new ArrayList<>();
        List<Sample> idleMeans = new ArrayList<>();
        List<Sample> wasteMeans = new ArrayList<>();
        List<Sample> steps = new ArrayList<>();
        List<Sample> stragglers = new ArrayList<>();
        for (PoolState pool : pools) {
            if (!listed.add(pool.name())) {
                continue;
            }
            StepStats stats = stats(pool.name());
            for (MetricFamilySamples f : stats.duration.collect()) {
                for (Sample s : f.samples) {
                    List<String> names = new ArrayList<>(s.labelNames.size() + 1);
                    names.add("pool");
                    names.addAll(s.labelNames);
                    List<String> values = new ArrayList<>(s.labelValues.size() + 1);
                    values.add(pool.name());
                    values.addAll(s.labelValues);
                    durations.add(new Sample(s.name, names, values, s.value));
                }
            }
            long n = stats.steps.get();
            poolMeans.add(new Sample(IMBALANCE_MEAN, Labels.POOL, List.of(pool.name()),
                    n == 0 ? 0 : (double) stats.imbalanceSum.get() / n));
            Labels labels = Labels.of(pool.name(), pool.topology(), pool.snapshot());
            AtomicLongArray sums = stats.instanceSums;
            for (int i = 0; i < sums.length() / StepStats.SUMS; i++) {
                int at = StepStats.SUMS * i;
                long count = sums.get(at + StepStats.STEPS);
                if (count > 0) {
                    List<String> label = List.of(labels.pool(), labels.instance(i));
                    perInstance.add(new Sample(INSTANCE_IMBALANCE_MEAN, Labels.POOL_INSTANCE, label,
                            (double) sums.get(at + StepStats.IMBALANCE_SUM) / count));
                    idleMeans.add(new Sample(INSTANCE_IDLE_MEAN, Labels.POOL_INSTANCE, label,
                            (double) sums.get(at + StepStats.IDLE_SUM) / count));
                    wasteMeans.add(new Sample(INSTANCE_WASTE_MEAN, Labels.POOL_INSTANCE, label,
                            sums.get(at + StepStats.WASTE_SUM) * WASTE_UNIT / count));
                    steps.add(new Sample(INSTANCE_STEPS + "_total", Labels.POOL_INSTANCE, label, count));
                }
            }
            AtomicLongArray counts = stats.stragglerSteps;
            int workers = pool.snapshot() == null ? 0 : pool.snapshot().workers();
            for (int g = 0; g < workers; g++) {
                stragglers.add(new Sample(STRAGGLER_STEPS + "_total", Labels.POOL_INSTANCE_WORKER,
                        List.of(labels.pool(), labels.instanceOfWorker(g), Integer.toString(g)),
                        g < counts.length() ? counts.get(g) : 0));
            }
        }
        stepStats.keySet().retainAll(listed);
        return List.of(
                new MetricFamilySamples(STEP_DURATION, Type.HISTOGRAM, STEP_DURATION_HELP, durations),
                new MetricFamilySamples(IMBALANCE_MEAN, Type.GAUGE,
                        "Running mean over the dispatch steps since start of the pool's imbalance (the sum over "
                                + "its decode instances of max - min L_g over each one's workers not draining), KV tokens",
                        poolMeans),
                new MetricFamilySamples(INSTANCE_IMBALANCE_MEAN, Type.GAUGE,
                        "Running mean over the dispatch steps since start of the decode instance's max - min L_g "
                                + "over its workers not draining, KV tokens", perInstance),
                new MetricFamilySamples(INSTANCE_IDLE_MEAN, Type.GAUGE,
                        "Running mean over the dispatch steps since start of the decode instance's idle capacity "
                                + "G*M - sum L_g (M its heaviest worker's load, over its workers not draining), KV tokens",
                        idleMeans),
                new MetricFamilySamples(INSTANCE_WASTE_MEAN, Type.GAUGE,
                        "Running mean over the dispatch steps since start of the fraction of a decode step the "
                                + "instance's barrier wastes under the step law T ~ L: 1 - mean L_g / M", wasteMeans),
                new MetricFamilySamples(INSTANCE_STEPS, Type.COUNTER,
                        "Dispatch steps the decode instance was measured at (the straggler share's denominator)", steps),
                new MetricFamilySamples(STRAGGLER_STEPS, Type.COUNTER,
                        "Dispatch steps at which the worker was its decode instance's straggler: heavier than every "
                                + "other worker of the instance not draining", stragglers));
    }

    /**
     * The cluster of proxies: the members, the dispatcher and the staleness from the first pool whose
     * router answers (the primary), each member's share of every pool's workers and prompt pool.
     */
    static List<MetricFamilySamples> clusterFamilies(List<PoolState> pools) {
        List<String> memberWorker = List.of("member", "pool", "instance", "worker");
        List<String> memberPool = List.of("member", "pool");
        List<Sample> load = new ArrayList<>();
        List<Sample> run = new ArrayList<>();
        List<Sample> pooled = new ArrayList<>();
        ReplicasStatus first = null;
        for (PoolState pool : pools) {
            ReplicasStatus c = pool.replicas();
            if (c == null) {
                continue;
            }
            first = first == null ? c : first;
            Labels labels = Labels.of(pool.name(), pool.topology(), pool.snapshot());
            for (ReplicaShare s : c.members()) {
                long[] loads = s.loads();
                int[] running = s.running();
                for (int g = 0; g < loads.length; g++) {
                    List<String> values = List.of(s.member(), labels.pool(), labels.instanceOfWorker(g),
                            Integer.toString(g));
                    load.add(new Sample(MEMBER_LOAD, memberWorker, values, loads[g]));
                    run.add(new Sample(MEMBER_RUNNING, memberWorker, values, running[g]));
                }
                pooled.add(new Sample(MEMBER_POOLED, memberPool, List.of(s.member(), labels.pool()), s.pooled()));
            }
        }
        if (first == null) {
            return List.of();
        }
        List<String> quantile = List.of("quantile");
        ReplicasStatus.Staleness st = first.staleness();
        List<Sample> staleness = st.samples() == 0 ? List.of() : List.of(
                new Sample(CLUSTER_STALENESS, quantile, List.of("0.5"), st.p50Millis() / 1e3),
                new Sample(CLUSTER_STALENESS, quantile, List.of("0.99"), st.p99Millis() / 1e3),
                new Sample(CLUSTER_STALENESS + "_count", List.of(), List.of(), st.samples()));
        return List.of(
                new MetricFamilySamples(CLUSTER_MEMBERS, Type.GAUGE,
                        "Proxy replicas in the cluster (1 for a runtime of its own)",
                        List.of(new Sample(CLUSTER_MEMBERS, List.of(), List.of(), first.members().size()))),
                new MetricFamilySamples(CLUSTER_DISPATCHER, Type.GAUGE,
                        "1 on the replica that dispatches for the cluster (the oldest member), else 0",
                        List.of(new Sample(CLUSTER_DISPATCHER, List.of(), List.of(), first.isDispatcher() ? 1 : 0))),
                new MetricFamilySamples(MEMBER_LOAD, Type.GAUGE,
                        "KV cache tokens the replica's own requests hold on the decode worker (its share of L_g)", load),
                new MetricFamilySamples(MEMBER_RUNNING, Type.GAUGE,
                        "Requests of the replica running on the decode worker", run),
                new MetricFamilySamples(MEMBER_POOLED, Type.GAUGE,
                        "Requests of the replica waiting in the pool's prompt pool", pooled),
                new MetricFamilySamples(CLUSTER_STALENESS, Type.SUMMARY,
                        "From a token seen by one replica to this replica's view holding it, over the last "
                                + "samples (one host's clock)", staleness));
    }

    /**
     * What every pool's router tells: per worker, per instance and per pool; a pool whose router
     * does not answer is left out of the router's gauges. Per worker: one label list and five
     * samples, as with one pool.
     */
    static List<MetricFamilySamples> snapshotFamilies(List<PoolState> pools) {
        List<String> worker = Labels.POOL_INSTANCE_WORKER;
        int workers = 0;
        for (PoolState pool : pools) {
            workers += pool.snapshot() == null ? 0 : pool.snapshot().workers();
        }
        List<Sample> load = new ArrayList<>(workers);
        List<Sample> up = new ArrayList<>(workers);
        List<Sample> run = new ArrayList<>(workers);
        List<Sample> queue = new ArrayList<>(workers);
        List<Sample> drain = new ArrayList<>(workers);
        List<Sample> perInstance = new ArrayList<>();
        List<Sample> idle = new ArrayList<>();
        List<Sample> waste = new ArrayList<>();
        List<Sample> depth = new ArrayList<>(pools.size());
        List<Sample> poolImbalance = new ArrayList<>(pools.size());
        List<Sample> step = new ArrayList<>(pools.size());
        List<Sample> policy = new ArrayList<>(pools.size());
        for (PoolState pool : pools) {
            List<String> poolLabel = List.of(pool.name());
            step.add(new Sample(DECODE_STEP, Labels.POOL, poolLabel, pool.decodeStepNanos() / NANOS));
            if (pool.activePolicy() != null) {
                policy.add(new Sample(ACTIVE_POLICY, List.of("pool", "policy"), List.of(pool.name(), pool.activePolicy()), 1));
            }
            PoolSnapshot s = pool.snapshot();
            if (s == null) {
                continue;
            }
            Labels labels = Labels.of(pool.name(), pool.topology(), s);
            long[] loads = s.loads();
            int[] running = s.running();
            int[] queued = s.queued();
            boolean[] available = s.available();
            boolean[] draining = s.draining();
            for (int g = 0; g < loads.length; g++) {
                List<String> label = List.of(labels.pool(), labels.instanceOfWorker(g), Integer.toString(g));
                load.add(new Sample(WORKER_LOAD, worker, label, loads[g]));
                run.add(new Sample(WORKER_RUNNING, worker, label, running[g]));
                queue.add(new Sample(WORKER_QUEUED, worker, label, queued[g]));
                up.add(new Sample(WORKER_AVAILABLE, worker, label, available[g] ? 1 : 0));
                drain.add(new Sample(WORKER_DRAINING, worker, label, draining[g] ? 1 : 0));
            }
            BarrierFigures barrier = s.barrier();
            for (int i = 0; i < barrier.instances(); i++) {
                List<String> label = List.of(labels.pool(), labels.instance(i));
                perInstance.add(new Sample(INSTANCE_IMBALANCE, Labels.POOL_INSTANCE, label, barrier.imbalance(i)));
                idle.add(new Sample(INSTANCE_IDLE, Labels.POOL_INSTANCE, label, barrier.idle(i)));
                waste.add(new Sample(INSTANCE_WASTE, Labels.POOL_INSTANCE, label, barrier.wasteFraction(i)));
            }
            long imbalance = barrier.imbalance();
            depth.add(new Sample(POOL_DEPTH, Labels.POOL, poolLabel, s.poolDepth()));
            poolImbalance.add(new Sample(IMBALANCE, Labels.POOL, poolLabel, imbalance));
        }
        return List.of(
                new MetricFamilySamples(WORKER_LOAD, Type.GAUGE,
                        "KV cache tokens held by the requests running on the decode worker (L_g)", load),
                new MetricFamilySamples(WORKER_RUNNING, Type.GAUGE,
                        "Requests running on the decode worker", run),
                new MetricFamilySamples(WORKER_QUEUED, Type.GAUGE,
                        "Requests queued at the decode worker (arrival policies, worker full)", queue),
                new MetricFamilySamples(WORKER_AVAILABLE, Type.GAUGE,
                        "1 while the decode worker takes new requests, 0 while its health checks fail", up),
                new MetricFamilySamples(WORKER_DRAINING, Type.GAUGE,
                        "1 while an operator drains the decode worker (draining or drained: no new requests), else 0",
                        drain),
                new MetricFamilySamples(POOL_DEPTH, Type.GAUGE,
                        "Requests waiting in the pool's prompt pool for a dispatch step", depth),
                new MetricFamilySamples(INSTANCE_IMBALANCE, Type.GAUGE,
                        "Current max - min L_g over the decode instance's workers not draining (0 with fewer than "
                                + "two), KV tokens", perInstance),
                new MetricFamilySamples(INSTANCE_IDLE, Type.GAUGE,
                        "Current idle capacity of the decode instance at its barrier: G*M - sum L_g over its workers "
                                + "not draining (M the heaviest one's load), KV tokens", idle),
                new MetricFamilySamples(INSTANCE_WASTE, Type.GAUGE,
                        "Current fraction of a decode step the instance's barrier wastes under the step law T ~ L: "
                                + "1 - mean L_g / M (0 when nothing runs)", waste),
                new MetricFamilySamples(IMBALANCE, Type.GAUGE,
                        "Current imbalance of the pool: the sum over its decode instances of max - min L_g over each "
                                + "one's workers not draining, KV tokens", poolImbalance),
                new MetricFamilySamples(DECODE_STEP, Type.GAUGE,
                        "Decode step period the pool's router observes in the token streams (the dispatch cadence); "
                                + "0 while unknown", step),
                new MetricFamilySamples(ACTIVE_POLICY, Type.GAUGE,
                        "1 for the routing policy the pool's router uses now (label policy)", policy));
    }

    /**
     * The label values of one pool in a scrape: its name, and its instances' names from the
     * fleet's topology; without one, each instance's index. The names are used only while the topology has as many instances as the router's
     * snapshot (a layout change not yet applied is labelled by index meanwhile).
     */
    record Labels(String pool, List<String> names, int[] groups, PoolTopology topology) {

        static final List<String> POOL = List.of("pool");
        static final List<String> POOL_INSTANCE = List.of("pool", "instance");
        static final List<String> POOL_INSTANCE_WORKER = List.of("pool", "instance", "worker");

        static Labels of(String name, PoolTopology pool, PoolSnapshot s) {
            if (pool == null) {
                return new Labels(name, List.of(), s == null ? null : s.groups(), null);
            }
            boolean named = s == null || pool.instances().size() == s.groupCount();
            List<String> names = named ? pool.instances().stream().map(i -> i.name()).toList() : List.of();
            return new Labels(name, names, s == null ? null : s.groups(), pool);
        }

        /** Instance i's label value: its name, or its index. */
        String instance(int i) {
            return i < names.size() ? names.get(i) : Integer.toString(i);
        }

        /** The label value of the instance worker g belongs to (the snapshot's groups, else the topology's). */
        String instanceOfWorker(int g) {
            if (groups != null && g < groups.length) {
                return instance(groups[g]);
            }
            if (topology != null && g < topology.workers().size()) {
                return instance(topology.instanceOf(g));
            }
            return instance(0);
        }
    }
}
