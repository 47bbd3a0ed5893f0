package org.balanceroute.policy.example;

import java.util.Map;
import org.balanceroute.api.PoolView;
import org.balanceroute.api.RequestView;
import org.balanceroute.api.RoutingPolicy;
import org.balanceroute.api.config.ConfigProperties;
import org.balanceroute.api.config.ConfigurationException;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Modified;
import org.osgi.service.metatype.annotations.AttributeDefinition;
import org.osgi.service.metatype.annotations.Designate;
import org.osgi.service.metatype.annotations.ObjectClassDefinition;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * An example of a policy shipped in its own bundle, to show the hot-deploy workflow: dropped
 * into {@code deploy/}, it registers as {@code least-running} and can be selected through
 * {@code PUT /admin/policy}; removed while active, the router falls back. It brings its own
 * tunable, {@code queuedWeight}, described by its own metatype ({@link Config}) for the PID its
 * {@code balanceroute.policy.pid} property names: the admin API and the web console show it and
 * validate changes against it, with nothing to change elsewhere.
 *
 * <p>The rule is deliberately simple: at arrival, the available worker with the lowest
 * {@code running + queuedWeight * queued} (ties: lowest index). With the default weight 0 it ignores queued
 * requests and KV load, so it is no better than jsq; weight 1 is jsq.
 *
 * <p>Config-or-error: a weight outside [{@value #MIN_QUEUED_WEIGHT}, {@value #MAX_QUEUED_WEIGHT}]
 * or not a number (written by hand; the admin API refuses it first) is logged and the weight in
 * force stays; at activation it fails the activation. Threading: {@link #route} runs on the router's dispatch thread, {@link #modified}
 * on the configuration thread; the weight and its parameter map are published together through
 * a volatile field.
 */
@Component(name = LeastRunningPolicy.PID, service = RoutingPolicy.class,
        property = {RoutingPolicy.NAME_PROPERTY + "=" + LeastRunningPolicy.NAME,
            RoutingPolicy.CONFIG_PID_PROPERTY + "=" + LeastRunningPolicy.PID})
@Designate(ocd = LeastRunningPolicy.Config.class)
public final class LeastRunningPolicy implements RoutingPolicy {

    public static final String NAME = "least-running";
    /** The configuration PID of its tunable. */
    public static final String PID = "org.balanceroute.policy.example";

    /** The configuration property of its one tunable. */
    public static final String QUEUED_WEIGHT = "queuedWeight";
    public static final int DEFAULT_QUEUED_WEIGHT = 0;
    public static final int MIN_QUEUED_WEIGHT = 0;
    public static final int MAX_QUEUED_WEIGHT = 16;

    @ObjectClassDefinition(name = "BalanceRoute example policy: least-running",
            description = "The hot-deploy example: at arrival, the worker with the fewest running "
                    + "requests, queued ones counted queuedWeight times.")
    @interface Config {

        @AttributeDefinition(name = "Queued weight", min = "" + MIN_QUEUED_WEIGHT, max = "" + MAX_QUEUED_WEIGHT,
                description = "How many running requests a queued one counts as (0: queued requests are "
                        + "ignored; 1: join the shortest queue). Integer in [" + MIN_QUEUED_WEIGHT + ", "
                        + MAX_QUEUED_WEIGHT + "]; default " + DEFAULT_QUEUED_WEIGHT + ".")
        int queuedWeight() default DEFAULT_QUEUED_WEIGHT;
    }

    private static final Logger LOG = LoggerFactory.getLogger(LeastRunningPolicy.class);

    private record Current(int queuedWeight, Map<String, Object> parameters) {

        Current(int queuedWeight) {
            this(queuedWeight, Map.of(QUEUED_WEIGHT, queuedWeight));
        }
    }

    private volatile Current current = new Current(DEFAULT_QUEUED_WEIGHT);

    /** With the default weight (tests, plain Java). */
    public LeastRunningPolicy() {
    }

    /** @throws ConfigurationException if the configuration is invalid (the activation fails) */
    @Activate
    public LeastRunningPolicy(Map<String, Object> properties) {
        current = new Current(queuedWeight(ConfigProperties.of(PID, properties)));
    }

    /** A valid weight applies; an invalid one is logged and the weight in force stays. */
    @Modified
    void modified(Map<String, Object> properties) {
        ConfigProperties.readUpdate(PID, properties, LeastRunningPolicy::queuedWeight,
                e -> LOG.error("policy {}: configuration rejected: {}; keeping {}", NAME, e.getMessage(),
                        current.queuedWeight()))
                .filter(w -> w != current.queuedWeight())
                .ifPresent(w -> current = new Current(w));
    }

    private static int queuedWeight(ConfigProperties c) {
        return c.intValue(QUEUED_WEIGHT, DEFAULT_QUEUED_WEIGHT, MIN_QUEUED_WEIGHT, MAX_QUEUED_WEIGHT);
    }

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public boolean usesPromptPool() {
        return false;
    }

    @Override
    public int route(PoolView view, RequestView request) {
        long w = current.queuedWeight();
        boolean anyAvailable = view.availableWorkers() > 0;
        int best = 0;
        long bestScore = Long.MAX_VALUE;
        for (int g = 0; g < view.workers(); g++) {
            if (anyAvailable && !view.available(g)) {
                continue; // its engine fails its health check
            }
            long score = view.running(g) + w * view.queued(g);
            if (score < bestScore) {
                best = g;
                bestScore = score;
            }
        }
        return best;
    }

    @Override
    public Map<String, Object> parameters() {
        return current.parameters();
    }
}
