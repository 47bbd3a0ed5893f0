package org.balanceroute.simulator.cli;

/** A command-line mistake: printed as is, with exit status 2. */
final class UsageException extends Exception {

    private static final long serialVersionUID = 1L;

    UsageException(String message) {
        super(message);
    }
}
