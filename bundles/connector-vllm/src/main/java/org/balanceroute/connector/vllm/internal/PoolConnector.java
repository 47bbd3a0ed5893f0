package org.balanceroute.connector.vllm.internal;

import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.balanceroute.connector.vllm.DecodeExchange;
import org.balanceroute.connector.vllm.DecodeListener;
import org.balanceroute.connector.vllm.PrefillResult;
import org.balanceroute.connector.vllm.UpstreamException;
import org.balanceroute.connector.vllm.UpstreamResponse;
import org.balanceroute.connector.vllm.VllmConnector;
import org.balanceroute.fleet.PoolTopology;

/**
 * One pool's connector: its own {@link HealthMonitor} (endpoints, marks, prefill budget, checks)
 * over the component's shared HTTP client, {@link PrefillClient} and {@link DecodeClient}. Once
 * the pool has left the topology, a new prefill fails (503 naming the pool); what is in flight
 * on its engines runs to its end.
 */
final class PoolConnector implements VllmConnector {

    private final VllmConnectorComponent connector;
    final HealthMonitor health;
    private final PrefillClient prefills;
    private final DecodeClient decodes;
    private final String name;

    PoolConnector(VllmConnectorComponent connector, HealthMonitor health, PrefillClient prefills, DecodeClient decodes) {
        this.connector = connector;
        this.health = health;
        this.prefills = prefills;
        this.decodes = decodes;
        this.name = health.endpoints().settings.pool().name();
    }

    /** The pool's topology in force. */
    PoolTopology topology() {
        return health.endpoints().settings.pool();
    }

    @Override
    public int decodeWorkers() {
        return health.endpoints().decode.size();
    }

    @Override
    public int prefillInstances() {
        return health.endpoints().prefill.size();
    }

    @Override
    public String decodeWorker(int worker) {
        return health.endpoints().decode.get(worker).id();
    }

    @Override
    public boolean decodeHealthy(int worker) {
        return health.endpoints().decodeDown.get(worker) == 0;
    }

    @Override
    public boolean prefillHealthy(int instance) {
        return health.endpoints().prefillDown.get(instance) == 0;
    }

    @Override
    public int prefillInFlight(int instance) {
        PrefillSlots slots = health.endpoints().prefillSlots;
        return slots == null ? 0 : slots.inFlight(instance);
    }

    @Override
    public int prefillQueued() {
        PrefillSlots slots = health.endpoints().prefillSlots;
        return slots == null ? 0 : slots.queued();
    }

    @Override
    public CompletableFuture<PrefillResult> prefill(String requestId, String path, ObjectNode clientBody) {
        if (health.stopped()) {
            return CompletableFuture.failedFuture(new UpstreamException(503, null,
                    "pool '" + name + "' was removed from the topology", null));
        }
        Endpoints ep = health.endpoints();
        if (ep.decode.isEmpty()) {
            // before the fleet told any pool: not co-located mode, no engine known yet
            return CompletableFuture.failedFuture(new UpstreamException(503, null,
                    "no decode worker known yet: the pool's topology has not reached the connector", null));
        }
        return prefills.prefill(ep, requestId, path, clientBody);
    }

    /** Also on a removed pool: the decode hop of a request whose prefill ran there is part of an exchange in flight. */
    @Override
    public DecodeExchange decode(String requestId, String worker, String path, ObjectNode clientBody,
            ObjectNode kvTransferParams, DecodeListener listener) {
        return decodes.decode(health, health.endpoints(), requestId, worker, path, clientBody, kvTransferParams, listener);
    }

    @Override
    public CompletableFuture<UpstreamResponse> getFromFirstDecode(String path) {
        return decodes.getFromFirst(health.endpoints(), path);
    }

    @Override
    public List<String> pools() {
        return connector.pools();
    }

    @Override
    public VllmConnector pool(String poolName) {
        return connector.pool(poolName);
    }

    @Override
    public String poolName() {
        return name;
    }

    @Override
    public String toString() {
        return "VllmConnector[pool " + name + (health.stopped() ? ", removed]" : "]");
    }
}
