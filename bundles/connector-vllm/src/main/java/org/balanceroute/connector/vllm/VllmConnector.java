package org.balanceroute.connector.vllm;

import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.osgi.annotation.versioning.ProviderType;

/**
 * The prefill and decode tiers of a vLLM / vllm-ascend PD-disaggregated deployment: the engines
 * of the pool's topology (P prefill instances, decode workers, one endpoint per DP rank or one
 * endpoint with the {@value #RANK_HEADER} header, numbered instance by instance: the router's
 * worker g is decode worker g), reached as PID {@value #PID} configures (key, timeouts, retries).
 *
 * <p><b>Pools.</b> One connector per pool of the fleet's topology, over one shared HTTP client:
 * each pool has its own engines, health marks and prefill budget. The registered service acts on
 * the primary pool ({@code default}, else the first by name, whichever it is at the call);
 * {@link #pool(String)} gives any pool's.
 */
@ProviderType
public interface VllmConnector {

    /** Configuration PID and component name. */
    String PID = "org.balanceroute.connector.vllm";

    /** Header that pins a request to a DP rank behind one vLLM endpoint. */
    String RANK_HEADER = "X-data-parallel-rank";

    /** Header carrying the request id on both hops. */
    String REQUEST_ID_HEADER = "X-Request-Id";

    /** The decode workers of the pool's topology, over all its instances. */
    int decodeWorkers();

    /** P, the configured prefill instances; 0 in co-located mode (decode workers run the whole request). */
    int prefillInstances();

    /** The identity of decode worker g now ({@code URL} or {@code URL;rank=N}). */
    String decodeWorker(int worker);

    /** Whether the last health check of decode worker g answered 200 (true before the first check). */
    boolean decodeHealthy(int worker);

    /** Whether the last health check of prefill instance i answered 200 (true before the first check). */
    boolean prefillHealthy(int instance);

    /** Prefills running on instance i now (at most {@code prefillMaxInFlight}); 0 in co-located mode. */
    int prefillInFlight(int instance);

    /** Prefills waiting in the connector for a slot on a prefill instance now; 0 in co-located mode. */
    int prefillQueued();

    /**
     * The prefill hop: the client body mutated as the contract says, sent to the least-loaded
     * healthy prefill instance, retried with backoff (never on HTTP 400). At most
     * {@code prefillMaxInFlight} prefills run per instance; beyond that they wait in a bounded
     * FIFO and start as slots free. In co-located mode ({@link #prefillInstances()} 0) nothing is
     * sent: the future is already complete with an {@link PrefillResult#estimated() estimated} s_i
     * and no KV handle.
     *
     * @param requestId the X-Request-Id, reused for the decode hop
     * @param path {@code /v1/completions} or {@code /v1/chat/completions}
     * @param clientBody the client's body; not modified
     * @return the prompt length and the KV handle; completes exceptionally with
     *     {@link UpstreamException} (the upstream status and body, or status 0 and the cause when
     *     nothing answered) once no attempt is left, or at once with
     *     {@link PrefillQueueFullException} when the wait queue is full
     */
    CompletableFuture<PrefillResult> prefill(String requestId, String path, ObjectNode clientBody);

    /**
     * The decode hop: the client body plus the prefill's {@code kv_transfer_params}, same
     * X-Request-Id, to the decode worker of identity {@code worker}; the answer is streamed to the
     * listener as it comes. By identity, not index: while the topology changes the router's layout
     * and this connector's may differ for a moment, and an index would then name another engine.
     * A worker not in the pool's topology now fails the listener with {@link UpstreamException}
     * 503 naming it.
     *
     * @param worker the worker's identity ({@code URL} or {@code URL;rank=N}, as the router's layout
     *     and its placements name it)
     * @param kvTransferParams the prefill's handle, passed on verbatim; null to send none
     */
    DecodeExchange decode(String requestId, String worker, String path, ObjectNode clientBody,
            ObjectNode kvTransferParams, DecodeListener listener);

    /**
     * {@code GET path} on the decode workers in order, answering the first 200 (e.g.
     * {@code /v1/models}); completes exceptionally with {@link UpstreamException} when none does.
     */
    CompletableFuture<UpstreamResponse> getFromFirstDecode(String path);

    /** The pools connected now, by name, sorted. */
    List<String> pools();

    /**
     * The connector of pool {@code name}: every method of the returned service acts on that pool's
     * engines alone. Null when no such pool is connected. The same object while the pool exists;
     * once the pool is removed, a new prefill on it fails with {@link UpstreamException} 503 (what
     * was in flight runs to its end).
     *
     * @throws NullPointerException if {@code name} is null
     */
    VllmConnector pool(String name);

    /** The name of the pool this service acts on ("none" before the topology is known). */
    String poolName();
}
