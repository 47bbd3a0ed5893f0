package org.balanceroute.wire;

import java.util.function.LongConsumer;

/**
 * Scans a JSON list of token ids ({@code [1, 2, 3]}) straight from a request body's bytes.
 *
 * <p>Why: a prompt of 100k ids read by a JSON parser is 100k tokens, each a call chain of its
 * own; both hops of every request carry the prompt, and on the demo's 2 cores that alone was
 * most of the simulated cluster's CPU. A byte loop over digits, commas and white space costs a
 * tenth of it. Anything the loop does not accept (a fraction, an exponent, a string, a nested
 * list, a leading zero, an id beyond a {@code long}, a truncated body) is refused, and the caller
 * reads the body with its JSON parser as before, which then either accepts it or says what is
 * wrong.
 */
public final class TokenIdList {

    /** What {@link #scan} returns when the list is not a plain list of integers. */
    public static final long NOT_IDS = -1;

    private TokenIdList() {
    }

    /**
     * Scans the list that opens at {@code bytes[open]} (which must be {@code '['}).
     *
     * @param ids gets every id in order; null when only the count is wanted
     * @return {@code (index of the closing ']') << 32 | count}, or {@link #NOT_IDS}
     */
    public static long scan(byte[] bytes, int open, LongConsumer ids) {
        if (open < 0 || open >= bytes.length || bytes[open] != '[') {
            return NOT_IDS;
        }
        int i = skipSpace(bytes, open + 1);
        if (i < bytes.length && bytes[i] == ']') {
            return (long) i << 32;
        }
        int count = 0;
        while (true) {
            boolean negative = i < bytes.length && bytes[i] == '-';
            if (negative) {
                i++;
            }
            int first = i;
            long value = 0;
            while (i < bytes.length && bytes[i] >= '0' && bytes[i] <= '9') {
                int digit = bytes[i] - '0';
                if (value > (Long.MAX_VALUE - digit) / 10) {
                    return NOT_IDS;
                }
                value = value * 10 + digit;
                i++;
            }
            if (i == first || (bytes[first] == '0' && i - first > 1)) {
                return NOT_IDS;
            }
            if (ids != null) {
                ids.accept(negative ? -value : value);
            }
            count++;
            i = skipSpace(bytes, i);
            if (i >= bytes.length) {
                return NOT_IDS;
            }
            if (bytes[i] == ']') {
                return (long) i << 32 | count;
            }
            if (bytes[i] != ',') {
                return NOT_IDS;
            }
            i = skipSpace(bytes, i + 1);
        }
    }

    /** The index of the closing {@code ']'} in a successful {@link #scan} result. */
    public static int close(long scanned) {
        return (int) (scanned >>> 32);
    }

    /** The number of ids in a successful {@link #scan} result. */
    public static int count(long scanned) {
        return (int) scanned;
    }

    /**
     * The body with the scanned list cut out, {@code []} in its place: what is left is read with a
     * JSON parser, which then has a few fields to read instead of every id.
     */
    public static byte[] withoutList(byte[] bytes, int open, long scanned) {
        int close = close(scanned);
        byte[] out = new byte[bytes.length - (close - open + 1) + 2];
        System.arraycopy(bytes, 0, out, 0, open);
        out[open] = '[';
        out[open + 1] = ']';
        System.arraycopy(bytes, close + 1, out, open + 2, bytes.length - close - 1);
        return out;
    }

    private static int skipSpace(byte[] bytes, int i) {
        while (i < bytes.length && (bytes[i] == ' ' || bytes[i] == '\n' || bytes[i] == '\r' || bytes[i] == '\t')) {
            i++;
        }
        return i;
    }
}
