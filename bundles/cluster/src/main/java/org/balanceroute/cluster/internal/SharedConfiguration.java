package org.balanceroute.cluster.internal;

import com.hazelcast.core.EntryEvent;
import com.hazelcast.map.IMap;
import com.hazelcast.map.listener.EntryAddedListener;
import com.hazelcast.map.listener.EntryUpdatedListener;
import com.hazelcast.core.HazelcastInstance;
import java.io.IOException;
import java.util.ArrayDeque;
import java.util.Arrays;
import java.util.Collection;
import java.util.Deque;
import java.util.Dictionary;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Hashtable;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.osgi.framework.InvalidSyntaxException;
import org.osgi.service.cm.Configuration;
import org.osgi.service.cm.ConfigurationAdmin;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps chosen configuration PIDs the same on every replica, through ConfigAdmin on each: the
 * cluster holds the last value of each PID in the IMap {@value MemberConfigs#CONFIG_MAP} (PID to
 * {@link ConfigCodec} bytes); a local change (ConfigAdmin update: a {@code .cfg} edit that
 * FileInstall applied, {@code PUT /admin/policy}, the web console) is put there, and every
 * replica applies the map's entry events to its own ConfigAdmin, where FileInstall writes them
 * back to that replica's {@code config/} file.
 *
 * <p><b>No ping-pong.</b> A change is sent only when the local properties, normalized
 * ({@link ConfigCodec#normalized}: framework keys left out, values as text), differ from the last
 * value this replica saw in the cluster; applying a cluster value records it first, so the local
 * update event it causes is recognised and not sent back.
 *
 * <p><b>Convergence.</b> All members see a key's entry events in the same order (the key's
 * partition orders them), and every member applies them in that order, its own included, so
 * concurrent changes on two replicas end with both holding the map's last value. Two exceptions
 * keep a replica's own newer change: an event of its own that a later put of its own follows is
 * skipped (it would briefly set the older value back), and an event that arrives while a local
 * change is not yet sent makes that change be sent first (it then comes later in the map, and
 * wins).
 *
 * <p><b>Joining.</b> For a PID the cluster already holds, the cluster's value wins over the
 * joining replica's (logged at INFO); a PID the cluster lacks is put by the joiner
 * ({@code putIfAbsent}). A PID whose file FileInstall loads only after the join (first seen with
 * {@value ConfigCodec#FILEINSTALL_FILENAME}) is treated as joining too, so a stale file does not
 * override the cluster. A deleted configuration is not shared (deleting a file affects that
 * replica only); ConfigAdmin persists an applied value only on a replica whose {@code config/}
 * has the PID's file (every default shared PID has one).
 *
 * <p><b>Threading.</b> One thread of its own does all the work in order (the initial
 * reconciliation, local events, cluster events); Hazelcast's and ConfigAdmin's event threads only
 * enqueue.
 */
final class SharedConfiguration {

    private static final Logger LOG = LoggerFactory.getLogger(SharedConfiguration.class);

    private final HazelcastInstance hazelcast;
    private final ConfigurationAdmin configurationAdmin;
    private final Set<String> pids;
    private final ExecutorService worker = Executors.newSingleThreadExecutor(r -> {
        Thread t = new Thread(r, "balanceroute-shared-config");
        t.setDaemon(true);
        return t;
    });
    /** Worker thread only: per PID, the normalized value last seen in (or put to) the cluster. */
    private final Map<String, Map<String, String>> lastKnown = new HashMap<>();
    /** Worker thread only: PIDs seen with a FileInstall file. */
    private final Set<String> withFile = new HashSet<>();
    /** Worker thread only: per PID, the values this replica put whose entry event has not come back. */
    private final Map<String, Deque<byte[]>> inFlight = new HashMap<>();
    private volatile IMap<String, byte[]> map;
    private volatile UUID listenerRegistration;

    SharedConfiguration(HazelcastInstance hazelcast, ConfigurationAdmin configurationAdmin, Collection<String> pids) {
        this.hazelcast = hazelcast;
        this.configurationAdmin = configurationAdmin;
        this.pids = Set.copyOf(pids);
    }

    /** Registers the cluster listener and reconciles every PID, on the worker thread; returns at once. */
    void start() {
        if (pids.isEmpty()) {
            return;
        }
        worker.execute(() -> {
            try {
                IMap<String, byte[]> m = hazelcast.getMap(MemberConfigs.CONFIG_MAP);
                map = m;
                listenerRegistration = m.addEntryListener(new ClusterListener(), true);
                for (String pid : List.copyOf(pids)) {
                    join(pid);
                }
            } catch (RuntimeException e) {
                LOG.error("shared configuration: not started: {}", e.toString(), e);
            }
        });
    }

    /** Stops listening; no change is applied or sent after this returns (bounded wait). */
    void stop() {
        worker.shutdown();
        try {
            if (!worker.awaitTermination(5, TimeUnit.SECONDS)) {
                worker.shutdownNow();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        IMap<String, byte[]> m = map;
        UUID r = listenerRegistration;
        if (m != null && r != null && hazelcast.getLifecycleService().isRunning()) {
            try {
                m.removeEntryListener(r);
            } catch (RuntimeException e) {
                LOG.debug("shared configuration: listener not removed: {}", e.toString());
            }
        }
    }

    /** A local ConfigAdmin update of a PID (any thread). */
    void localChanged(String pid) {
        if (pids.contains(pid)) {
            submit(() -> local(pid));
        }
    }

    /** Waits until the work queued so far is done (tests). */
    boolean awaitIdle(long timeout, TimeUnit unit) throws InterruptedException {
        try {
            worker.submit(() -> { }).get(timeout, unit);
            return true;
        } catch (java.util.concurrent.ExecutionException | java.util.concurrent.TimeoutException
                 | java.util.concurrent.RejectedExecutionException e) {
            return false;
        }
    }

    private void submit(Runnable task) {
        try {
            worker.execute(() -> {
                try {
                    task.run();
                } catch (RuntimeException e) {
                    LOG.warn("shared configuration: {}", e.toString(), e);
                }
            });
        } catch (java.util.concurrent.RejectedExecutionException e) {
            // stopped
        }
    }

    /** The initial reconciliation of one PID. */
    private void join(String pid) {
        Local local = readLocal(pid);
        if (local != null && local.filename != null) {
            withFile.add(pid);
        }
        byte[] clusterValue = map.get(pid);
        if (clusterValue == null && local != null) {
            byte[] mine = encodeOrNull(pid, local.properties);
            if (mine == null) {
                return;
            }
            clusterValue = map.putIfAbsent(pid, mine);
            if (clusterValue == null) {
                lastKnown.put(pid, ConfigCodec.normalized(local.properties));
                LOG.info("shared configuration {}: the cluster had none; this replica's is now the cluster's", pid);
                return;
            }
        }
        if (clusterValue != null) {
            applyCluster(pid, clusterValue, local, "joining: the cluster's value replaces this replica's");
        }
    }

    /** A local change of one PID. */
    private void local(String pid) {
        Local local = readLocal(pid);
        if (local == null) {
            return; // deleted: not shared
        }
        local(pid, local);
    }

    private void local(String pid, Local local) {
        boolean fileAppeared = local.filename != null && withFile.add(pid);
        Map<String, String> normalized = ConfigCodec.normalized(local.properties);
        if (normalized.equals(lastKnown.get(pid))) {
            return; // what the cluster has (typically: the update this replica applied from it)
        }
        if (fileAppeared) {
            byte[] clusterValue = map.get(pid);
            if (clusterValue != null) {
                applyCluster(pid, clusterValue, local, "its file was loaded after the join: the cluster's value "
                        + "replaces the file's");
                return;
            }
        }
        byte[] mine = encodeOrNull(pid, local.properties);
        if (mine == null) {
            return;
        }
        lastKnown.put(pid, normalized);
        inFlight.computeIfAbsent(pid, k -> new ArrayDeque<>()).add(mine);
        map.set(pid, mine);
        LOG.info("shared configuration {}: changed on this replica; sent to the cluster", pid);
    }

    /** A cluster entry event (this replica's own included). */
    private void remote(String pid, byte[] value, boolean own, String from) {
        if (own) {
            Deque<byte[]> mine = inFlight.getOrDefault(pid, new ArrayDeque<>());
            boolean found = mine.stream().anyMatch(v -> Arrays.equals(v, value));
            while (found && !mine.isEmpty() && !Arrays.equals(mine.poll(), value)) {
                // values put before this one: their events were lost or are behind
            }
            if (!mine.isEmpty()) {
                return; // a later put of this replica's follows
            }
        }
        Local local = readLocal(pid);
        Map<String, String> known = lastKnown.get(pid);
        if (local != null && known != null && !ConfigCodec.normalized(local.properties).equals(known)) {
            local(pid, local); // a local change not sent yet: sent now, after this value in the map
            return;
        }
        applyCluster(pid, value, local, own ? "this replica's change came back" : "changed on replica " + from);
    }

    private void applyCluster(String pid, byte[] value, Local local, String why) {
        Map<String, Object> properties;
        try {
            properties = ConfigCodec.decode(value);
        } catch (IllegalArgumentException e) {
            LOG.error("shared configuration {}: the cluster's value cannot be read ({}); ignored", pid, e.getMessage());
            return;
        }
        Map<String, String> normalized = ConfigCodec.normalized(properties);
        lastKnown.put(pid, normalized);
        if (local != null && normalized.equals(ConfigCodec.normalized(local.properties))) {
            return;
        }
        try {
            Configuration c = local != null ? local.configuration : configurationAdmin.getConfiguration(pid, "?");
            Hashtable<String, Object> next = new Hashtable<>();
            // a .cfg file keeps plain "key = value" lines when FileInstall writes it back: scalars as text
            boolean plainFile = local != null && local.filename != null && local.filename.endsWith(".cfg");
            properties.forEach((k, v) -> next.put(k, plainFile && !v.getClass().isArray()
                    && !(v instanceof Collection) ? String.valueOf(v) : v));
            if (local != null && local.filename != null) {
                next.put(ConfigCodec.FILEINSTALL_FILENAME, local.filename);
            }
            c.update(next);
            LOG.info("shared configuration {}: {}; applied", pid, why);
        } catch (IOException | RuntimeException e) {
            LOG.error("shared configuration {}: the cluster's value could not be applied: {}", pid, e.toString());
        }
    }

    private static byte[] encodeOrNull(String pid, Map<String, Object> properties) {
        try {
            return ConfigCodec.encode(properties);
        } catch (IllegalArgumentException e) {
            LOG.error("shared configuration {}: not shared: {}", pid, e.getMessage());
            return null;
        }
    }

    /** A PID's configuration here: its properties (framework keys left out) and its file, if any. */
    private record Local(Configuration configuration, Map<String, Object> properties, String filename) {
    }

    private Local readLocal(String pid) {
        try {
            Configuration[] found = configurationAdmin.listConfigurations("(service.pid=" + pid + ")");
            if (found == null || found.length == 0) {
                return null;
            }
            Dictionary<String, Object> d = found[0].getProperties();
            if (d == null) {
                return null;
            }
            Object filename = d.get(ConfigCodec.FILEINSTALL_FILENAME);
            return new Local(found[0], ConfigCodec.properties(d), filename instanceof String s ? s : null);
        } catch (IOException | InvalidSyntaxException e) {
            LOG.warn("shared configuration {}: cannot read this replica's configuration: {}", pid, e.toString());
            return null;
        }
    }

    private final class ClusterListener implements EntryAddedListener<String, byte[]>,
            EntryUpdatedListener<String, byte[]> {

        @Override
        public void entryAdded(EntryEvent<String, byte[]> e) {
            onEvent(e);
        }

        @Override
        public void entryUpdated(EntryEvent<String, byte[]> e) {
            onEvent(e);
        }

        private void onEvent(EntryEvent<String, byte[]> e) {
            String pid = e.getKey();
            byte[] value = e.getValue();
            if (pids.contains(pid) && value != null) {
                boolean own = e.getMember() != null && e.getMember().localMember();
                String from = e.getMember() == null ? "?" : HazelcastSnapshotStore.idOf(e.getMember());
                submit(() -> remote(pid, value, own, from));
            }
        }
    }
}
