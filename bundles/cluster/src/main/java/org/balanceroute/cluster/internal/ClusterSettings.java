package org.balanceroute.cluster.internal;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * The settings of PID {@value #PID}, validated: every constructor argument out of range throws
 * an {@link IllegalArgumentException} naming the property and its range, so that an invalid
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
        if (clusterName == null || !CLUSTER_NAME.matcher(clusterName).matches()) {
            throw new IllegalArgumentException("clusterName must be 1..100 characters of A-Z a-z 0-9 . _ -, got '"
                    + clusterName + "'");
        }
        if (clusterName.equals(HAZELCAST_DEFAULT_CLUSTER_NAME)) {
            throw new IllegalArgumentException("clusterName must not be Hazelcast's default 'dev'");
        }
        members = List.copyOf(members);
        if (members.isEmpty()) {
            throw new IllegalArgumentException("members must list at least one host or host:port");
        }
        for (String m : members) {
            checkMember(m);
        }
        if (hostPorts < 1 || hostPorts > PORT_COUNT) {
            throw new IllegalArgumentException("hostPorts must be 1.." + PORT_COUNT + ", got " + hostPorts);
        }
        if (port < 1 || port > 65535) {
            throw new IllegalArgumentException("port must be 1..65535, got " + port);
        }
        if (portAutoIncrement && port + PORT_COUNT - 1 > 65535) {
            throw new IllegalArgumentException("port must be 1.." + (65536 - PORT_COUNT)
                    + " with portAutoIncrement (it scans " + PORT_COUNT + " ports), got " + port);
        }
        checkInterface(bindInterface);
        if (heartbeatIntervalSeconds < 1 || heartbeatIntervalSeconds > 60) {
            throw new IllegalArgumentException("heartbeatIntervalSeconds must be 1..60, got " + heartbeatIntervalSeconds);
        }
        if (maxNoHeartbeatSeconds < 2 * heartbeatIntervalSeconds || maxNoHeartbeatSeconds > 3600) {
            throw new IllegalArgumentException("maxNoHeartbeatSeconds must be 2 * heartbeatIntervalSeconds ("
                    + 2 * heartbeatIntervalSeconds + ")..3600, got " + maxNoHeartbeatSeconds);
        }
        if (joinWaitSeconds < 0 || joinWaitSeconds > 60) {
            throw new IllegalArgumentException("joinWaitSeconds must be 0..60, got " + joinWaitSeconds);
        }
        if (mergeFirstRunDelaySeconds < 1 || mergeFirstRunDelaySeconds > 3600) {
            throw new IllegalArgumentException("mergeFirstRunDelaySeconds must be 1..3600, got " + mergeFirstRunDelaySeconds);
        }
        if (mergeNextRunDelaySeconds < 1 || mergeNextRunDelaySeconds > 3600) {
            throw new IllegalArgumentException("mergeNextRunDelaySeconds must be 1..3600, got " + mergeNextRunDelaySeconds);
        }
        sharedPids = List.copyOf(new LinkedHashSet<>(sharedPids));
        for (String pid : sharedPids) {
            if (!PID_NAME.matcher(pid).matches()) {
                throw new IllegalArgumentException("sharedPids: '" + pid + "' is not a PID");
            }
            if (NEVER_SHARED.contains(pid)) {
                throw new IllegalArgumentException("sharedPids must not contain " + pid
                        + " (never shared: per-replica ports and addresses, credentials)");
            }
        }
    }

    /** The defaults of every property. */
    public static ClusterSettings defaults() {
        return from(Map.of());
    }

    /**
     * The settings of a configuration's properties (ConfigAdmin values: text from a {@code .cfg}
     * file, or typed), a property absent taking its default.
     *
     * @throws IllegalArgumentException naming the property whose value is invalid
     */
    public static ClusterSettings from(Map<String, ?> p) {
        return new ClusterSettings(
                text(p, "clusterName", DEFAULT_CLUSTER_NAME),
                list(p, "members", DEFAULT_MEMBERS),
                integer(p, "hostPorts", DEFAULT_HOST_PORTS),
                integer(p, "port", DEFAULT_PORT),
                bool(p, "portAutoIncrement", DEFAULT_PORT_AUTO_INCREMENT),
                text(p, "bindInterface", DEFAULT_BIND_INTERFACE),
                integer(p, "heartbeatIntervalSeconds", DEFAULT_HEARTBEAT_INTERVAL_SECONDS),
                integer(p, "maxNoHeartbeatSeconds", DEFAULT_MAX_NO_HEARTBEAT_SECONDS),
                integer(p, "joinWaitSeconds", DEFAULT_JOIN_WAIT_SECONDS),
                integer(p, "mergeFirstRunDelaySeconds", DEFAULT_MERGE_FIRST_RUN_DELAY_SECONDS),
                integer(p, "mergeNextRunDelaySeconds", DEFAULT_MERGE_NEXT_RUN_DELAY_SECONDS),
                list(p, "sharedPids", DEFAULT_SHARED_PIDS));
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

    private static void checkMember(String m) {
        int colon = m.lastIndexOf(':');
        String host = m;
        if (colon > 0 && (m.charAt(0) != '[' || m.charAt(colon - 1) == ']')) {
            host = m.substring(0, colon);
            String portText = m.substring(colon + 1);
            int p;
            try {
                p = Integer.parseInt(portText);
            } catch (NumberFormatException e) {
                p = -1;
            }
            if (p < 1 || p > 65535) {
                throw new IllegalArgumentException("members: '" + m + "' has no port 1..65535 after the ':'");
            }
        }
        if (!HOST.matcher(host).matches()) {
            throw new IllegalArgumentException("members: '" + m + "' is not host or host:port");
        }
    }

    private static void checkInterface(String address) {
        String[] octets = address == null ? new String[0] : address.split("\\.", -1);
        boolean ok = octets.length == 4;
        for (int i = 0; ok && i < 4; i++) {
            ok = IPV4_OCTET.matcher(octets[i]).matches()
                    && Arrays.stream(octets[i].split("-")).allMatch(o -> o.equals("*") || Integer.parseInt(o) <= 255);
        }
        if (!ok) {
            throw new IllegalArgumentException("bindInterface must be an IPv4 address of this host (Hazelcast's "
                    + "interface syntax: an octet may be * or a range 10-20), got '" + address + "'");
        }
    }

    private static String text(Map<String, ?> p, String key, String fallback) {
        Object v = p.get(key);
        if (v == null) {
            return fallback;
        }
        if (v instanceof String[] a && a.length == 1) {
            v = a[0];
        }
        if (!(v instanceof String s)) {
            throw new IllegalArgumentException(key + " must be text, got " + describe(v));
        }
        return s.trim();
    }

    private static List<String> list(Map<String, ?> p, String key, String fallback) {
        Object v = p.get(key);
        List<String> items = new ArrayList<>();
        if (v == null) {
            v = fallback;
        }
        if (v instanceof String s) {
            for (String part : s.split(",")) {
                if (!part.isBlank()) {
                    items.add(part.trim());
                }
            }
        } else if (v instanceof String[] a) {
            for (String s : a) {
                items.addAll(list(Map.of(key, s), key, ""));
            }
        } else if (v instanceof Iterable<?> it) {
            for (Object o : it) {
                items.addAll(list(Map.of(key, String.valueOf(o)), key, ""));
            }
        } else {
            throw new IllegalArgumentException(key + " must be a comma-separated list, got " + describe(v));
        }
        return items;
    }

    private static int integer(Map<String, ?> p, String key, int fallback) {
        Object v = p.get(key);
        if (v == null) {
            return fallback;
        }
        if (v instanceof Integer || v instanceof Short || v instanceof Byte) {
            return ((Number) v).intValue();
        }
        if (v instanceof Long l && l == l.intValue()) {
            return l.intValue();
        }
        if (v instanceof String s) {
            try {
                return Integer.parseInt(s.trim());
            } catch (NumberFormatException e) {
                // reported below
            }
        }
        throw new IllegalArgumentException(key + " must be a whole number, got " + describe(v));
    }

    private static boolean bool(Map<String, ?> p, String key, boolean fallback) {
        Object v = p.get(key);
        if (v == null) {
            return fallback;
        }
        if (v instanceof Boolean b) {
            return b;
        }
        if (v instanceof String s && (s.trim().equalsIgnoreCase("true") || s.trim().equalsIgnoreCase("false"))) {
            return Boolean.parseBoolean(s.trim());
        }
        throw new IllegalArgumentException(key + " must be true or false, got " + describe(v));
    }

    private static String describe(Object v) {
        return v instanceof String s ? "'" + s + "'" : String.valueOf(v) + " (" + v.getClass().getSimpleName() + ")";
    }
}
