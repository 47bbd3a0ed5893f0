package org.balanceroute.proxy.internal;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import org.balanceroute.connector.vllm.UpstreamException;
import org.balanceroute.connector.vllm.VllmConnector;

/**
 * The front's plain answers (before a stream is committed): OpenAI error bodies with the
 * request id, 429 with {@code Retry-After}, the upstream's own status and body, and the in-band
 * form of any of them once the stream is committed.
 */
final class Answers {

    private static final ObjectMapper MAPPER = new ObjectMapper();

    private Answers() {
    }

    static Response error(OpenAiError e, String requestId) {
        Response.ResponseBuilder b = Response.status(e.status()).type(MediaType.APPLICATION_JSON_TYPE).entity(e.body());
        if (requestId != null) {
            b.header(VllmConnector.REQUEST_ID_HEADER, requestId);
        }
        return b.build();
    }

    /** 429 with Retry-After: the prompt pool is at its limit. */
    static Response poolFull(int depth, int limit, int retryAfterSeconds, String requestId) {
        return tooBusy("the prompt pool is full (" + depth + " requests waiting for a decode worker, maxPoolDepth "
                + limit + "); retry after " + retryAfterSeconds + " s", retryAfterSeconds, requestId);
    }

    /** 429 with Retry-After and an OpenAI error body: the prompt pool or the prefill queue is full. */
    static Response tooBusy(String message, int retryAfterSeconds, String requestId) {
        return Response.fromResponse(error(new OpenAiError(429, OpenAiError.RATE_LIMIT, message, null), requestId))
                .header("Retry-After", Integer.toString(retryAfterSeconds)).build();
    }

    /** 503 with Retry-After and an OpenAI error body: the router or the connector was not back in time. */
    static Response unavailable(String message, int retryAfterSeconds, String requestId) {
        return Response.fromResponse(error(new OpenAiError(503, OpenAiError.UNAVAILABLE, message + "; retry after "
                + retryAfterSeconds + " s", null), requestId)).header("Retry-After", Integer.toString(retryAfterSeconds))
                .build();
    }

    /** An upstream failure before streaming: its status and OpenAI error body, or 502 when nothing answered. */
    static Response upstreamError(Throwable e, String requestId, String what) {
        if (e instanceof UpstreamException u && u.status() >= 400) {
            return upstreamBody(u.status(), u.body(), requestId, what + ": HTTP " + u.status());
        }
        if (e instanceof UpstreamException u && u.status() > 0) {
            return error(new OpenAiError(502, OpenAiError.SERVER, what + ": " + u.getMessage(), null), requestId);
        }
        return error(new OpenAiError(502, OpenAiError.SERVER, what + ": " + (e == null ? "no answer" : e.getMessage()),
                null), requestId);
    }

    /** The upstream's own body when it is an OpenAI error body, else one made here. */
    static Response upstreamBody(int status, byte[] body, String requestId, String what) {
        if (!openAiError(body)) {
            return error(OpenAiError.ofStatus(status, what), requestId);
        }
        Response.ResponseBuilder b = Response.status(status).type(MediaType.APPLICATION_JSON_TYPE).entity(body);
        if (requestId != null) {
            b.header(VllmConnector.REQUEST_ID_HEADER, requestId);
        }
        return b.build();
    }

    private static boolean openAiError(byte[] body) {
        if (body == null || body.length == 0) {
            return false;
        }
        try {
            JsonNode n = MAPPER.readTree(body);
            return n != null && n.path("error").isObject();
        } catch (Exception notJson) {
            return false;
        }
    }

    /**
     * The data of an in-band error event for an error response made before the stream was
     * committed: its OpenAI body on one line (an SSE data line must not break).
     */
    static String inBand(Response r) {
        if (r.getEntity() instanceof byte[] b && openAiError(b)) {
            try {
                return MAPPER.readTree(b).toString();
            } catch (Exception cannotHappen) {
                // checked above
            }
        }
        return new OpenAiError(r.getStatus(), OpenAiError.SERVER, "HTTP " + r.getStatus(), null).json().toString();
    }

    /** The failure behind a future's wrapping. */
    static Throwable cause(Throwable e) {
        Throwable c = e;
        while ((c instanceof CompletionException || c instanceof ExecutionException) && c.getCause() != null) {
            c = c.getCause();
        }
        return c;
    }
}
