package org.balanceroute.trace;

import java.util.List;

/** Field parsing shared by the line parsers: strict, and with messages that quote the bad text. */
final class Fields {

    private Fields() {
    }

    /** Splits a CSV line into exactly {@code header.size()} stripped columns (no quoting). */
    static String[] columns(String line, List<String> header) throws LineException {
        String[] columns = line.split(",", -1);
        if (columns.length != header.size()) {
            throw new LineException(null, "expected " + header.size() + " columns ("
                    + String.join(",", header) + "), got " + columns.length);
        }
        for (int i = 0; i < columns.length; i++) {
            columns[i] = columns[i].strip();
        }
        return columns;
    }

    /** Digits only: no sign, no fraction, no exponent. */
    static long nonNegativeLong(String text, String field) throws LineException {
        if (!isDigits(text)) {
            throw new LineException(field, "expected a non-negative integer, got " + quote(text));
        }
        try {
            return Long.parseLong(text);
        } catch (NumberFormatException e) {
            throw new LineException(field, "value " + quote(text) + " is too large");
        }
    }

    /** A token count: a non-negative integer that is at least 1 and fits an int. */
    static int tokens(String text, String field) throws LineException {
        long value = nonNegativeLong(text, field);
        if (value > Integer.MAX_VALUE) {
            throw new LineException(field, "value " + quote(text) + " is too large");
        }
        if (value < 1) {
            throw new LineException(field, "expected at least 1 token, got " + quote(text));
        }
        return (int) value;
    }

    /** A finite, non-negative decimal number of seconds. */
    static double seconds(String text, String field) throws LineException {
        // Double.parseDouble alone would also take "NaN", "Infinity", hex and "1d".
        boolean plausible = !text.isEmpty();
        for (int i = 0; i < text.length() && plausible; i++) {
            plausible = "0123456789.eE+-".indexOf(text.charAt(i)) >= 0;
        }
        if (plausible) {
            try {
                double value = Double.parseDouble(text);
                if (value >= 0 && !Double.isInfinite(value)) {
                    return value;
                }
            } catch (NumberFormatException e) {
                // e.g. "1e" or "1.2.3": same message as any other bad value, below
            }
        }
        throw new LineException(field, "expected a non-negative number of seconds, got " + quote(text));
    }

    /** A signed 64-bit integer. */
    static long signedLong(String text, String field) throws LineException {
        boolean negative = text.startsWith("-");
        if (!isDigits(negative ? text.substring(1) : text)) {
            throw new LineException(field, "expected an integer, got " + quote(text));
        }
        try {
            return Long.parseLong(text);
        } catch (NumberFormatException e) {
            throw new LineException(field, "value " + quote(text) + " does not fit 64 bits");
        }
    }

    /** Quotes text for a message, shortened so one bad line cannot flood a log. */
    static String quote(String text) {
        return "'" + (text.length() > 40 ? text.substring(0, 37) + "..." : text) + "'";
    }

    private static boolean isDigits(String text) {
        if (text.isEmpty()) {
            return false;
        }
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (c < '0' || c > '9') {
                return false;
            }
        }
        return true;
    }
}
