package org.balanceroute.proxy.internal;

/** The two generation endpoints, with the upstream path each is relayed to and the field that holds the prompt. */
enum Endpoint {
    COMPLETIONS("/v1/completions", "prompt"),
    CHAT_COMPLETIONS("/v1/chat/completions", "messages");

    final String path;
    /** What {@link org.balanceroute.wire.PromptKey} keys: the prompt, or the chat messages. */
    final String promptField;

    Endpoint(String path, String promptField) {
        this.path = path;
        this.promptField = promptField;
    }
}
