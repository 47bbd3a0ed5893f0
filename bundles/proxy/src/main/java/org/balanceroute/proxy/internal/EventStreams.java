package org.balanceroute.proxy.internal;

/**
 * Commits one request's 200 event stream and gives where its bytes go; at most once per request
 * (the exchange chooses its answer once). {@link ServletEventStream#opener} in the runtime.
 */
@FunctionalInterface
interface EventStreams {

    /** The 200 {@code text/event-stream} answer carrying {@code requestId}; null if the client cannot be answered. */
    ClientOutput open(String requestId);
}
