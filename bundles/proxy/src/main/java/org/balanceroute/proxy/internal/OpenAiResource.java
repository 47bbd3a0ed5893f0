package org.balanceroute.proxy.internal;

import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.container.AsyncResponse;
import jakarta.ws.rs.container.Suspended;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Reference;
import org.osgi.service.jakartars.whiteboard.propertytypes.JakartarsName;
import org.osgi.service.jakartars.whiteboard.propertytypes.JakartarsResource;

/**
 * {@code GET /v1/models}, answered asynchronously (no container thread waits for an engine). The
 * two generation endpoints are {@link CompletionsServlet}'s, past Jersey.
 * A singleton and stateless, so safe for concurrent requests: prototype scope cost an SCR component
 * instance per request, made under a lock every request thread contends for.
 */
@Component(service = OpenAiResource.class)
@JakartarsResource
@JakartarsName("balanceroute.proxy.openai")
@Path("v1")
public final class OpenAiResource {

    private final CompletionFlow flow;

    @Activate
    public OpenAiResource(@Reference(name = "flow") CompletionFlow flow) {
        this.flow = flow;
    }

    @GET
    @Path("models")
    public void models(@Suspended AsyncResponse async) {
        flow.models(async);
    }
}
