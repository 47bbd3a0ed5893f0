package org.balanceroute.admin.internal;

import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import org.balanceroute.admin.PolicyAdmin;
import org.balanceroute.fleet.Fleet;
import org.balanceroute.fleet.FleetService;
import org.balanceroute.router.RouterService;
import org.osgi.service.cm.Configuration;
import org.osgi.service.cm.ConfigurationAdmin;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Reference;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The {@link PolicyAdmin} service the admin REST API and the web console share. The schema of
 * each policy is its bundle's metatype ({@link PolicySchemas}); a change is validated against it,
 * written through ConfigAdmin (the policy's parameters to the PID it names, then the pool's
 * {@code policy}: its factory configuration's, or the router's for the pool made from the keys of
 * before pools), as a configuration file edit would be, and then waited for: the answer comes
 * when the pool's router reports the policy active ({@link RouterService#activePolicy()}) and the
 * policy reports the new values in force ({@link RouterService#policyParameters}), or when the
 * wait runs out. Both are what a follower of a cluster of proxies reports too (the dispatcher's active
 * policy; shared configuration carries the change to every replica), so the wait means the same
 * there.
 *
 * <p>Changes are serialised (one at a time, each answered before the next is written), so each
 * answer speaks of its own change. Reads never wait.
 */
@Component(service = PolicyAdmin.class)
public final class PolicyAdminService implements PolicyAdmin {

    /** The router's configuration PID. */
    static final String ROUTER_PID = RouterService.PID;

    /** How often the wait looks at the router (two volatile reads, no lock). */
    static final long POLL_MILLIS = 10;

    private static final Logger LOG = LoggerFactory.getLogger(PolicyAdminService.class);

    private final RouterService router;
    private final FleetService fleet;
    private final ConfigStore configs;
    private final PolicySchemas schemas;

    @Activate
    public PolicyAdminService(@Reference(name = "router") RouterService router,
            @Reference(name = "fleet") FleetService fleet,
            @Reference(name = "configurationAdmin") ConfigurationAdmin configurationAdmin,
            @Reference(name = "schemas") PolicySchemas schemas) {
        this(router, fleet, new ConfigStore(configurationAdmin), schemas);
    }

    PolicyAdminService(RouterService router, FleetService fleet, ConfigStore configs, PolicySchemas schemas) {
        this.router = Objects.requireNonNull(router, "router");
        this.fleet = Objects.requireNonNull(fleet, "fleet");
        this.configs = Objects.requireNonNull(configs, "configs");
        this.schemas = Objects.requireNonNull(schemas, "schemas");
    }

    @Override
    public String activePolicy() {
        return router.activePolicy();
    }

    @Override
    public String primaryPool() {
        return router.poolName();
    }

    @Override
    public PoolPolicy poolPolicy(String pool) throws UnknownPoolException {
        requireKnown(pool);
        RouterService r = router.pool(pool);
        return new PoolPolicy(pool, r == null ? null : r.activePolicy(), r == null ? null : r.configuredPolicy());
    }

    /** A pool the fleet has, or whose router is there (before the fleet knows a topology: the primary). */
    private void requireKnown(String pool) throws UnknownPoolException {
        if (pool == null || (router.pool(pool) == null && fleet.fleet().pool(pool) == null)) {
            throw new UnknownPoolException(String.valueOf(pool));
        }
    }

    @Override
    public List<PolicyDescription> policies() {
        Map<String, PolicySchemas.PolicySchema> known = schemas.byName();
        List<PolicyDescription> out = new ArrayList<>();
        for (String name : router.availablePolicies()) {
            PolicySchemas.PolicySchema s = known.get(name);
            List<ParameterDescription> parameters = s == null ? List.of()
                    : s.tunables().stream().map(Tunable::description).toList();
            out.add(new PolicyDescription(name, s == null ? null : s.pid(), parameters, router.policyParameters(name)));
        }
        return List.copyOf(out);
    }

    @Override
    public ChangeResult change(String policy, Map<String, Object> parameters, Duration wait)
            throws InvalidChangeException {
        return change(primaryPool(), policy, parameters, wait, true);
    }

    /**
     * {@inheritDoc}
     *
     * <p>Parameter values are taken as JSON types them: a whole number ({@code Integer},
     * {@code Long}) for an {@code integer} or {@code long}, any number for a {@code number},
     * a {@code Boolean} for a {@code boolean}, text for a {@code string}; text is not parsed
     * (a form sends its values converted by the schema's {@code type}).
     *
     * @throws IllegalStateException if ConfigAdmin cannot write the configuration (part of the
     *     change may then be written)
     */
    @Override
    public ChangeResult change(String pool, String policy, Map<String, Object> parameters, Duration wait)
            throws InvalidChangeException {
        return change(pool, policy, parameters, wait, false);
    }

    /**
     * @param routerWide {@code PUT /admin/policy}: the router's {@code policy} is written, as before
     *     pools (every pool whose file names none routes with it, and the cluster's shared PIDs carry
     *     it to every replica), and the pool's own {@code policy} key too when its file has one (so it
     *     is in force there); else the pool's file alone (a pool without a file: the router's)
     */
    private synchronized ChangeResult change(String pool, String policy, Map<String, Object> parameters, Duration wait,
            boolean routerWide) throws InvalidChangeException {
        requireKnown(pool);
        PolicyChange change = PolicyChange.of(policy, parameters == null ? Map.of() : parameters,
                router.availablePolicies(), policy == null ? null : schemas.byName().get(policy.trim()), configs::read);
        String target;
        try {
            if (!change.writes().isEmpty()) {
                configs.write(change.pid(), change.writes());
            }
            Configuration own = configs.factoryConfiguration(Fleet.FACTORY_PID, pool);
            boolean ownKey = own != null && own.getProperties() != null && own.getProperties().get(Fleet.POLICY_PROPERTY) != null;
            target = "";
            if (own == null || routerWide) {
                target = ROUTER_PID;
                configs.write(ROUTER_PID, Map.of(RouterService.POLICY_PROPERTY, change.policy()));
            }
            if (own != null && (!routerWide || ownKey)) {
                target = (target.isEmpty() ? "" : target + " and ") + own.getPid();
                configs.write(own, Map.of(Fleet.POLICY_PROPERTY, change.policy()));
            }
        } catch (IOException | RuntimeException e) {
            LOG.error("admin: writing the configuration failed", e);
            throw new IllegalStateException("the configuration could not be written: " + e.getMessage(), e);
        }
        LOG.info("admin: pool {}: policy {} configured in {}, parameters {}", pool, change.policy(), target,
                change.parameters());
        return awaitInForce(pool, change, wait == null || wait.isNegative() ? Duration.ZERO : wait);
    }

    private ChangeResult awaitInForce(String pool, PolicyChange change, Duration wait) {
        long deadline = System.nanoTime() + wait.toNanos();
        while (true) {
            RouterService r = router.pool(pool); // looked up each time: a new pool's router may come meanwhile
            String active = r == null ? RouterService.NO_POLICY : r.activePolicy();
            String pending = r == null ? "pool '" + pool + "' has no router yet" : pending(r, change, active);
            if (pending == null) {
                return new ChangeResult(true, active, router.policyParameters(active),
                        "policy " + change.policy() + " is in force" + (change.writes().isEmpty() ? ""
                                : " with " + change.writes()));
            }
            long left = deadline - System.nanoTime();
            if (left <= 0) {
                return new ChangeResult(false, active, router.policyParameters(active),
                        "written through ConfigAdmin, not yet in force after " + wait.toMillis() + " ms: " + pending
                                + "; the router applies it once it receives the configuration (GET /admin/pools/" + pool
                                + "/policy shows what is in force)");
            }
            try {
                TimeUnit.NANOSECONDS.sleep(Math.min(left, TimeUnit.MILLISECONDS.toNanos(POLL_MILLIS)));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return new ChangeResult(false, active, router.policyParameters(active),
                        "written through ConfigAdmin; interrupted while waiting for it to be in force: " + pending);
            }
        }
    }

    /**
     * What is not in force yet, or null when everything is: the policy active, and every
     * parameter the policy reports at its new value (a parameter it does not report is not
     * waited for).
     */
    private static String pending(RouterService r, PolicyChange change, String active) {
        if (!change.policy().equals(active)) {
            return "the router reports " + active + " active";
        }
        Map<String, Object> inForce = r.policyParameters(change.policy());
        for (Map.Entry<String, Object> e : change.parameters().entrySet()) {
            Object now = inForce.get(e.getKey());
            if (now != null && !same(now, e.getValue())) {
                return change.policy() + " reports " + e.getKey() + " = " + now + ", not " + e.getValue();
            }
        }
        return null;
    }

    /** Equal values, whatever their Java types (a policy may report an int written as a long). */
    static boolean same(Object a, Object b) {
        if (a instanceof Number x && b instanceof Number y) {
            boolean floating = x instanceof Double || x instanceof Float || y instanceof Double || y instanceof Float;
            return floating ? Double.compare(x.doubleValue(), y.doubleValue()) == 0 : x.longValue() == y.longValue();
        }
        return String.valueOf(a).equals(String.valueOf(b));
    }
}
