package org.balanceroute.metrics.internal;

import io.prometheus.client.Collector.MetricFamilySamples;
import io.prometheus.client.Collector.MetricFamilySamples.Sample;
import io.prometheus.client.Collector.Type;
import io.prometheus.client.CollectorRegistry;
import io.prometheus.client.Counter;
import io.prometheus.client.Gauge;
import io.prometheus.client.Histogram;
import io.prometheus.client.exporter.common.TextFormat;
import java.io.IOException;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;
import org.balanceroute.api.ClusterSnapshot;
import org.balanceroute.fleet.Fleet;
import org.balanceroute.fleet.PoolTopology;
import org.balanceroute.proxy.ProxyObserver;
import org.balanceroute.router.ClusterStatus;
import org.balanceroute.router.ReplicaShare;
import org.balanceroute.router.DispatchObserver;
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
 * <p>Per-worker metrics carry {@code pool}, {@code instance} (the decode instance's name in the
 * fleet's topology) and {@code worker} (the worker's index in its pool); per-instance ones
 * {@code pool} and {@code instance}. The pool-level imbalance metrics keep their names and no
 * label: they are the sum over the pool's instances of each one's max - min over its workers not
 * draining (one instance: the classic {@code max_g L_g - min_g L_g}).
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
    static final String POOL_DEPTH = PREFIX + "pool_depth";
    static final String IMBALANCE = PREFIX + "imbalance_tokens";
    static final String IMBALANCE_MEAN = PREFIX + "imbalance_mean_tokens";
    static final String STEP_DURATION = PREFIX + "dispatch_step_duration_seconds";
    static final String TTFT = PREFIX + "time_to_first_token_seconds";
    static final String TPOT = PREFIX + "time_per_output_token_seconds";
    static final String REQUESTS = PREFIX + "requests";
    static final String DECODE_STEP = PREFIX + "decode_step_seconds";
    static final String PREFILL_IN_FLIGHT = PREFIX + "prefill_in_flight_requests";
    static final String PREFILL_QUEUED = PREFIX + "prefill_queued_requests";
    static final String CLUSTER_MEMBERS = PREFIX + "cluster_members";
    static final String CLUSTER_DISPATCHER = PREFIX + "cluster_is_dispatcher";
    static final String CLUSTER_STALENESS = PREFIX + "cluster_view_staleness_seconds";
    static final String MEMBER_LOAD = PREFIX + "member_worker_kv_load_tokens";
    static final String MEMBER_RUNNING = PREFIX + "member_worker_running_requests";
    static final String MEMBER_POOLED = PREFIX + "member_pooled_requests";

    /** The prefill tier as the connector sees it: prefills running per instance, and waiting for a slot. */
    public record PrefillTier(int[] inFlight, int queued) {
    }

    private static final double NANOS = 1e9;

    private final CollectorRegistry registry = new CollectorRegistry(true);
    private final Histogram stepDuration = Histogram.build().name(STEP_DURATION)
            .help("Duration of one dispatch step on the router's dispatch thread (placement decisions and bookkeeping)")
            .buckets(1e-6, 2.5e-6, 5e-6, 1e-5, 2.5e-5, 5e-5, 1e-4, 2.5e-4, 5e-4, 1e-3, 2.5e-3, 5e-3, 1e-2, 2.5e-2,
                    0.1, 0.5)
            .withoutExemplars().register(registry);
    private final Gauge decodeStep = Gauge.build().name(DECODE_STEP)
            .help("Decode step period the router observes in the token streams (the dispatch cadence); 0 while unknown")
            .register(registry);
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
    /** One child per outcome, resolved up front: counting needs no label lookup (no allocation). */
    private final Counter.Child[] byOutcome = new Counter.Child[Outcome.values().length];

    /** The pool's imbalance summed over the dispatch steps, and their number (the running mean's terms). */
    private final AtomicLong imbalanceSum = new AtomicLong();
    private final AtomicLong steps = new AtomicLong();
    /**
     * Per decode instance i (layout order): at 2i its imbalance summed over the steps that reported
     * it, at 2i+1 their number. Replaced by a longer or shorter copy (the instances kept keep their
     * sums, a new one starts from 0) when the router reports another number of instances: the only
     * allocation of the step hook, once per layout change.
     */
    private volatile AtomicLongArray instanceSums = new AtomicLongArray(0);

    public BalanceRouteMetrics() {
        for (Outcome o : Outcome.values()) {
            byOutcome[o.ordinal()] = requests.labels(o.label());
        }
    }

    /**
     * A step without per-instance figures: the latency and the pool's running mean only. On the
     * dispatch thread: no allocation, no lock (atomic adds).
     */
    @Override
    public void stepCompleted(long durationNanos, long imbalance, int poolDepth) {
        stepDuration.observe(durationNanos / NANOS);
        imbalanceSum.addAndGet(imbalance);
        steps.incrementAndGet();
    }

    /**
     * A step with each instance's imbalance (the one the router calls): the pool's figures as
     * above, and each instance's running sum. {@code groupImbalances} is read here and not kept. No
     * allocation (but once when the number of instances changes), no lock.
     */
    @Override
    public void stepCompleted(long durationNanos, long imbalance, int poolDepth, long[] groupImbalances) {
        stepCompleted(durationNanos, imbalance, poolDepth);
        int n = groupImbalances.length;
        AtomicLongArray sums = instanceSums;
        if (sums.length() != 2 * n) {
            sums = resized(sums, n);
        }
        for (int i = 0; i < n; i++) {
            sums.addAndGet(2 * i, groupImbalances[i]);
            sums.incrementAndGet(2 * i + 1);
        }
    }

    /** The per-instance sums for {@code instances}, the first ones carried over; published. */
    private AtomicLongArray resized(AtomicLongArray old, int instances) {
        AtomicLongArray sums = new AtomicLongArray(2 * instances);
        for (int k = 0, end = Math.min(old.length(), sums.length()); k < end; k++) {
            sums.set(k, old.get(k));
        }
        instanceSums = sums;
        return sums;
    }

    /** The router's observed decode step period, read at each scrape. */
    public void decodeStep(long nanos) {
        decodeStep.set(nanos / NANOS);
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

    /**
     * The exposition, Prometheus text format 0.0.4.
     *
     * @param snapshot the router's cluster snapshot, or null when the router cannot answer (the
     *     per-worker gauges and the pool depth are then left out)
     */
    public String scrape(ClusterSnapshot snapshot) {
        return scrape(snapshot, null);
    }

    /**
     * The exposition with the prefill tier's gauges too.
     *
     * @param prefill the connector's prefill counts, or null when no connector is there (left out)
     */
    public String scrape(ClusterSnapshot snapshot, PrefillTier prefill) {
        return scrape(snapshot, prefill, null);
    }

    /**
     * The exposition with the cluster of proxies too.
     *
     * @param cluster the router's membership and shares, or null when it cannot answer (left out)
     */
    public String scrape(ClusterSnapshot snapshot, PrefillTier prefill, ClusterStatus cluster) {
        return scrape(snapshot, prefill, cluster, null);
    }

    /**
     * The exposition with the fleet's names in the {@code pool} and {@code instance} labels.
     *
     * @param pool the pool the router serves, from the fleet's topology, or null when there is no
     *     fleet service (or no pool yet): {@code pool="default"} and each instance's index
     */
    public String scrape(ClusterSnapshot snapshot, PrefillTier prefill, ClusterStatus cluster, PoolTopology pool) {
        Labels labels = Labels.of(pool, snapshot);
        List<MetricFamilySamples> families = new ArrayList<>();
        if (snapshot != null) {
            families.addAll(snapshotFamilies(snapshot, labels));
        }
        if (prefill != null) {
            families.addAll(prefillFamilies(prefill));
        }
        if (cluster != null) {
            families.addAll(clusterFamilies(cluster, labels));
        }
        families.addAll(meanFamilies(labels));
        families.addAll(Collections.list(registry.metricFamilySamples()));
        StringWriter out = new StringWriter();
        try {
            TextFormat.write004(out, Collections.enumeration(families));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return out.toString();
    }

    static List<MetricFamilySamples> prefillFamilies(PrefillTier p) {
        List<String> instance = List.of("instance");
        List<Sample> running = new ArrayList<>(p.inFlight().length);
        for (int i = 0; i < p.inFlight().length; i++) {
            running.add(new Sample(PREFILL_IN_FLIGHT, instance, List.of(Integer.toString(i)), p.inFlight()[i]));
        }
        return List.of(
                new MetricFamilySamples(PREFILL_IN_FLIGHT, Type.GAUGE,
                        "Prefills running on the prefill instance (at most the connector's prefillMaxInFlight)", running),
                new MetricFamilySamples(PREFILL_QUEUED, Type.GAUGE,
                        "Prefills waiting in the connector for a prefill slot (a full queue answers 429)",
                        List.of(new Sample(PREFILL_QUEUED, List.of(), List.of(), p.queued()))));
    }

    /** The running means of the imbalance: the pool's (unlabelled, 0 before the first step) and each instance's. */
    List<MetricFamilySamples> meanFamilies(Labels labels) {
        long n = steps.get();
        double poolMean = n == 0 ? 0 : (double) imbalanceSum.get() / n;
        AtomicLongArray sums = instanceSums;
        List<Sample> perInstance = new ArrayList<>(sums.length() / 2);
        for (int i = 0; i < sums.length() / 2; i++) {
            long count = sums.get(2 * i + 1);
            if (count > 0) {
                perInstance.add(new Sample(INSTANCE_IMBALANCE_MEAN, Labels.POOL_INSTANCE,
                        List.of(labels.pool(), labels.instance(i)), (double) sums.get(2 * i) / count));
            }
        }
        return List.of(
                new MetricFamilySamples(IMBALANCE_MEAN, Type.GAUGE,
                        "Running mean over the dispatch steps since start of the pool's imbalance (the sum over "
                                + "its decode instances of max - min L_g over each one's workers not draining), KV tokens",
                        List.of(new Sample(IMBALANCE_MEAN, List.of(), List.of(), poolMean))),
                new MetricFamilySamples(INSTANCE_IMBALANCE_MEAN, Type.GAUGE,
                        "Running mean over the dispatch steps since start of the decode instance's max - min L_g "
                                + "over its workers not draining, KV tokens", perInstance));
    }

    static List<MetricFamilySamples> clusterFamilies(ClusterStatus c) {
        return clusterFamilies(c, Labels.of(null, null));
    }

    static List<MetricFamilySamples> clusterFamilies(ClusterStatus c, Labels labels) {
        List<String> memberWorker = List.of("member", "pool", "instance", "worker");
        List<String> member = List.of("member");
        List<Sample> load = new ArrayList<>();
        List<Sample> run = new ArrayList<>();
        List<Sample> pooled = new ArrayList<>();
        for (ReplicaShare s : c.members()) {
            long[] loads = s.loads();
            int[] running = s.running();
            for (int g = 0; g < loads.length; g++) {
                List<String> values = List.of(s.member(), labels.pool(), labels.instanceOfWorker(g),
                        Integer.toString(g));
                load.add(new Sample(MEMBER_LOAD, memberWorker, values, loads[g]));
                run.add(new Sample(MEMBER_RUNNING, memberWorker, values, running[g]));
            }
            pooled.add(new Sample(MEMBER_POOLED, member, List.of(s.member()), s.pooled()));
        }
        List<String> quantile = List.of("quantile");
        ClusterStatus.Staleness st = c.staleness();
        List<Sample> staleness = st.samples() == 0 ? List.of() : List.of(
                new Sample(CLUSTER_STALENESS, quantile, List.of("0.5"), st.p50Millis() / 1e3),
                new Sample(CLUSTER_STALENESS, quantile, List.of("0.99"), st.p99Millis() / 1e3),
                new Sample(CLUSTER_STALENESS + "_count", List.of(), List.of(), st.samples()));
        return List.of(
                new MetricFamilySamples(CLUSTER_MEMBERS, Type.GAUGE,
                        "Proxy replicas in the cluster (1 for a runtime of its own)",
                        List.of(new Sample(CLUSTER_MEMBERS, List.of(), List.of(), c.members().size()))),
                new MetricFamilySamples(CLUSTER_DISPATCHER, Type.GAUGE,
                        "1 on the replica that dispatches for the cluster (the oldest member), else 0",
                        List.of(new Sample(CLUSTER_DISPATCHER, List.of(), List.of(), c.isDispatcher() ? 1 : 0))),
                new MetricFamilySamples(MEMBER_LOAD, Type.GAUGE,
                        "KV cache tokens the replica's own requests hold on the decode worker (its share of L_g)", load),
                new MetricFamilySamples(MEMBER_RUNNING, Type.GAUGE,
                        "Requests of the replica running on the decode worker", run),
                new MetricFamilySamples(MEMBER_POOLED, Type.GAUGE,
                        "Requests of the replica waiting in the cluster-wide prompt pool", pooled),
                new MetricFamilySamples(CLUSTER_STALENESS, Type.SUMMARY,
                        "From a token seen by one replica to this replica's view holding it, over the last "
                                + "samples (one host's clock)", staleness));
    }

    static List<MetricFamilySamples> snapshotFamilies(ClusterSnapshot s) {
        return snapshotFamilies(s, Labels.of(null, s));
    }

    static List<MetricFamilySamples> snapshotFamilies(ClusterSnapshot s, Labels labels) {
        List<String> worker = Labels.POOL_INSTANCE_WORKER;
        long[] loads = s.loads();
        int[] running = s.running();
        int[] queued = s.queued();
        boolean[] available = s.available();
        boolean[] draining = s.draining();
        List<Sample> load = new ArrayList<>(loads.length);
        List<Sample> up = new ArrayList<>(loads.length);
        List<Sample> run = new ArrayList<>(loads.length);
        List<Sample> queue = new ArrayList<>(loads.length);
        List<Sample> drain = new ArrayList<>(loads.length);
        for (int g = 0; g < loads.length; g++) {
            List<String> label = List.of(labels.pool(), labels.instanceOfWorker(g), Integer.toString(g));
            load.add(new Sample(WORKER_LOAD, worker, label, loads[g]));
            run.add(new Sample(WORKER_RUNNING, worker, label, running[g]));
            queue.add(new Sample(WORKER_QUEUED, worker, label, queued[g]));
            up.add(new Sample(WORKER_AVAILABLE, worker, label, available[g] ? 1 : 0));
            drain.add(new Sample(WORKER_DRAINING, worker, label, draining[g] ? 1 : 0));
        }
        int instances = s.groupCount();
        List<Sample> perInstance = new ArrayList<>(instances);
        long imbalance = 0;
        for (int i = 0; i < instances; i++) {
            long gi = s.groupImbalance(i);
            imbalance += gi;
            perInstance.add(new Sample(INSTANCE_IMBALANCE, Labels.POOL_INSTANCE,
                    List.of(labels.pool(), labels.instance(i)), gi));
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
                        "Requests waiting in the prompt pool for a dispatch step",
                        List.of(new Sample(POOL_DEPTH, List.of(), List.of(), s.poolDepth()))),
                new MetricFamilySamples(INSTANCE_IMBALANCE, Type.GAUGE,
                        "Current max - min L_g over the decode instance's workers not draining (0 with fewer than "
                                + "two), KV tokens", perInstance),
                new MetricFamilySamples(IMBALANCE, Type.GAUGE,
                        "Current imbalance of the pool: the sum over its decode instances of max - min L_g over each "
                                + "one's workers not draining, KV tokens",
                        List.of(new Sample(IMBALANCE, List.of(), List.of(), imbalance))));
    }

    /**
     * The label values of one scrape: the pool's name and its instances' names from the fleet's
     * topology; without one ({@code pool} null) {@value Fleet#DEFAULT_POOL} and each instance's
     * index. The names are used only while the topology has as many instances as the router's
     * snapshot (a layout change not yet applied is labelled by index meanwhile).
     */
    record Labels(String pool, List<String> names, int[] groups, PoolTopology topology) {

        static final List<String> POOL_INSTANCE = List.of("pool", "instance");
        static final List<String> POOL_INSTANCE_WORKER = List.of("pool", "instance", "worker");

        static Labels of(PoolTopology pool, ClusterSnapshot s) {
            if (pool == null) {
                return new Labels(Fleet.DEFAULT_POOL, List.of(), s == null ? null : s.groups(), null);
            }
            boolean named = s == null || pool.instances().size() == s.groupCount();
            List<String> names = named ? pool.instances().stream().map(i -> i.name()).toList() : List.of();
            return new Labels(pool.name(), names, s == null ? null : s.groups(), pool);
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
