package org.balanceroute.console.internal;

import jakarta.servlet.ReadListener;
import jakarta.servlet.ServletInputStream;
import jakarta.servlet.ServletOutputStream;
import jakarta.servlet.WriteListener;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.lang.reflect.Proxy;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Dictionary;
import java.util.HashMap;
import java.util.Hashtable;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;
import org.balanceroute.admin.PolicyAdmin;
import org.balanceroute.api.PoolSnapshot;
import org.balanceroute.fleet.DecodeInstance;
import org.balanceroute.fleet.Endpoint;
import org.balanceroute.fleet.Fleet;
import org.balanceroute.fleet.PoolTopology;
import org.balanceroute.router.ReplicasStatus;
import org.balanceroute.router.RouterService;
import org.osgi.service.cm.Configuration;
import org.osgi.service.cm.ConfigurationAdmin;

/** Hand-made stand-ins for the servlet API and the services the plugin uses. */
final class Fakes {

    private Fakes() {
    }

    /** A router answering fixed values. */
    static RouterService router(PoolSnapshot[] snapshot, ReplicasStatus[] cluster, String active, List<String> available) {
        return router(snapshot, cluster, active, available, new ArrayList<>());
    }

    /**
     * A router answering fixed values; each {@code setWorkerDraining(g, d)} is recorded in
     * {@code drains} as "g:d" and shows in the next snapshot.
     */
    static RouterService router(PoolSnapshot[] snapshot, ReplicasStatus[] cluster, String active, List<String> available,
            List<String> drains) {
        return (RouterService) Proxy.newProxyInstance(Fakes.class.getClassLoader(), new Class<?>[] {RouterService.class},
                (p, m, a) -> switch (m.getName()) {
                    case "snapshot" -> snapshot[0];
                    case "cluster" -> cluster[0];
                    case "activePolicy" -> active;
                    case "availablePolicies" -> available;
                    case "setWorkerDraining" -> {
                        int g = (Integer) a[0];
                        boolean d = (Boolean) a[1];
                        drains.add(g + ":" + d);
                        PoolSnapshot s = snapshot[0];
                        boolean[] draining = s.draining();
                        draining[g] = d;
                        snapshot[0] = new PoolSnapshot(s.source(), s.step(), s.capturedNanos(), s.capacity(), s.loads(),
                                s.running(), s.queued(), s.poolDepth(), s.available(), s.groups(), s.capacities(), draining);
                        yield null;
                    }
                    case "poolName" -> "default";
                    case "pools" -> List.of("default");
                    case "pool" -> "default".equals(a[0]) ? p : null;
                    case "toString" -> "fake router";
                    default -> throw new UnsupportedOperationException(m.getName());
                });
    }

    /** {@code primary} (the pool {@code default}'s router) with other pools' routers, reached through pools() and pool(). */
    static RouterService withPools(RouterService primary, Map<String, RouterService> others) {
        return (RouterService) Proxy.newProxyInstance(Fakes.class.getClassLoader(), new Class<?>[] {RouterService.class},
                (p, m, a) -> switch (m.getName()) {
                    case "pools" -> {
                        List<String> names = new ArrayList<>(others.keySet());
                        names.add("default");
                        names.sort(null);
                        yield names;
                    }
                    case "pool" -> "default".equals(a[0]) ? p : others.get((String) a[0]);
                    default -> m.invoke(primary, a);
                });
    }

    /** A router of pool {@code name} whose only answers are its snapshot (asked anew each time) and its active policy. */
    static RouterService poolRouter(String name, Supplier<PoolSnapshot> snapshot, String active) {
        return (RouterService) Proxy.newProxyInstance(Fakes.class.getClassLoader(), new Class<?>[] {RouterService.class},
                (p, m, a) -> switch (m.getName()) {
                    case "snapshot" -> snapshot.get();
                    case "activePolicy" -> active;
                    case "poolName" -> name;
                    default -> throw new UnsupportedOperationException(m.getName());
                });
    }

