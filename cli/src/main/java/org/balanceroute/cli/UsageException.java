package org.balanceroute.cli;

/** A command-line mistake: printed as is, with exit status 2. */
public final class UsageException extends Exception {

    private static final long serialVersionUID = 1L;

    public UsageException(String message) {
        super(message);
    }
}
