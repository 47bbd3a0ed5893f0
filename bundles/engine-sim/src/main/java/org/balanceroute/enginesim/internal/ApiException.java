package org.balanceroute.enginesim.internal;

/** A request refused before streaming began: becomes an OpenAI error body with this status. */
final class ApiException extends Exception {

    private static final long serialVersionUID = 1L;

    final int status;
    final String type;
    final String param;

    ApiException(int status, String type, String param, String message) {
        super(message, null, false, false);
        this.status = status;
        this.type = type;
        this.param = param;
    }

    static ApiException badRequest(String param, String message) {
        return new ApiException(400, "BadRequestError", param, message);
    }
}
