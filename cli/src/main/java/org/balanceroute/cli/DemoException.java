package org.balanceroute.cli;

/** What stops {@code ./balanceroute demo} once it has started: printed as is, exit status {@link #status}. */
final class DemoException extends Exception {

    private static final long serialVersionUID = 1L;

    final int status;

    DemoException(int status, String message) {
        super(message);
        this.status = status;
    }
}
