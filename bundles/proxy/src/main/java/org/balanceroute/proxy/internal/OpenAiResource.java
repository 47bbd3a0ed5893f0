package org.balanceroute.proxy.internal;

import jakarta.ws.rs.GET;
import jakarta.ws.rs.HeaderParam;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.container.AsyncResponse;
import jakarta.ws.rs.container.Suspended;
import jakarta.ws.rs.core.Context;
import jakarta.ws.rs.core.HttpHeaders;
import jakarta.servlet.http.HttpServletRequest;
import org.balanceroute.connector.vllm.VllmConnector;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Reference;
import org.osgi.service.jakartars.whiteboard.propertytypes.JakartarsName;
import org.osgi.service.jakartars.whiteboard.propertytypes.JakartarsResource;

/**
 * The OpenAI-compatible endpoints: {@code POST /v1/completions}, {@code POST /v1/chat/completions}
 * (streaming and not) and {@code GET /v1/models}. Bodies are taken as bytes and parsed by the
 * flow (so the size limit, malformed JSON and the OpenAI error shape are the proxy's own, and no
 * JSON provider is involved); answers are asynchronous, no container thread waits for an engine.
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

    @POST
    @Path("completions")
    public void completions(byte[] body, @HeaderParam(VllmConnector.REQUEST_ID_HEADER) String requestId,
            @HeaderParam(HttpHeaders.CONTENT_TYPE) String contentType, @Suspended AsyncResponse async,
            @Context HttpServletRequest request) {
        if (flow.acceptsMediaType(contentType, requestId, async)) {
            flow.handle(Endpoint.COMPLETIONS, body, requestId, async, ServletEventStream.opener(request));
        }
    }

    @POST
    @Path("chat/completions")
    public void chatCompletions(byte[] body, @HeaderParam(VllmConnector.REQUEST_ID_HEADER) String requestId,
            @HeaderParam(HttpHeaders.CONTENT_TYPE) String contentType, @Suspended AsyncResponse async,
            @Context HttpServletRequest request) {
        if (flow.acceptsMediaType(contentType, requestId, async)) {
            flow.handle(Endpoint.CHAT_COMPLETIONS, body, requestId, async, ServletEventStream.opener(request));
        }
    }

    @GET
    @Path("models")
    public void models(@Suspended AsyncResponse async) {
        flow.models(async);
    }
}
