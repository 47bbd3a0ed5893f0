package org.balanceroute.proxy.internal;

import java.util.List;
import org.balanceroute.fleet.PoolTopology;
import org.balanceroute.router.RouterService;

/**
 * The line an operator reads at start to know the runtime serves, where and what: its address and
 * endpoints, each pool with its models, policy and engines, and the snapshot store (local, or the
 * cluster of proxies). Logged once, when the router and the connector are first both in service.
 */
final class ReadyLine {

    private ReadyLine() {
    }

    /**
     * @param host the HTTP bind address, or null (every interface)
     * @param port the HTTP port, or null when unknown
     * @param pools the fleet's pools
     * @param router the primary pool's router (each pool's found through it)
     */
    static String of(String host, String port, List<PoolTopology> pools, RouterService router) {
        StringBuilder b = new StringBuilder("ready: http://").append(host == null || host.isBlank() ? "0.0.0.0" : host)
                .append(':').append(port == null ? "?" : port)
                .append(" (OpenAI API /v1, health /health, metrics /metrics, admin /admin, console /system/console)");
        for (PoolTopology p : pools) {
            RouterService r = router.pool(p.name());
            b.append("; pool ").append(p.name()).append(": model ").append(String.join(", ", p.modelNames()))
                    .append(", policy ").append(r == null ? "?" : r.configuredPolicy())
                    .append(", prefill ").append(p.prefillUrls().isEmpty() ? "co-located" : p.prefillUrls().size() + " instance(s)")
                    .append(", decode ").append(p.describeInstances());
        }
        return b.append("; snapshot store ").append(router.replicas().store()).toString();
    }
}
