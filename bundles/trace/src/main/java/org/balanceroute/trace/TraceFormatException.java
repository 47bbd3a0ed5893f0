package org.balanceroute.trace;

import java.util.Optional;

/**
 * A trace file that cannot be loaded. The message always starts with the file name, then
 * the 1-based line number and the field when the problem is in one, e.g.
 * {@code azure2023-conv.csv:17: field 'GeneratedTokens': expected a non-negative integer, got 'abc'}.
 */
public final class TraceFormatException extends Exception {

    private static final long serialVersionUID = 1L;

    private final String fileName;
    private final int line;
    private final String field;

    /** A problem with the file as a whole (missing, empty, unreadable). */
    TraceFormatException(String fileName, String detail, Throwable cause) {
        this(fileName, 0, null, detail, cause);
    }

    /** A problem on one line, in one field when {@code field} is non-null. */
    TraceFormatException(String fileName, int line, String field, String detail, Throwable cause) {
        super(message(fileName, line, field, detail), cause);
        this.fileName = fileName;
        this.line = line;
        this.field = field;
    }

    private static String message(String fileName, int line, String field, String detail) {
        StringBuilder m = new StringBuilder(fileName);
        if (line > 0) {
            m.append(':').append(line);
        }
        m.append(": ");
        if (field != null) {
            m.append("field '").append(field).append("': ");
        }
        return m.append(detail).toString();
    }

    /** The name of the file that failed to load. */
    public String fileName() {
        return fileName;
    }

    /** The 1-based line of the problem, or 0 when it concerns the whole file. */
    public int line() {
        return line;
    }

    /** The field at fault, when the problem is in one. */
    public Optional<String> field() {
        return Optional.ofNullable(field);
    }
}