    /**
     * A snapshot of instances of {@code sizes[i]} workers each (B 64), these loads and running
     * counts, nothing queued, every worker up and none draining.
     */
    static PoolSnapshot snapshot(int[] sizes, long[] loads, int[] running) {
        int n = loads.length;
        int[] groups = new int[n];
        int g = 0;
        for (int i = 0; i < sizes.length; i++) {
            for (int k = 0; k < sizes[i]; k++) {
                groups[g++] = i;
            }
        }
        int[] capacities = new int[n];
        Arrays.fill(capacities, 64);
        boolean[] up = new boolean[n];
        Arrays.fill(up, true);
        return new PoolSnapshot("test", 1, 0, 64, loads, running, new int[n], 0, up, groups, capacities, new boolean[n]);
    }

    /** A pool of instances named {@code names}, {@code sizes[i]} workers each at http://wN:8000, B 64. */
    static PoolTopology pool(String name, String[] names, int[] sizes, int firstPort) {
        List<DecodeInstance> instances = new ArrayList<>();
        int w = firstPort;
        for (int i = 0; i < names.length; i++) {
            List<Endpoint> eps = new ArrayList<>();
            for (int k = 0; k < sizes[i]; k++) {
                eps.add(new Endpoint("http://w" + w++ + ":8000", -1));
            }
            instances.add(new DecodeInstance(names[i], eps, 64));
        }
        return new PoolTopology(name, "model-" + name, List.of(), List.of(), instances);
    }

    /** A fleet of these pools. */
    static Fleet fleet(PoolTopology... pools) {
        Map<String, PoolTopology> m = new HashMap<>();
        for (var p : pools) {
            m.put(p.name(), p);
        }
        return new Fleet(m);
    }

    /** A ConfigurationAdmin holding these PIDs' properties. */
    static ConfigurationAdmin configs(Map<String, Map<String, Object>> byPid) {
        return (ConfigurationAdmin) Proxy.newProxyInstance(Fakes.class.getClassLoader(), new Class<?>[] {ConfigurationAdmin.class},
                (p, m, a) -> {
                    if (!m.getName().equals("listConfigurations")) {
                        throw new UnsupportedOperationException(m.getName());
                    }
                    String filter = (String) a[0];
                    String pid = filter.substring("(service.pid=".length(), filter.length() - 1);
                    Map<String, Object> props = byPid.get(pid);
                    if (props == null) {
                        return null;
                    }
                    Dictionary<String, Object> d = new Hashtable<>(props);
                    return new Configuration[] {(Configuration) Proxy.newProxyInstance(Fakes.class.getClassLoader(),
                            new Class<?>[] {Configuration.class}, (p2, m2, a2) -> {
                                if (m2.getName().equals("getProperties")) {
                                    return d;
                                }
                                throw new UnsupportedOperationException(m2.getName());
                            })};
                });
    }

    /**
     * A PolicyAdmin of the pools {@code default} (primary) and those added to {@link #activeByPool},
     * that records the changes asked of it ("POOL POLICY {parameters}") and refuses rMax outside [1, 16].
     */
    static final class RecordingPolicyAdmin implements PolicyAdmin {

        final List<String> changes = new ArrayList<>();
        final List<PolicyDescription> policies;
        final Map<String, String> activeByPool = new java.util.TreeMap<>(Map.of("default", "br0"));

        RecordingPolicyAdmin(List<PolicyDescription> policies) {
            this.policies = policies;
        }

        @Override
        public String activePolicy() {
            return activeByPool.get(primaryPool());
        }

        @Override
        public String primaryPool() {
            return "default";
        }

        @Override
        public PoolPolicy poolPolicy(String pool) throws UnknownPoolException {
            String active = activeByPool.get(pool);
            if (active == null) {
                throw new UnknownPoolException(pool);
            }
            return new PoolPolicy(pool, active, active);
        }

        @Override
        public List<PolicyDescription> policies() {
            return policies;
        }

        @Override
        public ChangeResult change(String policy, Map<String, Object> parameters, Duration wait)
                throws InvalidChangeException {
            return change(primaryPool(), policy, parameters, wait);
        }

