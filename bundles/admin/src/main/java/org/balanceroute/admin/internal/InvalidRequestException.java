package org.balanceroute.admin.internal;

/** A request the admin API refuses with 400; {@link #param()} names the offending field. */
final class InvalidRequestException extends Exception {

    private static final long serialVersionUID = 1L;

    private final String param;

    InvalidRequestException(String message, String param) {
        super(message, null, false, false);
        this.param = param;
    }

    String param() {
        return param;
    }
}
