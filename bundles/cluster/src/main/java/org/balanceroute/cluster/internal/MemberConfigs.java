package org.balanceroute.cluster.internal;

import com.hazelcast.config.AdvancedNetworkConfig;
import com.hazelcast.config.Config;
import com.hazelcast.config.JoinConfig;
import com.hazelcast.config.MapConfig;
import com.hazelcast.config.ServerSocketEndpointConfig;
import com.hazelcast.core.Hazelcast;
import com.hazelcast.core.HazelcastInstance;

/**
 * Builds the Hazelcast {@link Config} of a replica's member from its {@link ClusterSettings}:
 * the one place where Hazelcast is configured, used by the component and by the tests alike.
 *
 * <p>Always, whatever the settings: TCP/IP join only (multicast and auto-detection off, so a
 * member never looks beyond its {@code members} list), phone-home off, bound to
 * {@code bindInterface} only ({@code hazelcast.socket.bind.any=false}), an explicit cluster name,
 * no JVM shutdown hook (the framework's shutdown stops the bundle, which shuts the member down
 * in order), metrics collection off (nothing reads it), and the class loader of this bundle
 * (Hazelcast's bundle cannot see ours; the values we store are {@code byte[]} anyway).
 */
public final class MemberConfigs {

    /** Member attribute carrying the replica id, stable for the process (Hazelcast's UUID is not). */
    public static final String REPLICA_ATTRIBUTE = "balanceroute.replica";

    /** The shared configuration map: PID to encoded properties. */
    public static final String CONFIG_MAP = "balanceroute.config";

    /** Bound of a graceful shutdown before Hazelcast gives up migrating (default 600 s). */
    static final int GRACEFUL_SHUTDOWN_MAX_WAIT_SECONDS = 10;

    /** Bound of a join (Hazelcast's default is 300 s); the member starts alone after it. */
    static final int MAX_JOIN_SECONDS = 30;

    /**
     * Hazelcast sends every {@value #EVENT_SYNC_FREQUENCY_PROPERTY}-th remote event (default
     * 100,000) as an operation and waits for its answer, up to 5 s: the publisher would block on
     * the network, and that event takes another path than the others, so it can overtake or be
     * overtaken by its neighbours. A JVM system property only (read when a member starts): set to
     * {@link Integer#MAX_VALUE} unless the operator set it.
     */
    static final String EVENT_SYNC_FREQUENCY_PROPERTY = "hazelcast.event.sync.frequency";

    private MemberConfigs() {
    }

    /**
     * Starts a member (blocks until it has joined a cluster or formed its own), with the config's
     * class loader as the thread's context loader meanwhile (Hazelcast looks some classes and
     * services up there).
     */
    public static HazelcastInstance start(Config config) {
        if (System.getProperty(EVENT_SYNC_FREQUENCY_PROPERTY) == null) {
            System.setProperty(EVENT_SYNC_FREQUENCY_PROPERTY, Integer.toString(Integer.MAX_VALUE));
        }
        Thread thread = Thread.currentThread();
        ClassLoader previous = thread.getContextClassLoader();
        thread.setContextClassLoader(config.getClassLoader());
        try {
            return Hazelcast.newHazelcastInstance(config);
        } finally {
            thread.setContextClassLoader(previous);
        }
    }

    /** {@code slf4j} if Hazelcast's bundle can load slf4j (its import is optional), else {@code jdk}. */
    public static String loggingType() {
        try {
            Class.forName("org.slf4j.LoggerFactory", false, Hazelcast.class.getClassLoader());
            return "slf4j";
        } catch (ClassNotFoundException | LinkageError e) {
            return "jdk";
        }
    }

    /**
     * The member's configuration.
     *
     * @param settings    validated settings
     * @param replicaId   this replica's id, published as the {@value #REPLICA_ATTRIBUTE} attribute
     * @param classLoader the loader Hazelcast resolves user classes with
     * @param loggingType Hazelcast's {@code hazelcast.logging.type}: {@code slf4j} or {@code jdk}
     */
    public static Config build(ClusterSettings settings, String replicaId, ClassLoader classLoader, String loggingType) {
        Config c = new Config();
        c.setClusterName(settings.clusterName());
        c.setInstanceName("balanceroute-" + replicaId);
        c.setClassLoader(classLoader);
        c.setProperty("hazelcast.logging.type", loggingType);
        c.setProperty("hazelcast.phone.home.enabled", "false");
        c.setProperty("hazelcast.socket.bind.any", "false");
        c.setProperty("hazelcast.shutdownhook.enabled", "false");
        // Hazelcast's OSGi service renames clusters it creates; ours is created directly, but say it.
        c.setProperty("hazelcast.osgi.grouping.disabled", "true");
        c.setProperty("hazelcast.heartbeat.interval.seconds", Integer.toString(settings.heartbeatIntervalSeconds()));
        c.setProperty("hazelcast.max.no.heartbeat.seconds", Integer.toString(settings.maxNoHeartbeatSeconds()));
        c.setProperty("hazelcast.wait.seconds.before.join", Integer.toString(settings.joinWaitSeconds()));
        c.setProperty("hazelcast.max.wait.seconds.before.join", Integer.toString(Math.max(settings.joinWaitSeconds(), 1) * 2));
        c.setProperty("hazelcast.max.join.seconds", Integer.toString(MAX_JOIN_SECONDS));
        c.setProperty("hazelcast.merge.first.run.delay.seconds", Integer.toString(settings.mergeFirstRunDelaySeconds()));
        c.setProperty("hazelcast.merge.next.run.delay.seconds", Integer.toString(settings.mergeNextRunDelaySeconds()));
        c.setProperty("hazelcast.graceful.shutdown.max.wait", Integer.toString(GRACEFUL_SHUTDOWN_MAX_WAIT_SECONDS));
        c.getMetricsConfig().setEnabled(false);
        c.getMemberAttributeConfig().setAttribute(REPLICA_ATTRIBUTE, replicaId);

        // The advanced network configuration's member endpoint, not the plain network: with the plain
        // one, a connection to a frozen peer spins an output thread and silences the other connections
        // it serves (SilentPeerTest; docs/ci.md, "Races closed").
        ServerSocketEndpointConfig member = new ServerSocketEndpointConfig();
        member.setPort(settings.port());
        member.setPortAutoIncrement(settings.portAutoIncrement());
        member.setPortCount(ClusterSettings.PORT_COUNT);
        member.getInterfaces().setEnabled(true).clear().addInterface(settings.bindInterface());
        AdvancedNetworkConfig network = c.getAdvancedNetworkConfig().setEnabled(true).setMemberEndpointConfig(member);
        JoinConfig join = network.getJoin();
        join.getMulticastConfig().setEnabled(false);
        join.getAutoDetectionConfig().setEnabled(false);
        join.getTcpIpConfig().setEnabled(true).setMembers(settings.joinAddresses());

        // The shared configuration: small, written rarely, read on every member: no Near Cache
        // (the default), one synchronous backup (the default) so a member's loss keeps it.
        c.addMapConfig(new MapConfig(CONFIG_MAP));
        return c;
    }
}
