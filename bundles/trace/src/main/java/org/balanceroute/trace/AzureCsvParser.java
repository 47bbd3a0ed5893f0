package org.balanceroute.trace;

import java.time.DateTimeException;
import java.time.LocalDate;
import java.util.List;

/**
 * Azure LLM inference trace rows: {@code 2023-11-16 18:17:03.9799600,374,44}. Arrivals are
 * seconds since the first row's timestamp.
 */
final class AzureCsvParser implements RowParser {

    static final List<String> HEADER = List.of("TIMESTAMP", "ContextTokens", "GeneratedTokens");

    private static final long NANOS_PER_SECOND = 1_000_000_000L;

    private long firstNanos;
    private boolean first = true;

    @Override
    public TraceFormat format() {
        return TraceFormat.AZURE;
    }

    @Override
    public Row parse(String line) throws LineException {
        String[] columns = Fields.columns(line, HEADER);
        long nanos = epochNanos(columns[0]);
        int input = Fields.tokens(columns[1], HEADER.get(1));
        int output = Fields.tokens(columns[2], HEADER.get(2));
        if (first) {
            firstNanos = nanos;
            first = false;
        }
        return new Row((nanos - firstNanos) / (double) NANOS_PER_SECOND, input, output,
                TraceRequest.NO_PROMPT_KEY);
    }

    /**
     * Parses {@code uuuu-MM-dd HH:mm:ss} with an optional fraction of 1-9 digits, as UTC. An
     * optional {@code Z} or {@code +HH:MM} offset is accepted too, since the 2024 Azure trace
     * writes {@code +00:00}. Hand-written because DateTimeFormatter costs a quarter second
     * on a cold JVM for the 19k-row trace; LocalDate still does the calendar check.
     */
    static long epochNanos(String text) throws LineException {
        int year = digits(text, 0, 4);
        int month = digits(text, 5, 2);
        int day = digits(text, 8, 2);
        int hour = digits(text, 11, 2);
        int minute = digits(text, 14, 2);
        int second = digits(text, 17, 2);
        boolean layout = text.length() >= 19 && text.charAt(4) == '-' && text.charAt(7) == '-'
                && text.charAt(10) == ' ' && text.charAt(13) == ':' && text.charAt(16) == ':';
        if (!layout || year < 0 || month < 0 || day < 0 || hour < 0 || hour > 23
                || minute < 0 || minute > 59 || second < 0 || second > 59) {
            throw badTimestamp(text);
        }
        int pos = 19;
        long fraction = 0;
        if (pos < text.length() && text.charAt(pos) == '.') {
            int start = ++pos;
            while (pos < text.length() && pos - start < 9 && isDigit(text.charAt(pos))) {
                fraction = fraction * 10 + (text.charAt(pos++) - '0');
            }
            if (pos == start) {
                throw badTimestamp(text);
            }
            for (int scale = pos - start; scale < 9; scale++) {
                fraction *= 10;
            }
        }
        long offsetSeconds = offsetSeconds(text, pos);
        long epochDay;
        try {
            epochDay = LocalDate.of(year, month, day).toEpochDay();
        } catch (DateTimeException e) {
            throw badTimestamp(text); // e.g. 2023-02-30
        }
        long epochSecond = epochDay * 86_400 + hour * 3_600L + minute * 60L + second - offsetSeconds;
        return epochSecond * NANOS_PER_SECOND + fraction;
    }

    /** The offset that ends the timestamp at {@code pos}: none (UTC), {@code Z} or {@code ±HH:MM}. */
    private static long offsetSeconds(String text, int pos) throws LineException {
        int left = text.length() - pos;
        if (left == 0 || (left == 1 && text.charAt(pos) == 'Z')) {
            return 0;
        }
        char sign = text.charAt(pos);
        int hours = digits(text, pos + 1, 2);
        int minutes = digits(text, pos + 4, 2);
        if (left != 6 || (sign != '+' && sign != '-') || text.charAt(pos + 3) != ':'
                || hours < 0 || hours > 18 || minutes < 0 || minutes > 59) {
            throw badTimestamp(text);
        }
        long seconds = hours * 3_600L + minutes * 60L;
        return sign == '-' ? -seconds : seconds;
    }

    /** The {@code count} decimal digits at {@code from}, or -1 if they are not all there. */
    private static int digits(String text, int from, int count) {
        if (from + count > text.length()) {
            return -1;
        }
        int value = 0;
        for (int i = from; i < from + count; i++) {
            char c = text.charAt(i);
            if (!isDigit(c)) {
                return -1;
            }
            value = value * 10 + (c - '0');
        }
        return value;
    }

    private static boolean isDigit(char c) {
        return c >= '0' && c <= '9';
    }

    private static LineException badTimestamp(String text) {
        return new LineException(HEADER.get(0),
                "expected a timestamp like '2023-11-16 18:17:03.9799600', got " + Fields.quote(text));
    }
}
