package org.balanceroute.proxy.internal;

import jakarta.ws.rs.WebApplicationException;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import jakarta.ws.rs.ext.ExceptionMapper;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.ServiceScope;
import org.osgi.service.jakartars.whiteboard.propertytypes.JakartarsExtension;
import org.osgi.service.jakartars.whiteboard.propertytypes.JakartarsName;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Every error the REST container makes itself, as an OpenAI error body instead of Jetty's HTML
 * page: an unknown path (404), a wrong method (405, with its {@code Allow} header), an
 * unsupported media type (415), any other {@link WebApplicationException} with its status; a body
 * that could not be read because the client's connection failed (400, logged at DEBUG only); and a
 * failure nobody caught as a plain 500 {@code server_error} whose body never carries the stack
 * trace (that goes to the log, at ERROR, with the request's path). A response that already has a
 * body is kept as it is. A whiteboard extension of the default application, so the admin API's
 * paths get the same shape; stateless.
 */
@Component(service = ExceptionMapper.class, scope = ServiceScope.PROTOTYPE)
@JakartarsExtension
@JakartarsName("balanceroute.proxy.errors")
public final class ErrorBodyMapper implements ExceptionMapper<Throwable> {

    private static final Logger LOG = LoggerFactory.getLogger(ErrorBodyMapper.class);

    @Override
    public Response toResponse(Throwable e) {
        if (e instanceof WebApplicationException w && w.getResponse() != null) {
            Response r = w.getResponse();
            if (r.hasEntity()) {
                return r;
            }
            int status = r.getStatus();
            String reason = r.getStatusInfo().getReasonPhrase();
            OpenAiError body = OpenAiError.ofStatus(status,
                    (reason == null || reason.isEmpty() ? "HTTP " + status : reason) + hint(status));
            return Response.fromResponse(r).type(MediaType.APPLICATION_JSON_TYPE).entity(body.body()).build();
        }
        for (Throwable c = e; c != null; c = c.getCause() == c ? null : c.getCause()) {
            if (c instanceof java.io.IOException) {
                // the client's connection failed while its body was read (it left, or sent less than it said)
                LOG.debug("a request body could not be read: {}", c.toString());
                return Response.status(400).type(MediaType.APPLICATION_JSON_TYPE).entity(new OpenAiError(400,
                        OpenAiError.INVALID_REQUEST, "the request body could not be read (the connection ended early)",
                        null).body()).build();
            }
        }
        LOG.error("an unexpected failure answered 500", e);
        return Response.status(500).type(MediaType.APPLICATION_JSON_TYPE)
                .entity(new OpenAiError(500, OpenAiError.SERVER, "internal error (logged)", null).body()).build();
    }

    private static String hint(int status) {
        return switch (status) {
            case 404 -> ": no such endpoint (the OpenAI API: POST /v1/completions, POST /v1/chat/completions,"
                    + " GET /v1/models; the admin API: /admin/policies, /admin/policy, /admin/snapshot)";
            case 405 -> ": this endpoint does not take that method (see the Allow header)";
            default -> "";
        };
    }
}
