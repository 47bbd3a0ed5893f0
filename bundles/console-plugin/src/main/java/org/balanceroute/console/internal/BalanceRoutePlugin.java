package org.balanceroute.console.internal;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import jakarta.servlet.Servlet;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintWriter;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.LongSupplier;
import java.util.function.UnaryOperator;
import org.balanceroute.admin.PolicyAdmin;
import org.balanceroute.admin.PolicyAdmin.ChangeResult;
import org.balanceroute.admin.PolicyAdmin.InvalidChangeException;
import org.balanceroute.admin.PolicyAdmin.PolicyDescription;
import org.balanceroute.admin.PolicyAdmin.UnknownPoolException;
import org.balanceroute.admin.auth.ConsoleCredentials;
import org.balanceroute.api.PoolSnapshot;
import org.balanceroute.api.config.ConfigProperties;
import org.balanceroute.api.config.ConfigurationException;
import org.balanceroute.fleet.Fleet;
import org.balanceroute.fleet.FleetService;
import org.balanceroute.router.ReplicasStatus;
import org.balanceroute.router.RouterService;
import org.osgi.framework.BundleContext;
import org.osgi.framework.InvalidSyntaxException;
import org.osgi.service.cm.Configuration;
import org.osgi.service.cm.ConfigurationAdmin;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Deactivate;
import org.osgi.service.component.annotations.Modified;
import org.osgi.service.component.annotations.Reference;
import org.osgi.service.component.annotations.ReferenceCardinality;
import org.osgi.service.component.annotations.ReferencePolicy;
import org.osgi.service.component.annotations.ReferencePolicyOption;
import org.osgi.service.metatype.annotations.Designate;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The BalanceRoute page of the Felix web console, {@code /system/console/balanceroute}: a plain
 * {@code jakarta.servlet.Servlet} service with the console's plugin properties (no dependency on
 * console internals), behind the console's own authentication. The console serves this bundle's
 * {@code /res/...} as {@code balanceroute/res/...} (the page's script and style, uPlot).
 *
 * <ul>
 * <li>{@code GET balanceroute}: the page (inside the console's frame), with a CSRF token;
 * <li>{@code GET balanceroute/state.json?since.POOL=SEQ&...}: what the page polls once a second:
 *     each pool's chart samples after the viewer's SEQ of that pool, the primary pool's newest
 *     per-worker figures, the fleet (pools, instances, workers and their state, {@link FleetView}),
 *     the cluster of proxies, the policies with their schema, the credentials warning and a fresh
 *     CSRF token ({@link StateJson});
 * <li>{@code POST balanceroute/policy} with header {@value CsrfTokens#HEADER}: a change of a pool's
 *     policy (the primary pool's without {@code pool}) through {@link PolicyAdmin}
 *     ({@link PolicyRequest}); without a valid token 403, nothing changed;
 * <li>{@code POST balanceroute/drain} and {@code POST balanceroute/undrain}, with the same header:
 *     starts or ends an operator's drain of a worker or of every worker of an instance
 *     ({@link DrainRequest}) through {@link RouterService#setWorkerDraining}.
 * </ul>
 *
 * <p><b>History.</b> Kept server-side: one sampler thread, started with the component, reads every
 * pool's {@link RouterService#snapshot()} (one per pool, from its own router) and
 * {@link RouterService#replicas()} about once a second into a bounded ring per pool
 * ({@link PoolHistories}); viewers read the ring and never reach the router's dispatch
 * thread themselves, so ten open tabs cost the router what one does, and a page opened late shows
 * the last minutes at once. Polling rather than SSE: a console request passes through the console's
 * servlet, which is not registered for asynchronous requests, so a stream would hold a Jetty thread
 * per viewer.
 */
@Component(service = Servlet.class, immediate = true, configurationPid = ConsolePluginConfig.PID, property = {
        "felix.webconsole.label=" + BalanceRoutePlugin.LABEL,
        "felix.webconsole.title=" + BalanceRoutePlugin.TITLE,
        "felix.webconsole.category=" + BalanceRoutePlugin.CATEGORY,
        "felix.webconsole.css=/" + BalanceRoutePlugin.LABEL + "/res/uplot/uPlot.min.css",
        "felix.webconsole.css=/" + BalanceRoutePlugin.LABEL + "/res/balanceroute.css",
        "service.description=BalanceRoute web console plugin"})
@Designate(ocd = ConsolePluginConfig.class)
public final class BalanceRoutePlugin extends HttpServlet {

    private static final long serialVersionUID = 1L;
    static final String LABEL = "balanceroute";
    static final String TITLE = "BalanceRoute";
    static final String CATEGORY = "BalanceRoute";
    /** How long a change may take to be in force before the page is told it is still pending. */
    static final Duration CHANGE_WAIT = Duration.ofSeconds(10);
    static final int MAX_BODY_BYTES = 64 * 1024;
    /** The request attribute the whiteboard sets from the console's authentication (also getRemoteUser()). */
    static final String REMOTE_USER = "org.osgi.service.http.authentication.remote.user";
    static final String PLUGIN_ROOT = "felix.webconsole.pluginRoot";

    private static final Logger LOG = LoggerFactory.getLogger(BalanceRoutePlugin.class);

    private final transient RouterService router;
    private final transient ConfigurationAdmin configurationAdmin;
    private final transient UnaryOperator<String> frameworkProperty;
    /** Replaced whole, with the interval, when the history's configuration changes. */
    private transient volatile History history;
    private final transient CsrfTokens csrf;
    private final transient LongSupplier clock;
    private final transient ScheduledExecutorService sampler;
    private transient ScheduledFuture<?> sampling; // guarded by this
    private final transient AtomicReference<ReplicasStatus> replicas = new AtomicReference<>();
    private final transient AtomicReference<String> lastSampleProblem = new AtomicReference<>();

    @Reference(cardinality = ReferenceCardinality.OPTIONAL, policy = ReferencePolicy.DYNAMIC,
            policyOption = ReferencePolicyOption.GREEDY)
    private transient volatile PolicyAdmin policyAdmin;

    @Reference(cardinality = ReferenceCardinality.OPTIONAL, policy = ReferencePolicy.DYNAMIC,
            policyOption = ReferencePolicyOption.GREEDY)
    private transient volatile FleetService fleetService;

    /** The rings of samples and the interval they were taken at. */
    private record History(PoolHistories pools, HistorySettings settings) {

        History(HistorySettings settings) {
            this(new PoolHistories(settings.historySamples()), settings);
        }
    }

    /** @throws ConfigurationException if the configuration is invalid (the activation fails) */
    @Activate
    public BalanceRoutePlugin(@Reference(name = "router") RouterService router,
            @Reference(name = "configurationAdmin") ConfigurationAdmin configurationAdmin, BundleContext context,
            Map<String, Object> properties) {
        this(router, configurationAdmin, context::getProperty,
                HistorySettings.read(ConfigProperties.of(ConsolePluginConfig.PID, properties)), CsrfTokens.random(),
                System::currentTimeMillis, true);
    }

    /** For tests: no sampler thread unless {@code sample}; samples are taken with {@link #sample()}. */
    BalanceRoutePlugin(RouterService router, ConfigurationAdmin configurationAdmin,
            UnaryOperator<String> frameworkProperty, HistorySettings settings, CsrfTokens csrf,
            LongSupplier clock, boolean sample) {
        this.router = router;
        this.configurationAdmin = configurationAdmin;
        this.frameworkProperty = frameworkProperty;
        this.history = new History(settings);
        this.csrf = csrf;
        this.clock = clock;
        if (sample) {
            sampler = Executors.newSingleThreadScheduledExecutor(r -> {
                Thread t = new Thread(r, "balanceroute-console-sampler");
                t.setDaemon(true);
                return t;
            });
            schedule(settings.sampleIntervalMillis());
        } else {
            sampler = null;
        }
    }

    /**
     * A valid new history configuration restarts the history with it (as a restart of the page
     * would); an invalid one is logged and the history in force goes on.
     */
    @Modified
    void modified(Map<String, Object> properties) {
        ConfigProperties.readUpdate(ConsolePluginConfig.PID, properties, HistorySettings::read,
                e -> LOG.error("console: configuration rejected: {}; keeping {}", e.getMessage(), history.settings()))
                .filter(next -> !next.equals(history.settings()))
                .ifPresent(next -> {
                    history = new History(next);
                    if (sampler != null) {
                        schedule(next.sampleIntervalMillis());
                    }
                });
    }

    private synchronized void schedule(long intervalMillis) {
        if (sampling != null) {
            sampling.cancel(false);
        }
        sampling = sampler.scheduleAtFixedRate(this::sample, 0, intervalMillis, TimeUnit.MILLISECONDS);
    }

    @Deactivate
    void stop() {
        if (sampler != null) {
            sampler.shutdownNow();
        }
    }

    /** For tests: which PolicyAdmin to use (DS sets the field otherwise). */
    void policyAdmin(PolicyAdmin admin) {
        this.policyAdmin = admin;
    }

    /** For tests: which FleetService to use (DS sets the field otherwise). */
    void fleetService(FleetService fleet) {
        this.fleetService = fleet;
    }

    /** The topology in force, or null without the fleet service (or when it fails). */
    private Fleet fleet() {
        FleetService f = fleetService;
        if (f == null) {
            return null;
        }
        try {
            return f.fleet();
        } catch (RuntimeException e) {
            LOG.warn("console: FleetService.fleet() failed: {}", e.toString());
            return null;
        }
    }

    /** One sample of every routed pool's router into its history, and the cluster's status (once per interval). */
    void sample() {
        long now = clock.getAsLong();
        PoolHistories histories = history.pools();
        String problem = null;
        try {
            List<String> routed = router.pools();
            histories.retain(routed);
            for (String name : routed) {
                RouterService pool = router.pool(name);
                if (pool == null) {
                    continue; // removed since pools() answered: its history goes at the next sample
                }
                try {
                    histories.add(name, now, pool.snapshot());
                } catch (RuntimeException e) {
                    // one pool's router failing leaves the others' samples
                    problem = problem == null ? "pool " + name + "'s snapshot: " + e.getMessage() : problem;
                }
            }
        } catch (RuntimeException e) {
            problem = "the router's pools: " + e.getMessage();
        }
        try {
            replicas.set(router.replicas());
        } catch (RuntimeException e) {
            problem = problem == null ? "the router's cluster status: " + e.getMessage() : problem;
        }
        String last = lastSampleProblem.getAndSet(problem);
        if (problem != null && !problem.equals(last)) {
            LOG.warn("console: no sample of {} (logged once until it answers again)", problem);
        }
    }

    /** The pool the registered router acts on, whose history is state.json's {@code history}. */
    private String primaryPool() {
        try {
            return router.poolName();
        } catch (RuntimeException e) {
            return Fleet.DEFAULT_POOL;
        }
    }

    /** The fleet section: every pool with its router's latest sample and its active policy. */
    private JsonNode fleetJson(String primary) {
        Map<String, String> active = new java.util.HashMap<>();
        try {
            for (String name : router.pools()) {
                RouterService r = router.pool(name);
                if (r != null) {
                    active.put(name, r.activePolicy());
                }
            }
        } catch (RuntimeException e) {
            LOG.debug("console: the pools' policies: {}", e.toString());
        }
        return FleetView.json(fleet(), primary, history.pools().latest(), active);
    }

    // ---------------------------------------------------------------- GET

    @Override
    protected void doGet(HttpServletRequest req, HttpServletResponse resp) throws IOException {
        String path = relativePath(req);
        switch (path) {
            case "", "/" -> page(req, resp);
            case "/state.json" -> writeJson(resp, HttpServletResponse.SC_OK, state(req::getParameter, user(req)));
            default -> resp.sendError(HttpServletResponse.SC_NOT_FOUND, "no such BalanceRoute console resource");
        }
    }

    /** The path after the plugin's label: "" for the page, "/state.json", "/policy". */
    static String relativePath(HttpServletRequest req) {
        String p = req.getPathInfo() == null ? "" : req.getPathInfo();
        String prefix = "/" + LABEL;
        return p.startsWith(prefix) ? p.substring(prefix.length()) : p;
    }

    private static String user(HttpServletRequest req) {
        String u = req.getRemoteUser();
        if (u == null && req.getAttribute(REMOTE_USER) instanceof String s) {
            u = s;
        }
        return u == null ? "" : u;
    }

    private void page(HttpServletRequest req, HttpServletResponse resp) throws IOException {
        Object rootAttribute = req.getAttribute(PLUGIN_ROOT);
        String root = rootAttribute instanceof String s ? s : req.getContextPath() + req.getServletPath() + "/" + LABEL;
        resp.setCharacterEncoding("utf-8");
        if (resp.getContentType() == null) {
            resp.setContentType("text/html");
        }
        PrintWriter pw = resp.getWriter();
        pw.print(Page.html(root, csrf.issue(user(req))));
        pw.flush();
    }

    /**
     * The state.json body for a viewer that has pool P's samples up to its parameter
     * {@code since.P} ({@code since}: the primary pool's, as before pools; none: all of them).
     */
    ObjectNode state(UnaryOperator<String> parameter, String user) {
        String primary = primaryPool();
        History current = history;
        PoolHistories histories = current.pools();
        LoadHistory own = histories.get(primary);
        ObjectNode o = StateJson.JSON.createObjectNode();
        o.put("time", clock.getAsLong());
        o.put("csrfToken", csrf.issue(user));
        o.set("history", samples(current, own, since(parameter, "since." + primary, "since")));
        o.set("latest", StateJson.latest(own == null ? null : own.latest()));
        ObjectNode others = o.putObject("histories");
        for (String name : histories.pools()) {
            LoadHistory h = histories.get(name);
            if (!name.equals(primary) && h != null) {
                others.set(name, samples(current, h, since(parameter, "since." + name, null)));
            }
        }
        o.set("fleet", fleetJson(primary));
        o.set("cluster", StateJson.replicas(replicas.get()));
        o.set("policies", policies());
        o.set("credentials", StateJson.credentials(credentials()));
        return o;
    }

    /** The first of these parameters that is set, as a sample number; 0 (every sample) without one or for junk. */
    private static long since(UnaryOperator<String> parameter, String name, String fallback) {
        String s = parameter.apply(name);
        if (s == null && fallback != null) {
            s = parameter.apply(fallback);
        }
        try {
            return s == null ? 0 : Long.parseLong(s);
        } catch (NumberFormatException e) {
            return 0;
        }
    }

    /** A pool's samples after {@code since} (none without a history yet). */
    private static JsonNode samples(History current, LoadHistory h, long since) {
        // the newest first: a sample added between the two reads is then sent, not skipped by seq
        LoadHistory.Sample newest = h == null ? null : h.latest();
        List<LoadHistory.Sample> samples = h == null ? List.of() : h.since(since);
        long seq = samples.isEmpty() ? (newest == null ? 0 : newest.seq()) : samples.get(samples.size() - 1).seq();
        return StateJson.history(samples, current.pools().capacity(), current.settings().sampleIntervalMillis(), seq);
    }

    private JsonNode policies() {
        String active;
        try {
            active = router.activePolicy();
        } catch (RuntimeException e) {
            active = RouterService.NO_POLICY;
        }
        PolicyAdmin admin = policyAdmin;
        if (admin == null) {
            return StateJson.policiesReadOnly(active, availableNames(),
                    "policy administration is not available (no PolicyAdmin service: the admin bundle is not "
                            + "running); the policies are shown, not switched");
        }
        try {
            return StateJson.policies(admin.activePolicy(), admin.policies());
        } catch (RuntimeException e) {
            LOG.warn("console: PolicyAdmin.policies() failed", e);
            return StateJson.policiesReadOnly(active, availableNames(),
                    "the policies could not be read: " + e.getMessage());
        }
    }

    private List<String> availableNames() {
        try {
            return router.availablePolicies();
        } catch (RuntimeException e) {
            return List.of();
        }
    }

    /** The console's credentials as ConfigAdmin holds them now (the default-password warning). */
    ConsoleCredentials credentials() {
        Map<String, Object> config = Map.of();
        try {
            Configuration[] found = configurationAdmin.listConfigurations("(service.pid=" + ConsoleCredentials.PID + ")");
            if (found != null && found.length > 0 && found[0].getProperties() != null) {
                var d = found[0].getProperties();
                var m = new java.util.HashMap<String, Object>();
                for (var keys = d.keys(); keys.hasMoreElements(); ) {
                    String k = keys.nextElement();
                    m.put(k, d.get(k));
                }
                config = m;
            }
        } catch (IOException | InvalidSyntaxException | RuntimeException e) {
            LOG.warn("console: cannot read {}: {}", ConsoleCredentials.PID, e.toString());
        }
        return ConsoleCredentials.of(config, frameworkProperty);
    }

    // ---------------------------------------------------------------- POST

    @Override
    protected void doPost(HttpServletRequest req, HttpServletResponse resp) throws IOException {
        String refusal = csrfRefusal(req);
        if (refusal != null) {
            LOG.warn("console: POST {} refused: {}", req.getRequestURI(), refusal);
            writeJson(resp, HttpServletResponse.SC_FORBIDDEN, StateJson.refused(refusal, null));
            return;
        }
        switch (relativePath(req)) {
            case "/policy" -> change(req, resp);
            case "/drain" -> drain(req, resp, true);
            case "/undrain" -> drain(req, resp, false);
            default -> writeJson(resp, HttpServletResponse.SC_NOT_FOUND,
                    StateJson.refused("no such BalanceRoute console action", null));
        }
    }

    /** Why a POST is refused before anything is read (the CSRF check), or null when it may proceed. */
    String csrfRefusal(HttpServletRequest req) {
        String origin = req.getHeader("Origin");
        if (origin != null && !origin.equals("null") && !sameOrigin(origin, req.getHeader("Host"))) {
            return "cross-origin request refused (Origin " + origin + " is not this console)";
        }
        if ("null".equals(origin)) {
            return "cross-origin request refused (Origin null)";
        }
        CsrfTokens.Verdict v = csrf.check(req.getHeader(CsrfTokens.HEADER), user(req));
        if (v != CsrfTokens.Verdict.VALID) {
            return "CSRF check failed: the request carries " + v.description
                    + "; changes are accepted only from the BalanceRoute console page (reload it)";
        }
        return null;
    }

    /** Whether an Origin header names the host the request was sent to (default ports allowed). */
    static boolean sameOrigin(String origin, String host) {
        if (host == null) {
            return false;
        }
        try {
            URI u = URI.create(origin);
            int defaultPort = "https".equalsIgnoreCase(u.getScheme()) ? 443 : 80;
            if (u.getHost() == null) {
                return false;
            }
            String o = u.getHost() + ":" + (u.getPort() == -1 ? defaultPort : u.getPort());
            String h = host.lastIndexOf(':') > host.lastIndexOf(']') ? host : host + ":" + defaultPort;
            return o.equalsIgnoreCase(h);
        } catch (IllegalArgumentException e) {
            return false;
        }
    }

    private void change(HttpServletRequest req, HttpServletResponse resp) throws IOException {
        PolicyAdmin admin = policyAdmin;
        if (admin == null) {
            writeJson(resp, HttpServletResponse.SC_SERVICE_UNAVAILABLE, StateJson.refused(
                    "policy administration is not available (no PolicyAdmin service): nothing changed", null));
            return;
        }
        JsonNode body;
        try (InputStream in = req.getInputStream()) {
            byte[] bytes = in.readNBytes(MAX_BODY_BYTES + 1);
            if (bytes.length > MAX_BODY_BYTES) {
                writeJson(resp, HttpServletResponse.SC_REQUEST_ENTITY_TOO_LARGE,
                        StateJson.refused("the body is larger than " + MAX_BODY_BYTES + " bytes", null));
                return;
            }
            body = StateJson.JSON.readTree(bytes);
        } catch (JsonProcessingException e) {
            writeJson(resp, HttpServletResponse.SC_BAD_REQUEST,
                    StateJson.refused("the body is not JSON: " + e.getOriginalMessage(), null));
            return;
        }
        try {
            List<PolicyDescription> known = admin.policies();
            PolicyRequest change = PolicyRequest.parse(body, known);
            String pool = change.pool() == null ? admin.primaryPool() : change.pool();
            ChangeResult result = admin.change(pool, change.policy(), change.parameters(), CHANGE_WAIT);
            LOG.info("console: {} changed pool {}'s policy: {} {} ({})", user(req), pool, change.policy(),
                    change.parameters(), result.applied() ? "applied" : "pending");
            writeJson(resp, HttpServletResponse.SC_OK, StateJson.changed(pool, result));
        } catch (PolicyRequest.BadRequest e) {
            writeJson(resp, HttpServletResponse.SC_BAD_REQUEST, StateJson.refused(e.getMessage(), e.field));
        } catch (UnknownPoolException e) {
            writeJson(resp, HttpServletResponse.SC_NOT_FOUND, StateJson.refused(e.getMessage(), e.field()));
        } catch (InvalidChangeException e) {
            LOG.info("console: {}'s change refused: {}", user(req), e.getMessage());
            writeJson(resp, HttpServletResponse.SC_BAD_REQUEST, StateJson.refused(e.getMessage(), e.field()));
        } catch (RuntimeException e) {
            LOG.error("console: the change failed", e);
            writeJson(resp, HttpServletResponse.SC_INTERNAL_SERVER_ERROR,
                    StateJson.refused("the change failed: " + e.getMessage(), null));
        }
    }

    /**
     * Drains ({@code on}) or undrains a worker or an instance of the named pool (its own router): the request is
     * checked against the router's layout now, each worker's drain is set through the router (fire
     * and forget, in order), then a fresh snapshot says where each stands.
     */
    private void drain(HttpServletRequest req, HttpServletResponse resp, boolean on) throws IOException {
        String action = on ? "drain" : "undrain";
        try {
            DrainRequest request;
            String type = req.getContentType();
            if (type != null && type.toLowerCase(Locale.ROOT).startsWith("application/json")) {
                JsonNode body;
                try (InputStream in = req.getInputStream()) {
                    byte[] bytes = in.readNBytes(MAX_BODY_BYTES + 1);
                    if (bytes.length > MAX_BODY_BYTES) {
                        throw new DrainRequest.Refusal(HttpServletResponse.SC_REQUEST_ENTITY_TOO_LARGE,
                                "the body is larger than " + MAX_BODY_BYTES + " bytes", null);
                    }
                    body = StateJson.JSON.readTree(bytes);
                } catch (JsonProcessingException e) {
                    throw new DrainRequest.Refusal(HttpServletResponse.SC_BAD_REQUEST,
                            "the body is not JSON: " + e.getOriginalMessage(), null);
                }
                request = DrainRequest.parse(body);
            } else {
                request = DrainRequest.parse(req::getParameter);
            }
            Fleet fleet = fleet();
            RouterService pool = router.pool(request.pool());
            if (pool == null) {
                throw new DrainRequest.Refusal(HttpServletResponse.SC_NOT_FOUND, "no pool '" + request.pool()
                        + "' is routed here", "pool");
            }
            DrainRequest.Target target = request.resolve(fleet, pool.snapshot());
            for (int g : target.workers()) {
                pool.setWorkerDraining(g, on);
            }
            LOG.info("console: {} asked to {} pool {} {} {}", user(req), action, target.pool(),
                    target.instance() == null ? "worker" : "instance " + target.instance() + ", workers",
                    Arrays.toString(target.workers()));
            PoolSnapshot after = null;
            try {
                after = pool.snapshot();
            } catch (RuntimeException e) {
                LOG.debug("console: no snapshot after the {}: {}", action, e.toString());
            }
            writeJson(resp, HttpServletResponse.SC_OK, StateJson.drained(action, target, fleet, after));
        } catch (DrainRequest.Refusal e) {
            writeJson(resp, e.status, StateJson.refused(e.getMessage(), e.field));
        } catch (RuntimeException e) {
            LOG.error("console: the {} failed", action, e);
            writeJson(resp, HttpServletResponse.SC_INTERNAL_SERVER_ERROR,
                    StateJson.refused("the " + action + " failed: " + e.getMessage(), null));
        }
    }

    private static void writeJson(HttpServletResponse resp, int status, JsonNode body) throws IOException {
        byte[] bytes = StateJson.JSON.writeValueAsBytes(body);
        resp.setStatus(status);
        resp.setContentType("application/json");
        resp.setCharacterEncoding(StandardCharsets.UTF_8.name());
        resp.setHeader("Cache-Control", "no-store");
        resp.setContentLength(bytes.length);
        resp.getOutputStream().write(bytes);
    }
}
