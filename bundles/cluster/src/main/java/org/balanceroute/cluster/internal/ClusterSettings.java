package org.balanceroute.cluster.internal;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;
import org.balanceroute.api.config.ConfigProperties;
import org.balanceroute.api.config.ConfigurationException;

/**
 * The settings of PID {@value #PID}, as {@link #from} checked them: a value out of range throws
 * a {@link ConfigurationException} naming the property and its range, so that an invalid
 * configuration is rejected as a whole and the one in force stays.
 *
 * @param clusterName        Hazelcast's cluster name: only members with the same one join
 * @param members            the TCP/IP join's member list, {@code host} or {@code host:port}
 * @param hostPorts          how many ports a {@code members} host without a port stands for, see
 *                           {@link #joinAddresses()}
 * @param port               the port this member binds (and the first one it tries)
 * @param portAutoIncrement  whether the member may take the next {@value #PORT_COUNT} ports when
 *                           {@code port} is taken
 * @param bindInterface      the interface address the member binds and announces
 * @param heartbeatIntervalSeconds   heartbeat period
 * @param maxNoHeartbeatSeconds      a member silent that long is dropped
 * @param joinWaitSeconds            Hazelcast's {@code hazelcast.wait.seconds.before.join}
 * @param mergeFirstRunDelaySeconds  the first split-brain check after start
 * @param mergeNextRunDelaySeconds   the period of the later ones
 * @param sharedPids                 the configuration PIDs kept the same on every replica
 */
