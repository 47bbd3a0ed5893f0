package org.balanceroute.fleet;

import java.util.ArrayList;
import java.util.List;

/**
 * One pool: the served model it answers for, its prefill instances and its decode instances.
 * Workers are numbered 0.. over the pool, instance by instance in configuration order (the
 * router's worker g, the metrics' {@code worker} label, the admin API's {@code {worker}}).
 * Immutable.
 *
 * @param name the pool's name (the factory configuration's name: {@code org.balanceroute.pool~NAME})
 * @param model the served model name clients send in {@code model}; {@link #ANY_MODEL} for a pool
 *     that answers every name (the pool migrated from a configuration without pools)
 * @param aliases other names clients may send for it (the engine is sent {@code model})
 * @param prefillUrls the prefill instances; empty: co-located mode, no prefill hop
 * @param instances the decode instances, at least one
 * @param policy the routing policy of this pool's router by name; "" for the router's
 *     configured {@code policy} (a pool whose file names none)
 */
public record PoolTopology(String name, String model, List<String> aliases, List<String> prefillUrls,
        List<DecodeInstance> instances, String policy) {

    /** The model of a pool that takes requests for any model name. */
    public static final String ANY_MODEL = "*";

    public PoolTopology {
        aliases = List.copyOf(aliases);
        prefillUrls = List.copyOf(prefillUrls);
        instances = List.copyOf(instances);
        policy = policy == null ? "" : policy;
    }

    /** A pool that routes with the router's configured policy. */
    public PoolTopology(String name, String model, List<String> aliases, List<String> prefillUrls,
            List<DecodeInstance> instances) {
        this(name, model, aliases, prefillUrls, instances, "");
    }

    /** Its decode instances as the log names them: {@code a (8 x B 64), b (4 x B 128)}. */
    public String describeInstances() {
        StringBuilder b = new StringBuilder();
        for (DecodeInstance i : instances) {
            b.append(b.length() == 0 ? "" : ", ").append(i.name()).append(" (").append(i.workers().size())
                    .append(" x B ").append(i.capacity()).append(')');
        }
        return b.toString();
    }

    /** The model and its aliases: every name a request may give to reach this pool. */
    public List<String> modelNames() {
        List<String> names = new ArrayList<>(aliases.size() + 1);
        names.add(model);
        names.addAll(aliases);
        return names;
    }

    /** Whether a request naming {@code requested} belongs here. */
    public boolean serves(String requested) {
        return ANY_MODEL.equals(model) || model.equals(requested) || aliases.contains(requested);
    }

    /** Every decode worker, instance by instance. */
    public List<Endpoint> workers() {
        List<Endpoint> all = new ArrayList<>();
        for (DecodeInstance i : instances) {
            all.addAll(i.workers());
        }
        return all;
    }

    /** Every decode worker's identity ({@link Endpoint#id()}), in worker order. */
    public List<String> workerIds() {
        return workers().stream().map(Endpoint::id).toList();
    }

    /** G of each instance, in order. */
    public int[] groupSizes() {
        return instances.stream().mapToInt(i -> i.workers().size()).toArray();
    }

    /** B of each instance, in order. */
    public int[] capacities() {
        return instances.stream().mapToInt(DecodeInstance::capacity).toArray();
    }

    /** The index of the instance worker g belongs to. */
    public int instanceOf(int worker) {
        int start = 0;
        for (int i = 0; i < instances.size(); i++) {
            start += instances.get(i).workers().size();
            if (worker < start) {
                return i;
            }
        }
        throw new IndexOutOfBoundsException("pool " + name + " has no worker " + worker);
    }

    /** The first worker of instance i. */
    public int firstWorker(int instance) {
        int start = 0;
        for (int i = 0; i < instance; i++) {
            start += instances.get(i).workers().size();
        }
        return start;
    }

    /** The index of the instance of that name, -1 if none. */
    public int instanceIndex(String instanceName) {
        for (int i = 0; i < instances.size(); i++) {
            if (instances.get(i).name().equals(instanceName)) {
                return i;
            }
        }
        return -1;
    }
}
