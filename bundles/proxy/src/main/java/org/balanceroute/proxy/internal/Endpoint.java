package org.balanceroute.proxy.internal;

/** The two generation endpoints, with the upstream path each is relayed to. */
enum Endpoint {
    COMPLETIONS("/v1/completions"),
    CHAT_COMPLETIONS("/v1/chat/completions");

    final String path;

    Endpoint(String path) {
        this.path = path;
    }
}
