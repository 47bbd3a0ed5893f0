package org.balanceroute.fleet.internal;

import java.io.IOException;
import java.util.Dictionary;
import java.util.Enumeration;
import java.util.HashMap;
import java.util.Hashtable;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.balanceroute.api.config.ConfigurationException;
import org.balanceroute.fleet.Endpoint;
import org.balanceroute.fleet.Fleet;
import org.balanceroute.fleet.FleetListener;
import org.balanceroute.fleet.FleetService;
import org.balanceroute.fleet.PoolTopology;
import org.osgi.framework.BundleContext;
import org.osgi.framework.Constants;
import org.osgi.framework.InvalidSyntaxException;
import org.osgi.framework.ServiceRegistration;
import org.osgi.service.cm.Configuration;
import org.osgi.service.cm.ConfigurationAdmin;
import org.osgi.service.cm.ConfigurationEvent;
import org.osgi.service.cm.ConfigurationListener;
import org.osgi.service.cm.ManagedServiceFactory;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Deactivate;
import org.osgi.service.component.annotations.ConfigurationPolicy;
import org.osgi.service.component.annotations.Reference;
import org.osgi.service.component.annotations.ReferenceCardinality;
import org.osgi.service.component.annotations.ReferencePolicy;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The topology's one owner: the pools' factory configurations ({@value Fleet#FACTORY_PID}, one
 * per pool, {@code org.balanceroute.pool~NAME}) read, checked alone ({@link PoolConfigReader})
 * and against each other (no model name and no decode worker in two pools), and the accepted
 * fleet registered as the {@link FleetService} and told to the {@link FleetListener}s. Config-or-error: a rejected configuration is logged
 * naming its PID and the field, and what was in force for that pool stays in force.
 *
 * <p><b>Migration.</b> While no pool is configured, the pool {@value Fleet#DEFAULT_POOL} is made
 * from the keys that described the one decode tier before pools existed: the connector's
 * {@code prefillUrls} and {@code decodeWorkers} (one decode instance) and the router's
 * {@code capacity}; it answers every model name. A pool configuration, once present, replaces it.
 */
@Component(immediate = true, configurationPolicy = ConfigurationPolicy.IGNORE,
        service = {ManagedServiceFactory.class, ConfigurationListener.class},
        property = Constants.SERVICE_PID + "=" + Fleet.FACTORY_PID)
public final class FleetComponent implements FleetService, ManagedServiceFactory, ConfigurationListener {

    /** Property of the {@link FleetService} registration, raised at every accepted change. */
    public static final String GENERATION = "balanceroute.fleet.generation";

    private static final Logger LOG = LoggerFactory.getLogger(FleetComponent.class);

    private final ConfigurationAdmin configurationAdmin;
    private final Object lock = new Object();
    /** Accepted pools by the PID of their configuration; guarded by lock. */
    private final Map<String, PoolTopology> byPid = new LinkedHashMap<>();
    private final List<FleetListener> listeners = new CopyOnWriteArrayList<>();
    private volatile Fleet fleet = Fleet.EMPTY;
    private long generation;
    /** The old keys last warned about; under lock. */
    private List<String> warnedLeftovers = List.of();
    /** The FleetService registration (null without a framework: tests); under lock. */
    private ServiceRegistration<FleetService> registration;

    /** Without a framework (tests): the fleet is read, not registered. */
    FleetComponent(ConfigurationAdmin configurationAdmin) {
        this(configurationAdmin, null);
    }

    @Activate
    public FleetComponent(@Reference ConfigurationAdmin configurationAdmin, BundleContext context) {
        this.configurationAdmin = configurationAdmin;
        synchronized (lock) {
            // the pools present now, at once: waiting for their updated() calls would put the
            // migrated pool in force for a moment
            try {
                Configuration[] present = configurationAdmin.listConfigurations(
                        "(" + ConfigurationAdmin.SERVICE_FACTORYPID + "=" + Fleet.FACTORY_PID + ")");
                for (Configuration c : present == null ? new Configuration[0] : present) {
                    accept(c.getPid(), c.getProperties());
                }
            } catch (IOException | InvalidSyntaxException e) {
                LOG.error("{}: cannot list the pools' configurations: {}", Fleet.FACTORY_PID, e.toString());
            }
            publish();
            // Registered here, not by SCR: a listener that also takes the fleet service at its
            // activation (the connector) is activated when it is bound below, and a service SCR
            // registers for a component still activating is a circular reference SCR resolves
            // only some of the time (the runtime then started without its pool, 2 of 6 starts).
            if (context != null) {
                registration = context.registerService(FleetService.class, this, properties());
            }
        }
    }

    @Reference(cardinality = ReferenceCardinality.MULTIPLE, policy = ReferencePolicy.DYNAMIC,
            unbind = "removeListener")
    void addListener(FleetListener listener) {
        synchronized (lock) {
            listeners.add(listener);
            tell(listener, fleet);
        }
    }

    void removeListener(FleetListener listener) {
        listeners.remove(listener);
    }

    @Deactivate
    void stop() {
        synchronized (lock) {
            if (registration != null) {
                try {
                    registration.unregister();
                } catch (IllegalStateException alreadyGone) {
                    // the framework unregistered it with the bundle
                }
                registration = null;
            }
        }
    }

    private Dictionary<String, Object> properties() {
        Hashtable<String, Object> p = new Hashtable<>();
        p.put(GENERATION, generation);
        return p;
    }

    @Override
    public Fleet fleet() {
        return fleet;
    }

    @Override
    public String getName() {
        return "BalanceRoute pools";
    }

    @Override
    public void updated(String pid, Dictionary<String, ?> properties) {
        synchronized (lock) {
            if (accept(pid, properties)) {
                publish();
            }
        }
    }

    @Override
    public void deleted(String pid) {
        synchronized (lock) {
            PoolTopology gone = byPid.remove(pid);
            if (gone != null) {
                LOG.info("{}: pool {} removed", pid, gone.name());
                publish();
            }
        }
    }

    /** A change of the legacy PIDs: the migrated pool while no pool is configured, else a warning if the old keys stay. */
    @Override
    public void configurationEvent(ConfigurationEvent event) {
        String pid = event.getPid();
        if (LegacyPool.CONNECTOR_PID.equals(pid) || LegacyPool.ROUTER_PID.equals(pid)) {
            synchronized (lock) {
                if (byPid.isEmpty()) {
                    publish();
                } else {
                    warnLeftovers();
                }
            }
        }
    }

    /** Logs once per set the old topology keys that pools make unread. Under lock. */
    private void warnLeftovers() {
        List<String> left = LegacyPool.leftovers(configurationAdmin);
        if (!left.isEmpty() && !left.equals(warnedLeftovers)) {
            LOG.warn("{}: pools are configured, so {} are not read; move them into the pool's file and delete them"
                    + " (docs/fleet.md, Migration)", Fleet.FACTORY_PID, left);
        }
        warnedLeftovers = left;
    }

    /** Checks one pool's configuration alone and against the others; true if it changed what is in force. */
    private boolean accept(String pid, Dictionary<String, ?> properties) {
        PoolTopology pool;
        try {
            pool = PoolConfigReader.read(poolName(pid, properties), map(properties));
            checkAgainstOthers(pid, pool);
        } catch (IllegalArgumentException e) {
            // a ConfigurationException names the PID itself; the pool's own rules name the field only
            LOG.error("configuration rejected: {}; {}", e instanceof ConfigurationException ? e.getMessage()
                    : pid + ": " + e.getMessage(),
                    byPid.containsKey(pid) ? "the pool's previous configuration stays in force" : "the pool is not added");
            return false;
        }
        PoolTopology before = byPid.put(pid, pool);
        if (pool.equals(before)) {
            return false;
        }
        LOG.info("{}: pool {} ({}) {}: {} prefill instance(s), decode instances {}", pid, pool.name(),
                String.join(", ", pool.modelNames()), before == null ? "added" : "changed", pool.prefillUrls().size(),
                pool.describeInstances());
        return true;
    }

    /** {@code org.balanceroute.pool~NAME}: NAME. */
    static String poolName(String pid, Dictionary<String, ?> properties) {
        int tilde = pid.indexOf('~');
        if (tilde >= 0) {
            return pid.substring(tilde + 1);
        }
        Object name = properties == null ? null : properties.get("name");
        if (name instanceof String s && !s.isBlank()) {
            return s.trim();
        }
        throw new IllegalArgumentException("name: a pool's configuration is " + Fleet.FACTORY_PID
                + "~NAME (or has a name property)");
    }

    private void checkAgainstOthers(String pid, PoolTopology pool) {
        for (Map.Entry<String, PoolTopology> e : byPid.entrySet()) {
            if (e.getKey().equals(pid)) {
                continue;
            }
            PoolTopology other = e.getValue();
            if (other.name().equals(pool.name())) {
                throw new IllegalArgumentException("name: pool '" + pool.name() + "' is configured twice (" + e.getKey() + ")");
            }
            for (String n : pool.modelNames()) {
                if (other.modelNames().contains(n)) {
                    throw new IllegalArgumentException((n.equals(pool.model()) ? PoolConfigReader.MODEL : PoolConfigReader.ALIASES)
                            + ": '" + n + "' is already served by pool '" + other.name() + "'");
                }
            }
            for (Endpoint w : pool.workers()) {
                if (other.workers().contains(w)) {
                    throw new IllegalArgumentException("instances: worker '" + w.id() + "' already belongs to pool '"
                            + other.name() + "'");
                }
            }
        }
    }

    /** Puts the fleet in force and tells the listeners, if it changed; under the lock, so they hear changes in order. */
    private void publish() {
        Map<String, PoolTopology> pools = new HashMap<>();
        if (byPid.isEmpty()) {
            PoolTopology legacy = LegacyPool.read(configurationAdmin);
            if (legacy != null) {
                pools.put(legacy.name(), legacy);
            }
        } else {
            for (PoolTopology p : byPid.values()) {
                pools.put(p.name(), p);
            }
        }
        if (!byPid.isEmpty()) {
            warnLeftovers();
        }
        Fleet next = new Fleet(pools);
        if (next.equals(fleet)) {
            return;
        }
        fleet = next;
        generation++;
        if (registration != null) {
            registration.setProperties(properties());
        }
        for (FleetListener l : listeners) {
            tell(l, next);
        }
    }

    private static void tell(FleetListener l, Fleet f) {
        try {
            l.fleetChanged(f);
        } catch (RuntimeException e) {
            LOG.warn("{}: fleet listener {} failed: {}", Fleet.FACTORY_PID, l, e.toString());
        }
    }

    static Map<String, Object> map(Dictionary<String, ?> d) {
        Map<String, Object> m = new HashMap<>();
        if (d != null) {
            for (Enumeration<String> keys = d.keys(); keys.hasMoreElements();) {
                String k = keys.nextElement();
                m.put(k, d.get(k));
            }
        }
        return m;
    }
}
