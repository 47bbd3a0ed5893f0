package org.balanceroute.admin.internal;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import org.balanceroute.wire.OpenAiErrorBody;

/**
 * Error answers in the OpenAI shape the proxy's clients already parse:
 * {@code {"error": {"message", "type", "param", "code"}}}. The body is serialised here, so an
 * error can be answered even where the JSON extension is not in play (filters, readers).
 */
final class ErrorResponses {

    static final String INVALID_REQUEST = "invalid_request_error";
    static final String AUTHENTICATION = "authentication_error";
    static final String SERVER = "server_error";

    private static final ObjectMapper MAPPER = new ObjectMapper();

    private ErrorResponses() {
    }

    /** 400 invalid_request_error naming the offending field ({@code param}, may be null). */
    static Response invalid(String message, String param) {
        return of(Response.Status.BAD_REQUEST, message, INVALID_REQUEST, param);
    }

    static Response of(Response.Status status, String message, String type, String param) {
        return Response.status(status).type(MediaType.APPLICATION_JSON_TYPE).entity(body(message, type, param)).build();
    }

    /** The JSON text of an error. */
    static String body(String message, String type, String param) {
        try {
            return MAPPER.writeValueAsString(OpenAiErrorBody.of(message, type, param, null));
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("cannot serialise an error body", e);
        }
    }
}
