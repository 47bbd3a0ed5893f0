package org.balanceroute.fleet.internal;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.balanceroute.api.PoolView;
import org.balanceroute.api.config.ConfigProperties;
import org.balanceroute.fleet.DecodeInstance;
import org.balanceroute.fleet.Endpoint;
import org.balanceroute.fleet.Fleet;
import org.balanceroute.fleet.PoolTopology;
import org.osgi.framework.InvalidSyntaxException;
import org.osgi.service.cm.Configuration;
import org.osgi.service.cm.ConfigurationAdmin;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The pool {@value Fleet#DEFAULT_POOL} made from a configuration written before pools existed:
 * the connector's {@code prefillUrls} and {@code decodeWorkers} as one decode instance of the
 * router's {@code capacity}, answering every model name (the engine then answers for the names
 * it does not serve, as before). Where a key is absent its old default applies: the ports of
 * {@code ./balanceroute sim-cluster}.
 */
final class LegacyPool {

    static final String CONNECTOR_PID = "org.balanceroute.connector.vllm";
    static final String ROUTER_PID = "org.balanceroute.router";
    static final String INSTANCE = "decode";
    static final String DEFAULT_PREFILL = "http://127.0.0.1:18100, http://127.0.0.1:18101";
    static final String DEFAULT_DECODE = "http://127.0.0.1:18200, http://127.0.0.1:18201, http://127.0.0.1:18202,"
            + " http://127.0.0.1:18203, http://127.0.0.1:18204, http://127.0.0.1:18205, http://127.0.0.1:18206,"
            + " http://127.0.0.1:18207";

    private static final Logger LOG = LoggerFactory.getLogger(LegacyPool.class);

    private LegacyPool() {
    }

    /**
     * The old keys still set while pools are configured (no longer read): each as {@code PID key},
     * for a warning, so that an upgrade that kept the old files is not silently ignored.
     */
    static List<String> leftovers(ConfigurationAdmin admin) {
        return leftovers(properties(admin, CONNECTOR_PID), properties(admin, ROUTER_PID));
    }

    static List<String> leftovers(Map<String, Object> connector, Map<String, Object> router) {
        List<String> keys = new ArrayList<>();
        for (String k : List.of("prefillUrls", "decodeWorkers")) {
            if (connector.containsKey(k)) {
                keys.add(CONNECTOR_PID + " " + k);
            }
        }
        if (router.containsKey("capacity")) {
            keys.add(ROUTER_PID + " capacity");
        }
        return keys;
    }

    /** The migrated pool, or null (logged naming the PID and the field) if the old keys are invalid. */
    static PoolTopology read(ConfigurationAdmin admin) {
        Map<String, Object> connector = properties(admin, CONNECTOR_PID);
        Map<String, Object> router = properties(admin, ROUTER_PID);
        try {
            return from(connector, router);
        } catch (IllegalArgumentException e) {
            LOG.error("{} / {}: the decode tier configured without pools is invalid: {}; no pool", CONNECTOR_PID,
                    ROUTER_PID, e.getMessage());
            return null;
        }
    }

    static PoolTopology from(Map<String, Object> connector, Map<String, Object> router) {
        ConfigProperties c = ConfigProperties.of(CONNECTOR_PID, connector);
        List<String> prefill = new ArrayList<>();
        for (String u : c.list("prefillUrls", DEFAULT_PREFILL)) {
            prefill.add(Endpoint.url("prefillUrls", u));
        }
        List<Endpoint> workers = new ArrayList<>();
        for (String w : c.list("decodeWorkers", DEFAULT_DECODE)) {
            Endpoint e = Endpoint.parse("decodeWorkers", w);
            if (workers.contains(e)) {
                throw new IllegalArgumentException("decodeWorkers: '" + e.id() + "' is listed twice");
            }
            workers.add(e);
        }
        if (workers.isEmpty()) {
            throw new IllegalArgumentException("decodeWorkers: at least one decode worker");
        }
        int capacity = ConfigProperties.of(ROUTER_PID, router).intValue("capacity", PoolView.DEFAULT_CAPACITY, 1,
                PoolView.MAX_CAPACITY);
        return new PoolTopology(Fleet.DEFAULT_POOL, PoolTopology.ANY_MODEL, List.of(), prefill,
                List.of(new DecodeInstance(INSTANCE, workers, capacity)));
    }

    private static Map<String, Object> properties(ConfigurationAdmin admin, String pid) {
        try {
            Configuration[] found = admin.listConfigurations("(" + org.osgi.framework.Constants.SERVICE_PID + "=" + pid + ")");
            return found == null || found.length == 0 ? Map.of() : FleetComponent.map(found[0].getProperties());
        } catch (IOException | InvalidSyntaxException e) {
            LOG.error("{}: cannot be read: {}", pid, e.toString());
            return Map.of();
        }
    }
}
