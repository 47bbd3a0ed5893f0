package org.balanceroute.connector.vllm;

import org.osgi.annotation.versioning.ProviderType;

/** A decode request in flight. */
@ProviderType
public interface DecodeExchange {

    /** Aborts the upstream request (client gone, timeout); the listener hears nothing more. Idempotent. */
    void cancel();
}
