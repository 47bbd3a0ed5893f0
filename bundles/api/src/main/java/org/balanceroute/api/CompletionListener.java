package org.balanceroute.api;

import org.osgi.annotation.versioning.ConsumerType;

/** Told, on the dispatch loop, of each request that finished normally with its output length. */
@ConsumerType
@FunctionalInterface
public interface CompletionListener {

    void onCompleted(RequestView request, int outputTokens);
}
