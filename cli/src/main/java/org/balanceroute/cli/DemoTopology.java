package org.balanceroute.cli;

import java.util.ArrayList;
import java.util.List;
import org.balanceroute.api.PoolView;

/**
 * Where the processes of {@code ./balanceroute demo} listen and how they are wired: each simulated
 * decode instance's ports and {@code sim-cluster} command line, the runtimes' and their cluster
 * members' ports, and the pool file of {@code --instances}.
 */
final class DemoTopology {

    /** The Hazelcast member port of replica i is CLUSTER_PORT_BASE + i. */
    static final int CLUSTER_PORT_BASE = 5701;
    /** Simulated decode instance i (0-based) uses the ports from SIM_PORT_BASE + INSTANCE_PORT_STRIDE * i. */
    static final int INSTANCE_PORT_STRIDE = 200;
    static final int RANKS_PER_INSTANCE = 8;
    static final int CAPACITY = PoolView.DEFAULT_CAPACITY;
    static final String POOL_FILE = "org.balanceroute.pool-default.cfg";
    static final int SIM_PORT_BASE = 18100;

    private DemoTopology() {
    }

    /** The first port of simulated decode instance i: prefill servers there, all ranks at +99, rank g at +100+g. */
    static int simPortBase(int simBase, int instance) {
        return simBase + INSTANCE_PORT_STRIDE * instance;
    }

    /** The all-ranks endpoint of simulated decode instance i (its /health and /sim/ endpoints). */
    static String simUrl(int simBase, int instance) {
        return "http://127.0.0.1:" + (simPortBase(simBase, instance) + 99);
    }

    /**
     * The ports checked free before anything starts: the simulated cluster's (each instance's),
     * the runtimes' and, with replicas, their cluster members'.
     */
    static List<Integer> ports(int replicas, int port, int instances, int simBase) {
        List<Integer> ports = new ArrayList<>(List.of(simBase, simBase + 1, simBase + 99, simBase + 100));
        for (int i = 1; i < instances; i++) {
            ports.addAll(List.of(simPortBase(simBase, i) + 99, simPortBase(simBase, i) + 100));
        }
        for (int i = 0; i < replicas; i++) {
            ports.add(port + i);
            if (replicas > 1) {
                ports.add(CLUSTER_PORT_BASE + i);
            }
        }
        return ports;
    }

    /**
     * The {@code sim-cluster} command lines (after java and the class path), one per simulated
     * decode instance: the first with the 2 prefill servers at the default ports; each other one
     * with none, its ports {@link #INSTANCE_PORT_STRIDE} further on, taking the first one's KV
     * handles ({@code --handles-from}): one prefill tier shared by every instance.
     */
    static List<List<String>> simClusterArgs(int instances, double timeFactor, int streamInterval, int simBase) {
        List<List<String>> all = new ArrayList<>();
        for (int i = 0; i < instances; i++) {
            List<String> a = new ArrayList<>(List.of("sim-cluster", "--prefill", i == 0 ? "2" : "0", "--decode",
                    Integer.toString(RANKS_PER_INSTANCE)));
            if (i > 0 || simBase != SIM_PORT_BASE) {
                a.addAll(List.of("--port-base", Integer.toString(simPortBase(simBase, i))));
            }
            if (i > 0) {
                a.addAll(List.of("--handles-from", simUrl(simBase, 0)));
            }
            a.addAll(List.of("--time-factor", Double.toString(timeFactor), "--stream-interval",
                    Integer.toString(streamInterval)));
            all.add(a);
        }
        return all;
    }

    /**
     * The pool file of {@code --instances}: the model, the first instance's prefill servers, and
     * the {@code simInstances} * 8 decode ranks listed as {@code listed} instances: as many as
     * there are (group-aware), or 1 (flat: what a router blind to the groups sees).
     */
    static String poolFile(int listed, int simInstances, int simBase) {
        StringBuilder b = new StringBuilder();
        b.append("# written by ./balanceroute demo --instances ").append(simInstances).append(": ")
                .append(listed == 1 ? "flat, every rank as one instance" : "group-aware, one instance per barrier")
                .append("\nmodel = balanceroute-sim\naliases =\nprefillUrls = http://127.0.0.1:").append(simBase)
                .append(", http://127.0.0.1:").append(simBase + 1).append('\n');
        List<String> names = new ArrayList<>();
        for (int i = 0; i < listed; i++) {
            names.add(listed == 1 ? "flat" : "decode" + i);
        }
        b.append("instances = ").append(String.join(", ", names)).append('\n');
        int perListed = simInstances * RANKS_PER_INSTANCE / listed;
        for (int i = 0; i < listed; i++) {
            List<String> urls = new ArrayList<>();
            for (int w = i * perListed; w < (i + 1) * perListed; w++) {
                int instance = w / RANKS_PER_INSTANCE;
                urls.add("http://127.0.0.1:" + (simPortBase(simBase, instance) + 100 + w % RANKS_PER_INSTANCE));
            }
            b.append("instance.").append(names.get(i)).append(".workers = ").append(String.join(", ", urls)).append('\n');
            b.append("instance.").append(names.get(i)).append(".capacity = ").append(CAPACITY).append('\n');
        }
        return b.toString();
    }
}
