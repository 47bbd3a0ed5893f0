package org.balanceroute.enginesim.internal;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.LongSupplier;

/**
 * The KV handles the cluster's prefill servers issued and not yet pulled. A decode request that
 * presents a handle takes it: once, before it expires, and only if a prefill server of this
 * cluster issued it with exactly those engine id, host and port.
 */
final class KvHandleRegistry {

    /** A handle as issued: who issued it, for how many prompt tokens, when the prefill arrived. */
    record Issued(String requestId, String engineId, String host, int port, int promptTokens, long issuedNanos,
                  long prefillArrivalNanos) {
    }

    /** Why a presented handle is refused; null fields on success. */
    record Taken(Issued handle, String error) {
    }

    private final Map<String, Issued> live = new ConcurrentHashMap<>();
    private final Map<String, Boolean> used = new ConcurrentHashMap<>();
    private final LongSupplier clockNanos;
    private final long ttlNanos;

    KvHandleRegistry(LongSupplier clockNanos, double ttlSeconds) {
        this.clockNanos = clockNanos;
        this.ttlNanos = (long) (ttlSeconds * 1e9);
    }

    long now() {
        return clockNanos.getAsLong();
    }

    void issue(Issued handle) {
        live.put(handle.requestId(), handle);
        purgeExpired();
    }

    /** Whether a prefill server of this cluster issued a handle of this id (live, or taken already). */
    boolean issuedHere(String remoteRequestId) {
        return remoteRequestId != null && (live.containsKey(remoteRequestId) || used.containsKey(remoteRequestId));
    }

    Taken take(String remoteRequestId, String engineId, String host, Integer port) {
        if (remoteRequestId == null) {
            return new Taken(null, "kv_transfer_params.remote_request_id is missing");
        }
        Issued h = live.get(remoteRequestId);
        if (h == null) {
            return new Taken(null, used.containsKey(remoteRequestId)
                    ? "KV handle " + remoteRequestId + " was already used by another decode request"
                    : "unknown KV handle " + remoteRequestId + ": no prefill server of this cluster issued it"
                      + " (or it expired and its blocks were freed)");
        }
        if (!h.engineId().equals(engineId) || !h.host().equals(host) || port == null || h.port() != port) {
            return new Taken(null, "KV handle " + remoteRequestId + " does not match the prefill engine that issued it"
                    + " (remote_engine_id, remote_host, remote_port)");
        }
        if (now() - h.issuedNanos() > ttlNanos) {
            live.remove(remoteRequestId);
            return new Taken(null, "KV handle " + remoteRequestId + " expired: the prefill engine freed its blocks after "
                    + ttlNanos / 1_000_000_000.0 + " s");
        }
        if (live.remove(remoteRequestId, h)) {
            used.put(remoteRequestId, Boolean.TRUE);
            return new Taken(h, null);
        }
        return new Taken(null, "KV handle " + remoteRequestId + " was already used by another decode request");
    }

    private void purgeExpired() {
        long now = now();
        if (live.size() > 10_000) {
            live.values().removeIf(h -> now - h.issuedNanos() > ttlNanos);
        }
        if (used.size() > 1_000_000) {
            used.clear();
        }
    }
}
