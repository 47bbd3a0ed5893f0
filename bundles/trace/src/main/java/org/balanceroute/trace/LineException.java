package org.balanceroute.trace;

/**
 * A parse error within one line. Line parsers throw it without knowing the file or the line
 * number; {@link TraceLoader} turns it into a {@link TraceFormatException} that names both.
 */
final class LineException extends Exception {

    private static final long serialVersionUID = 1L;

    private final String field;

    /** @param field the field at fault, or null for a problem with the line's structure */
    LineException(String field, String detail) {
        // No stack trace: the loader rethrows it as a TraceFormatException straight away.
        super(detail, null, false, false);
        this.field = field;
    }

    String field() {
        return field;
    }
}
