package org.balanceroute.cluster.internal;

import com.hazelcast.core.HazelcastInstance;
import java.util.Dictionary;
import java.util.Hashtable;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.balanceroute.api.SnapshotStore;
import org.balanceroute.api.config.ConfigProperties;
import org.osgi.framework.BundleContext;
import org.osgi.framework.ServiceRegistration;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.ConfigurationPolicy;
import org.osgi.service.component.annotations.Deactivate;
import org.osgi.service.component.annotations.Modified;
import org.osgi.service.metatype.annotations.AttributeDefinition;
import org.osgi.service.metatype.annotations.Designate;
import org.osgi.service.metatype.annotations.ObjectClassDefinition;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * This replica's Hazelcast member, configured by PID {@value ClusterSettings#PID}, and the
 * {@link SnapshotStore} service over it ({@code balanceroute.snapshot.store=hazelcast}).
 *
 * <p><b>Lifecycle.</b> The member starts on a thread of its own (activation returns at once:
 * joining takes a second or more); once it is up, the component registers the internal
 * {@link RunningMember} service (the shared configuration depends on it) and then the
 * {@code SnapshotStore}. Deactivation unregisters both first, so the router leaves the store
 * before the member goes, then shuts the member down gracefully, bounded
 * ({@value #SHUTDOWN_BOUND_SECONDS} s, then terminated). The configuration is required: without
 * {@code org.balanceroute.cluster.cfg} nothing starts.
 *
 * <p><b>Reconfiguration</b> re-creates the member: a valid new configuration stops the member
 * (as deactivation does) and starts one with the new settings; the replica id stays
 * ({@link ReplicaId}). Config-or-error: an invalid configuration is logged naming the PID and the
 * property, and the member in force stays as it is; an invalid first configuration fails the
 * activation with that message (no member starts).
 */
@Component(name = ClusterSettings.PID, configurationPolicy = ConfigurationPolicy.REQUIRE, immediate = true,
        service = {})
@Designate(ocd = ClusterMemberComponent.Config.class)
public final class ClusterMemberComponent {

    /** Bound of a member's shutdown in deactivation before it is terminated. */
    static final int SHUTDOWN_BOUND_SECONDS = 15;

    private static final Logger LOG = LoggerFactory.getLogger(ClusterMemberComponent.class);

    @ObjectClassDefinition(name = "BalanceRoute cluster member",
            description = "This replica's Hazelcast member (TCP/IP join, no multicast). Several BalanceRoute "
                    + "runtimes with the same cluster name form one cluster of proxies; the oldest member "
                    + "dispatches. A change re-creates the member.")
    @interface Config {

        String DEFAULT_CLUSTER_NAME = ClusterSettings.DEFAULT_CLUSTER_NAME;
        String DEFAULT_MEMBERS = ClusterSettings.DEFAULT_MEMBERS;
        int DEFAULT_HOST_PORTS = ClusterSettings.DEFAULT_HOST_PORTS;
        int DEFAULT_PORT = ClusterSettings.DEFAULT_PORT;
        boolean DEFAULT_PORT_AUTO_INCREMENT = ClusterSettings.DEFAULT_PORT_AUTO_INCREMENT;
        String DEFAULT_BIND_INTERFACE = ClusterSettings.DEFAULT_BIND_INTERFACE;
        int DEFAULT_HEARTBEAT_INTERVAL_SECONDS = ClusterSettings.DEFAULT_HEARTBEAT_INTERVAL_SECONDS;
        int DEFAULT_MAX_NO_HEARTBEAT_SECONDS = ClusterSettings.DEFAULT_MAX_NO_HEARTBEAT_SECONDS;
        int DEFAULT_JOIN_WAIT_SECONDS = ClusterSettings.DEFAULT_JOIN_WAIT_SECONDS;
        int DEFAULT_MERGE_FIRST_RUN_DELAY_SECONDS = ClusterSettings.DEFAULT_MERGE_FIRST_RUN_DELAY_SECONDS;
        int DEFAULT_MERGE_NEXT_RUN_DELAY_SECONDS = ClusterSettings.DEFAULT_MERGE_NEXT_RUN_DELAY_SECONDS;
        String DEFAULT_SHARED_PIDS = ClusterSettings.DEFAULT_SHARED_PIDS;

        @AttributeDefinition(name = "Cluster name",
                description = "Only members with the same name join. Not Hazelcast's 'dev'. Default balanceroute.")
        String clusterName() default DEFAULT_CLUSTER_NAME;

        @AttributeDefinition(name = "Members",
                description = "TCP/IP join: comma-separated host or host:port of the other replicas' members "
                        + "(this one may be listed). A host alone stands for hostPorts ports from 5701 and around "
                        + "port. List host:port where you can: every listed address nothing listens on can delay the "
                        + "healing of a split by 5 s. Default 127.0.0.1.")
        String members() default DEFAULT_MEMBERS;

        @AttributeDefinition(name = "Ports of a host alone", min = "1", max = "10",
                description = "A members host without a port stands for its ports 5701..5701+n-1 and "
                        + "port-(n-1)..port+(n-1). Fewer heal a split faster (5 s each one nothing listens on), "
                        + "more find replicas on more ports of one host. Default 2.")
        int hostPorts() default DEFAULT_HOST_PORTS;

        @AttributeDefinition(name = "Port", min = "1", max = "65535",
                description = "The port this member binds; with auto-increment the first free of the next 10. "
                        + "Default 5701.")
        int port() default DEFAULT_PORT;

        @AttributeDefinition(name = "Port auto-increment",
                description = "Take the first free port of port..port+9 (several replicas on one host need no "
                        + "port of their own). Default true.")
        boolean portAutoIncrement() default DEFAULT_PORT_AUTO_INCREMENT;

        @AttributeDefinition(name = "Bind interface",
                description = "The IPv4 address of this host the member binds and announces (no wildcard bind). "
                        + "Default 127.0.0.1.")
        String bindInterface() default DEFAULT_BIND_INTERFACE;

        @AttributeDefinition(name = "Heartbeat interval (s)", min = "1", max = "60",
                description = "Seconds between heartbeats. Default 1.")
        int heartbeatIntervalSeconds() default DEFAULT_HEARTBEAT_INTERVAL_SECONDS;

        @AttributeDefinition(name = "Max no heartbeat (s)", min = "2", max = "3600",
                description = "A member silent that long is dropped (a killed one is usually seen sooner, by its "
                        + "closed connections). At least twice the heartbeat interval. Default 5.")
        int maxNoHeartbeatSeconds() default DEFAULT_MAX_NO_HEARTBEAT_SECONDS;

        @AttributeDefinition(name = "Join wait (s)", min = "0", max = "60",
                description = "Hazelcast's wait.seconds.before.join: how long a joining member waits for others "
                        + "before it settles. Default 1.")
        int joinWaitSeconds() default DEFAULT_JOIN_WAIT_SECONDS;

        @AttributeDefinition(name = "Split-brain first check (s)", min = "1", max = "3600",
                description = "Seconds after start before the first search for another cluster of the same name "
                        + "to merge with. Default 10.")
        int mergeFirstRunDelaySeconds() default DEFAULT_MERGE_FIRST_RUN_DELAY_SECONDS;

        @AttributeDefinition(name = "Split-brain check period (s)", min = "1", max = "3600",
                description = "Seconds between the later searches. Default 5.")
        int mergeNextRunDelaySeconds() default DEFAULT_MERGE_NEXT_RUN_DELAY_SECONDS;

        @AttributeDefinition(name = "Shared PIDs",
                description = "Comma-separated configuration PIDs kept the same on every replica (a change on "
                        + "one is applied on all). Never this PID nor credentials. Empty: none.")
        String sharedPids() default DEFAULT_SHARED_PIDS;
    }

    /** What runs for one configuration. */
    private static final class Member implements RunningMember {
        final ClusterSettings settings;
        volatile HazelcastInstance instance;
        HazelcastSnapshotStore store;
        ServiceRegistration<RunningMember> memberRegistration;
        ServiceRegistration<SnapshotStore> storeRegistration;
        /** Set (under the component's lock) when this member is to stop; it must then not register. */
        boolean stopping;

        Member(ClusterSettings settings) {
            this.settings = settings;
        }

        @Override
        public HazelcastInstance instance() {
            return instance;
        }

        @Override
        public ClusterSettings settings() {
            return settings;
        }
    }

    private final BundleContext context;
    private final String replicaId;
    /** Starts and stops members, one at a time, off the framework's threads. */
    private final ExecutorService lifecycle = Executors.newSingleThreadExecutor(r -> {
        Thread t = new Thread(r, "balanceroute-cluster-member");
        t.setDaemon(true);
        return t;
    });
    private final Object lock = new Object();
    /** Under the lock: the member in force, or null. */
    private Member current;

    @Activate
    public ClusterMemberComponent(BundleContext context, Map<String, Object> properties) {
        this(context, properties, ReplicaId.VALUE);
    }

    ClusterMemberComponent(BundleContext context, Map<String, Object> properties, String replicaId) {
        this.context = context;
        this.replicaId = replicaId;
        begin(ClusterSettings.from(properties));
    }

    @Modified
    void modified(Map<String, Object> properties) {
        ConfigProperties.readUpdate(ClusterSettings.PID, properties, ClusterSettings::read,
                e -> LOG.error("cluster: configuration rejected: {}; the member in force stays", e.getMessage()))
                .ifPresent(this::apply);
    }

    private void apply(ClusterSettings settings) {
        synchronized (lock) {
            if (current != null && current.settings.equals(settings)) {
                return;
            }
        }
        LOG.info("cluster {}: configuration changed; the member is re-created", ClusterSettings.PID);
        end();
        begin(settings);
    }

    @Deactivate
    void deactivate() {
        Future<?> stopped = end();
        lifecycle.shutdown();
        try {
            if (stopped != null) {
                stopped.get(SHUTDOWN_BOUND_SECONDS + 5, TimeUnit.SECONDS);
            }
        } catch (TimeoutException e) {
            LOG.warn("cluster: the member did not stop within {} s", SHUTDOWN_BOUND_SECONDS + 5);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (Exception e) {
            LOG.warn("cluster: stopping the member failed: {}", e.toString());
        }
    }

    /** The member's Hazelcast instance while it is up (tests). */
    HazelcastInstance instance() {
        synchronized (lock) {
            return current == null ? null : current.instance;
        }
    }

    private void begin(ClusterSettings settings) {
        Member member = new Member(settings);
        synchronized (lock) {
            current = member;
        }
        lifecycle.execute(() -> start(member));
    }

    /** Unregisters the services of the member in force at once, and queues its shutdown. */
    private Future<?> end() {
        Member member;
        synchronized (lock) {
            member = current;
            current = null;
            if (member == null) {
                return null;
            }
            member.stopping = true;
            unregister(member);
        }
        return lifecycle.submit(() -> stop(member));
    }

    private void start(Member member) {
        HazelcastInstance hz;
        ClusterSettings s = member.settings;
        try {
            LOG.info("cluster: starting member of '{}' on {}:{}{} (replica {}), joining {}", s.clusterName(),
                    s.bindInterface(), s.port(), s.portAutoIncrement() ? "+" + (ClusterSettings.PORT_COUNT - 1) : "",
                    replicaId, s.members());
            hz = MemberConfigs.start(MemberConfigs.build(s, replicaId, getClass().getClassLoader(),
                    MemberConfigs.loggingType()));
        } catch (RuntimeException e) {
            LOG.error("cluster: the member did not start: {}", e.toString(), e);
            return;
        }
        synchronized (lock) {
            member.instance = hz;
            if (member.stopping) {
                return; // stop(member) is queued behind this task and shuts it down
            }
            member.store = new HazelcastSnapshotStore(hz, replicaId);
            member.memberRegistration = context.registerService(RunningMember.class, member, null);
            Dictionary<String, Object> props = new Hashtable<>();
            props.put(SnapshotStore.NAME_PROPERTY, HazelcastSnapshotStore.NAME);
            member.storeRegistration = context.registerService(SnapshotStore.class, member.store, props);
        }
        var local = hz.getCluster().getLocalMember();
        LOG.info("cluster: member {}:{} up in '{}', {} member(s): {}", local.getAddress().getHost(),
                local.getAddress().getPort(), s.clusterName(), hz.getCluster().getMembers().size(),
                member.store.members());
    }

    /** Under the lock. */
    private void unregister(Member member) {
        if (member.storeRegistration != null) {
            safeUnregister(member.storeRegistration);
            member.storeRegistration = null;
        }
        if (member.memberRegistration != null) {
            safeUnregister(member.memberRegistration);
            member.memberRegistration = null;
        }
        if (member.store != null) {
            member.store.close();
        }
    }

    private static void safeUnregister(ServiceRegistration<?> r) {
        try {
            r.unregister();
        } catch (IllegalStateException e) {
            // already unregistered (the bundle is stopping)
        }
    }

    private void stop(Member member) {
        HazelcastInstance hz = member.instance;
        if (hz == null) {
            return;
        }
        Thread shutdown = new Thread(() -> {
            try {
                hz.shutdown();
            } catch (RuntimeException e) {
                LOG.warn("cluster: graceful shutdown failed: {}", e.toString());
            }
        }, "balanceroute-cluster-shutdown");
        shutdown.setDaemon(true);
        shutdown.start();
        try {
            shutdown.join(TimeUnit.SECONDS.toMillis(SHUTDOWN_BOUND_SECONDS));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        if (hz.getLifecycleService().isRunning()) {
            LOG.warn("cluster: the member did not shut down within {} s; terminated", SHUTDOWN_BOUND_SECONDS);
            hz.getLifecycleService().terminate();
        } else {
            LOG.info("cluster: member of '{}' shut down", member.settings.clusterName());
        }
    }
}