public record ClusterSettings(String clusterName, List<String> members, int hostPorts, int port, boolean portAutoIncrement,
        String bindInterface, int heartbeatIntervalSeconds, int maxNoHeartbeatSeconds, int joinWaitSeconds,
        int mergeFirstRunDelaySeconds, int mergeNextRunDelaySeconds, List<String> sharedPids) {

    /** The configuration PID of the member. */
    public static final String PID = "org.balanceroute.cluster";

    public static final String DEFAULT_CLUSTER_NAME = "balanceroute";
    public static final String DEFAULT_MEMBERS = "127.0.0.1";
    public static final int DEFAULT_HOST_PORTS = 2;
    public static final int DEFAULT_PORT = 5701;
    public static final boolean DEFAULT_PORT_AUTO_INCREMENT = true;
    public static final String DEFAULT_BIND_INTERFACE = "127.0.0.1";
    public static final int DEFAULT_HEARTBEAT_INTERVAL_SECONDS = 1;
    public static final int DEFAULT_MAX_NO_HEARTBEAT_SECONDS = 5;
    public static final int DEFAULT_JOIN_WAIT_SECONDS = 1;
    public static final int DEFAULT_MERGE_FIRST_RUN_DELAY_SECONDS = 10;
    public static final int DEFAULT_MERGE_NEXT_RUN_DELAY_SECONDS = 5;
    public static final String DEFAULT_SHARED_PIDS = "org.balanceroute.router, org.balanceroute.policy.balance, "
            + "org.balanceroute.predictor.survival, org.balanceroute.predictor.exactmatch, "
            + "org.balanceroute.connector.vllm, org.balanceroute.proxy";

    /**
     * Ports a member scans: with {@code portAutoIncrement} it binds the first free one of
     * {@code port .. port + PORT_COUNT - 1}. Also the most {@code hostPorts} may be.
     */
    public static final int PORT_COUNT = 10;

    /** PIDs never shared: this one (ports and addresses differ per replica) and the credentials. */
    static final Set<String> NEVER_SHARED = Set.of(PID, "org.balanceroute.admin",
            "org.apache.felix.webconsole.internal.servlet.OsgiManager");

    /** Hazelcast's default cluster name, refused so that a stray default member never joins. */
    static final String HAZELCAST_DEFAULT_CLUSTER_NAME = "dev";

    private static final Pattern CLUSTER_NAME = Pattern.compile("[A-Za-z0-9._-]{1,100}");
    private static final Pattern HOST = Pattern.compile("[A-Za-z0-9.-]+|\\[[0-9A-Fa-f:.]+\\]");
    private static final Pattern IPV4_OCTET = Pattern.compile("\\*|\\d{1,3}(-\\d{1,3})?");
    private static final Pattern PID_NAME = Pattern.compile("[A-Za-z0-9._~-]+");

    public ClusterSettings {
        members = List.copyOf(members);
        sharedPids = List.copyOf(new LinkedHashSet<>(sharedPids));
    }

    /** The defaults of every property. */
    public static ClusterSettings defaults() {
        return from(Map.of());
    }

    /**
     * The settings of a configuration's properties (ConfigAdmin values: text from a {@code .cfg}
     * file, or typed), a property absent taking its default.
     *
     * @throws ConfigurationException naming the property whose value is invalid
     */
    public static ClusterSettings from(Map<String, ?> properties) {
        return read(ConfigProperties.of(PID, properties));
    }

    /** As {@link #from}, from the properties as {@link ConfigProperties} reads them. */
    static ClusterSettings read(ConfigProperties c) {
        String clusterName = c.text("clusterName", DEFAULT_CLUSTER_NAME);
        c.require(CLUSTER_NAME.matcher(clusterName).matches(), "clusterName", "1..100 characters of A-Z a-z 0-9 . _ -",
                clusterName);
        c.require(!clusterName.equals(HAZELCAST_DEFAULT_CLUSTER_NAME), "clusterName", "other than Hazelcast's default",
                clusterName);
        List<String> members = c.list("members", DEFAULT_MEMBERS);
        c.require(!members.isEmpty(), "members", "a list of at least one host or host:port", "");
        for (String m : members) {
            c.require(validMember(m), "members", "hosts or host:port with a port in [1, 65535]", m);
        }
        int hostPorts = c.intValue("hostPorts", DEFAULT_HOST_PORTS, 1, PORT_COUNT);
        boolean autoIncrement = c.bool("portAutoIncrement", DEFAULT_PORT_AUTO_INCREMENT);
        int port = c.intValue("port", DEFAULT_PORT, 1, 65535);
        c.require(!autoIncrement || port <= 65536 - PORT_COUNT, "port", "an integer in [1, " + (65536 - PORT_COUNT)
                + "] with portAutoIncrement (it scans " + PORT_COUNT + " ports)", port);
        String bindInterface = c.text("bindInterface", DEFAULT_BIND_INTERFACE);
        c.require(validInterface(bindInterface), "bindInterface", "an IPv4 address of this host (Hazelcast's interface"
                + " syntax: an octet may be * or a range 10-20)", bindInterface);
        int heartbeat = c.intValue("heartbeatIntervalSeconds", DEFAULT_HEARTBEAT_INTERVAL_SECONDS, 1, 60);
        int maxNoHeartbeat = c.intValue("maxNoHeartbeatSeconds", DEFAULT_MAX_NO_HEARTBEAT_SECONDS, 2 * heartbeat, 3600);
        List<String> sharedPids = c.list("sharedPids", DEFAULT_SHARED_PIDS);
        for (String pid : sharedPids) {
            c.require(PID_NAME.matcher(pid).matches(), "sharedPids", "a list of PIDs", pid);
            // ports and addresses differ per replica; credentials stay where they were set
            c.require(!NEVER_SHARED.contains(pid), "sharedPids", "PIDs other than " + NEVER_SHARED, pid);
        }
        return new ClusterSettings(clusterName, members, hostPorts, port, autoIncrement, bindInterface, heartbeat,
                maxNoHeartbeat, c.intValue("joinWaitSeconds", DEFAULT_JOIN_WAIT_SECONDS, 0, 60),
                c.intValue("mergeFirstRunDelaySeconds", DEFAULT_MERGE_FIRST_RUN_DELAY_SECONDS, 1, 3600),
                c.intValue("mergeNextRunDelaySeconds", DEFAULT_MERGE_NEXT_RUN_DELAY_SECONDS, 1, 3600), sharedPids);
    }

    /**
     * The TCP/IP join's addresses, every one with a port: {@code host:port} as given, and a
     * {@code host} alone as that host's {@code hostPorts} ports from {@value #DEFAULT_PORT} and the
     * ports within {@code hostPorts - 1} of this member's own {@code port}, below and above (so that
     * replicas given neighbouring ports of their own, 5701, 5702, 5703 or 15701, 15702, 15703, find
     * each other whichever starts first: directly, or through a neighbour's answer, at worst after
     * one split-brain merge; Hazelcast alone would try only {@code port .. port + 2}).
     *
     * <p>Keep this list to where replicas are: every address on it that nothing listens on costs the
     * side of a split that must merge 5 s per search for the other side (Hazelcast 5.7's
     * {@code AbstractJoiner.sendSplitBrainJoinMessage} waits a fixed 5 s,
     * {@code SPLIT_BRAIN_CONN_TIMEOUT_MILLIS}, for a connection to each address in turn, no property
     * sets it); with 19 addresses for a host alone a heal took 80-90 s instead of 3.
     */
    public List<String> joinAddresses() {
        Set<String> out = new LinkedHashSet<>();
        for (String m : members) {
            int colon = m.lastIndexOf(':');
            boolean hasPort = colon > 0 && (m.charAt(0) != '[' || m.charAt(colon - 1) == ']');
            if (hasPort) {
                out.add(m);
                continue;
            }
            for (int p = DEFAULT_PORT; p < DEFAULT_PORT + hostPorts; p++) {
                out.add(m + ":" + p);
            }
            for (int p = Math.max(1, port - (hostPorts - 1)); p <= Math.min(65535, port + hostPorts - 1); p++) {
                out.add(m + ":" + p);
            }
        }
        return new ArrayList<>(out);
    }

    private static boolean validMember(String m) {
        int colon = m.lastIndexOf(':');
        String host = m;
        if (colon > 0 && (m.charAt(0) != '[' || m.charAt(colon - 1) == ']')) {
            host = m.substring(0, colon);
            int p;
            try {
                p = Integer.parseInt(m.substring(colon + 1));
            } catch (NumberFormatException e) {
                return false;
            }
            if (p < 1 || p > 65535) {
                return false;
            }
        }
        return HOST.matcher(host).matches();
    }

    private static boolean validInterface(String address) {
        String[] octets = address.split("\\.", -1);
        boolean ok = octets.length == 4;
        for (int i = 0; ok && i < 4; i++) {
            ok = IPV4_OCTET.matcher(octets[i]).matches()
                    && Arrays.stream(octets[i].split("-")).allMatch(o -> o.equals("*") || Integer.parseInt(o) <= 255);
        }
        return ok;
    }
}
