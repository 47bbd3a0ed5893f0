package org.balanceroute.proxy.internal;

import jakarta.ws.rs.core.Response;

/**
 * Where an exchange's one plain answer goes (an error, a non-streaming completion): the servlet
 * response of {@link CompletionsServlet}, or a JAX-RS {@code AsyncResponse} ({@code /v1/models},
 * tests). An event stream goes through {@link EventStreams} instead, never both.
 */
@FunctionalInterface
interface PlainAnswer {
    void answer(Response response);
}
