package org.balanceroute.proxy.internal;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.nio.charset.StandardCharsets;
import org.balanceroute.wire.OpenAiErrorBody;

/**
 * A request that ends in an OpenAI error body {@code {"error": {"message", "type", "param",
 * "code"}}} with an HTTP status.
 */
final class OpenAiError extends RuntimeException {

    private static final long serialVersionUID = 1L;
    private static final ObjectMapper MAPPER = new ObjectMapper();

    static final String INVALID_REQUEST = "invalid_request_error";
    static final String SERVER = "server_error";
    static final String UNAVAILABLE = "service_unavailable_error";
    /** 429: the proxy is at its admission limit (the OpenAI clients retry these after Retry-After). */
    static final String RATE_LIMIT = "rate_limit_error";
    /** 404: vLLM's type for a model it does not serve. */
    static final String NOT_FOUND = "NotFoundError";

    private final int status;
    private final String type;
    private final String param;

    OpenAiError(int status, String type, String message, String param) {
        super(message, null, false, false);
        this.status = status;
        this.type = type;
        this.param = param;
    }

    /** vLLM's answer for a model it does not serve: 404 NotFoundError naming the model. */
    static OpenAiError unknownModel(String model) {
        return new OpenAiError(404, NOT_FOUND, "The model `" + model + "` does not exist.", "model");
    }

    /**
     * An error with no field to name, typed by its status: {@code server_error} from 500 on,
     * {@code invalid_request_error} below.
     */
    static OpenAiError ofStatus(int status, String message) {
        return new OpenAiError(status, status >= 500 ? SERVER : INVALID_REQUEST, message, null);
    }

    /** 400 invalid_request_error naming the field. */
    static OpenAiError invalid(String message, String param) {
        return new OpenAiError(400, INVALID_REQUEST, message, param);
    }

    int status() {
        return status;
    }

    String param() {
        return param;
    }

    ObjectNode json() {
        return MAPPER.valueToTree(OpenAiErrorBody.of(getMessage(), type, param, status));
    }

    byte[] body() {
        return json().toString().getBytes(StandardCharsets.UTF_8);
    }
}
