package org.balanceroute.api;

import org.osgi.annotation.versioning.ProviderType;

/** The requests that finished prefill and wait for a decode worker, oldest first. */
@ProviderType
public interface PromptPoolView {

    int size();

    /** The request at position i, 0 being the oldest. */
    RequestView get(int index);

    default boolean isEmpty() {
        return size() == 0;
    }
}
