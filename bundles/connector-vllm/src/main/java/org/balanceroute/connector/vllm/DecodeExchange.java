package org.balanceroute.connector.vllm;

import org.osgi.annotation.versioning.ProviderType;

/** A decode request in flight. */
@ProviderType
public interface DecodeExchange {

    /** Aborts the upstream request (client gone, timeout); the listener hears nothing more. Idempotent. */
    void cancel();

    /**
     * Reads the answer again after {@link DecodeListener#onEventsRead(DecodeExchange)} held it;
     * any thread, at any time (before the hold too: then the hold does not happen). Idempotent.
     * An exchange that never asks its listener (one answered without a request) has nothing to
     * resume.
     */
    default void resume() {
    }
}
