package org.balanceroute.proxy.internal;

import org.balanceroute.proxy.ProxyObserver.Outcome;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The access log: one line per finished generation request (its id, model, pool, decode worker,
 * prompt and output tokens, time to first token, time in the proxy, outcome) in logfmt
 * ({@code key=value}, what log stores parse), at INFO on a logger of its own: the runtime's log
 * shows it as {@code INFO access - id=...}. Written only with the proxy's {@code accessLog} on.
 */
final class AccessLog {

    static final String LOGGER = "org.balanceroute.access";
    private static final Logger LOG = LoggerFactory.getLogger(LOGGER);
    private static final String NONE = "-";

    private AccessLog() {
    }

    /**
     * One request's line.
     *
     * @param worker the decode worker's index in its pool, or -1 (never placed)
     * @param promptTokens the prompt's tokens as the prefill counted them, or -1 (no prefill)
     * @param outputTokens tokens generated (over every hop), or -1 (unknown)
     * @param ttftNanos arrival to first token, or -1 (no token streamed)
     */
    static String line(String id, String model, String pool, int worker, long promptTokens, long outputTokens,
            long ttftNanos, long durationNanos, Outcome outcome) {
        return "id=" + value(id) + " model=" + value(model) + " pool=" + value(pool)
                + " worker=" + (worker < 0 ? NONE : Integer.toString(worker))
                + " prompt_tokens=" + (promptTokens < 0 ? NONE : Long.toString(promptTokens))
                + " output_tokens=" + (outputTokens < 0 ? NONE : Long.toString(outputTokens))
                + " ttft_ms=" + (ttftNanos < 0 ? NONE : millis(ttftNanos))
                + " duration_ms=" + millis(durationNanos) + " outcome=" + outcome.label();
    }

    static void write(String line) {
        LOG.info(line);
    }

    private static String millis(long nanos) {
        return String.format(java.util.Locale.ROOT, "%.1f", nanos / 1e6);
    }

    /** A client's text as one logfmt value: quoted when it holds a space, a quote, '=' or a control. */
    static String value(String s) {
        if (s == null || s.isEmpty()) {
            return NONE;
        }
        boolean plain = true;
        for (int i = 0; i < s.length() && plain; i++) {
            char c = s.charAt(i);
            plain = c > ' ' && c != '"' && c != '=' && c != '\\' && c < 0x7f;
        }
        if (plain) {
            return s;
        }
        StringBuilder b = new StringBuilder(s.length() + 8).append('"');
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c == '"' || c == '\\') {
                b.append('\\').append(c);
            } else if (c < ' ' || c == 0x7f) {
                b.append(String.format(java.util.Locale.ROOT, "\\u%04x", (int) c));
            } else {
                b.append(c);
            }
        }
        return b.append('"').toString();
    }
}