        @Override
        public ChangeResult change(String pool, String policy, Map<String, Object> parameters, Duration wait)
                throws InvalidChangeException {
            poolPolicy(pool);
            changes.add(pool + " " + policy + " " + parameters);
            Object r = parameters.get("rMax");
            if (r instanceof Integer i && (i < 1 || i > 16)) {
                throw new InvalidChangeException("rMax must be an integer in [1, 16], got " + i, "rMax");
            }
            activeByPool.put(pool, policy);
            return new ChangeResult(true, policy, parameters, "in force");
        }
    }

    /** What a servlet wrote. */
    static final class Response {
        int status = 200;
        String contentType;
        final Map<String, String> headers = new HashMap<>();
        final ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        final StringWriter chars = new StringWriter();

        String body() {
            return bytes.size() > 0 ? bytes.toString(StandardCharsets.UTF_8) : chars.toString();
        }

        HttpServletResponse servlet() {
            ServletOutputStream out = new ServletOutputStream() {
                @Override
                public boolean isReady() {
                    return true;
                }

                @Override
                public void setWriteListener(WriteListener l) {
                }

                @Override
                public void write(int b) {
                    bytes.write(b);
                }
            };
            PrintWriter writer = new PrintWriter(chars);
            return (HttpServletResponse) Proxy.newProxyInstance(Fakes.class.getClassLoader(),
                    new Class<?>[] {HttpServletResponse.class}, (p, m, a) -> switch (m.getName()) {
                        case "setStatus" -> {
                            status = (Integer) a[0];
                            yield null;
                        }
                        case "sendError" -> {
                            status = (Integer) a[0];
                            yield null;
                        }
                        case "setContentType" -> {
                            contentType = (String) a[0];
                            yield null;
                        }
                        case "getContentType" -> contentType;
                        case "setHeader" -> {
                            headers.put((String) a[0], (String) a[1]);
                            yield null;
                        }
                        case "setCharacterEncoding", "setContentLength" -> null;
                        case "getOutputStream" -> out;
                        case "getWriter" -> writer;
                        default -> throw new UnsupportedOperationException(m.getName());
                    });
        }
    }

    /** A request to the console: method, path info, headers, query parameters, body, authenticated user. */
    static HttpServletRequest request(String method, String pathInfo, Map<String, String> headers,
            Map<String, String> params, String body, String user) {
        byte[] b = body == null ? new byte[0] : body.getBytes(StandardCharsets.UTF_8);
        ByteArrayInputStream in = new ByteArrayInputStream(b);
        ServletInputStream sin = new ServletInputStream() {
            @Override
            public boolean isFinished() {
                return in.available() == 0;
            }

            @Override
            public boolean isReady() {
                return true;
            }

            @Override
            public void setReadListener(ReadListener l) {
            }

            @Override
            public int read() {
                return in.read();
            }
        };
        Map<String, Object> attributes = new HashMap<>();
        attributes.put(BalanceRoutePlugin.PLUGIN_ROOT, "/system/console/balanceroute");
        return (HttpServletRequest) Proxy.newProxyInstance(Fakes.class.getClassLoader(),
                new Class<?>[] {HttpServletRequest.class}, (p, m, a) -> switch (m.getName()) {
                    case "getMethod" -> method;
                    case "getPathInfo" -> pathInfo;
                    case "getRequestURI" -> "/system/console" + pathInfo;
                    case "getHeader" -> headers.entrySet().stream().filter(e -> e.getKey().equalsIgnoreCase((String) a[0]))
                            .map(Map.Entry::getValue).findFirst().orElse(null);
                    case "getParameter" -> params.get((String) a[0]);
                    case "getContentType" -> headers.entrySet().stream()
                            .filter(e -> e.getKey().equalsIgnoreCase("Content-Type"))
                            .map(Map.Entry::getValue).findFirst().orElse(null);
                    case "getRemoteUser" -> user;
                    case "getAttribute" -> attributes.get((String) a[0]);
                    case "getInputStream" -> sin;
                    case "getProtocol" -> "HTTP/1.1";
                    case "getContextPath" -> "";
                    case "getServletPath" -> "/system/console";
                    default -> throw new UnsupportedOperationException(m.getName());
                });
    }
}
