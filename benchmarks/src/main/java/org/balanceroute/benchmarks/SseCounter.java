package org.balanceroute.benchmarks;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import org.eclipse.jetty.client.Response;
import org.eclipse.jetty.io.Content;

/**
 * Reads one SSE answer from the client's content chunks: the first token's time, the
 * cumulative {@code usage.completion_tokens} of each chunk (added to the window's count as it
 * grows), in-band errors and {@code [DONE]}. Lines are scanned in the chunks' own arrays (only
 * a line that a chunk cuts off is copied, into a small array of its own) and only the one
 * field it needs is looked for, to keep the client's CPU out of the figures.
 */
final class SseCounter implements Response.ContentSourceListener {
    private static final byte[] DATA = "data:".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] DONE = "[DONE]".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] ERROR = "{\"error\"".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] COMPLETION_TOKENS = "\"completion_tokens\"".getBytes(StandardCharsets.US_ASCII);

    private final long start;
    private final Window window;
    private long first = -1;
    private int tokens;
    private boolean done;
    private String error;
    /** The answer's lines that are not data (an error answer's body), the first 500 characters. */
    private final StringBuilder other = new StringBuilder();
    /** The start of a line the last chunk cut off ({@code kept} bytes); null until one is. */
    private byte[] partial;
    private int kept;
    /** Where a direct buffer's bytes are scanned, one per thread. */
    private static final ThreadLocal<byte[]> SCRATCH = ThreadLocal.withInitial(() -> new byte[16 * 1024]);
    private Content.Source source;
    /** One demand callback for the answer's life, not a lambda per read. */
    private final Runnable readMore = org.eclipse.jetty.util.thread.Invocable.from(
            org.eclipse.jetty.util.thread.Invocable.InvocationType.NON_BLOCKING, this::read);

    SseCounter(long start, Window window) {
        this.start = start;
        this.window = window;
    }

    @Override
    public void onContentSource(Response response, Content.Source source) {
        this.source = source;
        read();
    }

    /** Every chunk available now, then a demand for more; a failure reaches the request's result. */
    private void read() {
        while (true) {
            Content.Chunk chunk = source.read();
            if (chunk == null) {
                source.demand(readMore);
                return;
            }
            if (Content.Chunk.isFailure(chunk)) {
                return;
            }
            try {
                feed(chunk.getByteBuffer());
            } finally {
                chunk.release();
            }
            if (chunk.isLast()) {
                return;
            }
        }
    }

    /**
     * Scans a chunk: each complete line in place, the rest kept for the next chunk. A heap
     * buffer (the client reads into heap buffers) is scanned in its array; a direct one is
     * first copied whole into this thread's scratch array.
     */
    void feed(ByteBuffer b) {
        if (b.hasArray()) {
            feed(b.array(), b.arrayOffset() + b.position(), b.arrayOffset() + b.limit());
        } else {
            int n = b.remaining();
            byte[] a = SCRATCH.get();
            if (a.length < n) {
                a = new byte[Math.max(n, 2 * a.length)];
                SCRATCH.set(a);
            }
            b.get(b.position(), a, 0, n);
            feed(a, 0, n);
        }
        b.position(b.limit());
    }

    private void feed(byte[] a, int from, int limit) {
        for (int i = from; i < limit; i++) {
            if (a[i] != '\n') {
                continue;
            }
            if (kept > 0) {
                keep(a, from, i);
                int n = kept;
                kept = 0;
                line(partial, 0, n);
            } else {
                line(a, from, i);
            }
            from = i + 1;
        }
        if (from < limit) {
            keep(a, from, limit);
        }
    }

    private void keep(byte[] a, int from, int to) {
        int n = to - from;
        if (partial == null || partial.length - kept < n) {
            partial = Arrays.copyOf(partial == null ? new byte[0] : partial, Math.max(512, 2 * (kept + n)));
        }
        System.arraycopy(a, from, partial, kept, n);
        kept += n;
    }

    private void line(byte[] a, int from, int to) {
        if (to > from && a[to - 1] == '\r') {
            to--;
        }
        if (!startsWith(a, from, to, DATA)) {
            for (int i = from; i < to && other.length() < 500; i++) {
                other.append((char) (a[i] & 0xFF));
            }
            return;
        }
        int data = from + DATA.length;
        if (data < to && a[data] == ' ') {
            data++;
        }
        if (startsWith(a, data, to, DONE)) {
            done = true;
            return;
        }
        if (startsWith(a, data, to, ERROR)) {
            error = "in-band error: " + new String(a, from, to - from, StandardCharsets.UTF_8);
            return;
        }
        int cumulative = completionTokens(a, from, to);
        if (cumulative > tokens) {
            long now = System.nanoTime();
            if (first < 0) {
                first = now;
            }
            if (window != null && window.inside(now)) {
                window.tokens.add(cumulative - tokens);
            }
            tokens = cumulative;
        }
    }

    private static boolean startsWith(byte[] a, int from, int to, byte[] prefix) {
        if (to - from < prefix.length) {
            return false;
        }
        for (int k = 0; k < prefix.length; k++) {
            if (a[from + k] != prefix[k]) {
                return false;
            }
        }
        return true;
    }

    /** The value of the last {@code "completion_tokens": N} in bytes [from, to), or -1. */
    static int completionTokens(byte[] a, int from, int to) {
        for (int at = to - COMPLETION_TOKENS.length; at >= from; at--) {
            if (a[at] != '"' || !startsWith(a, at, to, COMPLETION_TOKENS)) {
                continue;
            }
            int i = at + COMPLETION_TOKENS.length;
            while (i < to && (a[i] == ' ' || a[i] == ':')) {
                i++;
            }
            int v = 0;
            boolean any = false;
            while (i < to && a[i] >= '0' && a[i] <= '9') {
                v = v * 10 + (a[i++] - '0');
                any = true;
            }
            return any ? v : -1;
        }
        return -1;
    }

    /** The request failed (connect, reset, idle timeout): what was counted in the window stays counted. */
    Outcome failed(String why) {
        return Outcome.failed(start, why);
    }

    /** The answer ended with this status. */
    Outcome outcome(int status) {
        long end = System.nanoTime();
        if (kept > 0) { // a last line without its newline
            int n = kept;
            kept = 0;
            line(partial, 0, n);
        }
        if (status != 200) {
            return new Outcome(start, first, end, tokens, "HTTP " + status + " " + other);
        }
        if (error == null && !done) {
            error = "the stream ended without data: [DONE]";
        }
        return new Outcome(start, first, end, tokens, error);
    }
}
