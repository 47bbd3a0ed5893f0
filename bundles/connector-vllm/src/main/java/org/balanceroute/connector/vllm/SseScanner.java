package org.balanceroute.connector.vllm;

import java.nio.ByteBuffer;
import java.util.Arrays;

/**
 * Incremental Server-Sent Events scanner over the buffers the HTTP client hands over: each
 * event's data (its {@code data:} lines joined by newlines) goes to the {@link Events} as soon as
 * the blank line ending it arrives, <b>in place</b> when it can: an event whose one {@code data:}
 * line lies whole in the buffer being scanned is handed over as a range of that buffer, with no
 * copy and no {@code String}. Only what straddles two buffers (a line cut by the buffer's end,
 * data whose blank line comes in the next buffer) or an event of several {@code data:} lines is
 * copied, once, into the scanner's own arrays.
 *
 * <p>Lines end in LF, CRLF or CR (a CR at a buffer's end whose LF starts the next buffer is one
 * line end); comments ({@code :}) and other fields ({@code event:}, {@code id:}, {@code retry:})
 * are skipped; one space after {@code data:} is dropped. Not thread-safe: one per stream, fed in
 * order.
 *
 * <p>It is how the connector cuts every decode answer into the events a {@link DecodeListener}
 * is given; exported so that a tool can read an answer exactly as the connector does (the
 * proxy's relay benchmark feeds captured answers through it).
 */
public final class SseScanner {

    /** Where the events go; the range is valid during the call only. */
    @FunctionalInterface
    public interface Events {
        /**
         * One event's data: bytes {@code [offset, offset + length)} of {@code buffer} (absolute
         * indices; the buffer's position and limit are not the event's). Valid only during the
         * call: copy what must outlive it.
         */
        void onEvent(ByteBuffer buffer, int offset, int length);
    }

    private static final int MAX_KEPT = 64 * 1024;

    private final Events events;
    /** A line begun in an earlier buffer, not yet ended. */
    private byte[] line = new byte[256];
    private int lineLength;
    /** Data of the current event copied out of its buffer (several lines, or carried across buffers). */
    private byte[] data = new byte[256];
    private int dataLength;
    private ByteBuffer dataView = ByteBuffer.wrap(data);
    /** Whether the current event has data, and where it is while it lies in the buffer being scanned. */
    private boolean hasData;
    private ByteBuffer inPlace;
    private int inPlaceOffset;
    private int inPlaceLength;
    private boolean lastWasCr;

    public SseScanner(Events events) {
        this.events = events;
    }

    /** Scans {@code chunk} from its position to its limit; leaves it consumed. */
    public void feed(ByteBuffer chunk) {
        int i = chunk.position();
        int end = chunk.limit();
        if (lastWasCr && i < end) {
            lastWasCr = false;
            if (chunk.get(i) == '\n') {
                i++;
            }
        }
        int start = i;
        if (lineLength > 0) {
            // finish the line carried over from the previous buffer
            int eol = lineEnd(chunk, i, end);
            if (eol < 0) {
                keep(chunk, i, end);
                chunk.position(end);
                return;
            }
            keep(chunk, i, eol);
            lineFromCarry();
            i = skipEol(chunk, eol, end);
            start = i;
        }
        while (i < end) {
            int eol = lineEnd(chunk, i, end);
            if (eol < 0) {
                break;
            }
            line(chunk, i, eol);
            i = skipEol(chunk, eol, end);
            start = i;
        }
        if (start < end) {
            keep(chunk, start, end); // a line cut by the buffer's end
        }
        if (inPlace != null) {
            // the event's blank line is still to come: its data must outlive this buffer
            copyData(inPlace, inPlaceOffset, inPlaceLength, false);
            inPlace = null;
        }
        chunk.position(end);
    }

    /** The body ended: an event not yet terminated by a blank line is dispatched. */
    public void finish() {
        if (lineLength > 0) {
            lineFromCarry();
        }
        dispatch();
    }

    /** Index of the CR or LF ending the line that starts at {@code from}; -1 if none before {@code end}. */
    private static int lineEnd(ByteBuffer b, int from, int end) {
        if (b.hasArray()) {
            byte[] a = b.array();
            int base = b.arrayOffset();
            for (int k = from + base, stop = end + base; k < stop; k++) {
                byte c = a[k];
                if (c == '\n' || c == '\r') {
                    return k - base;
                }
            }
            return -1;
        }
        for (int k = from; k < end; k++) {
            byte c = b.get(k);
            if (c == '\n' || c == '\r') {
                return k;
            }
        }
        return -1;
    }

    /** Past the line end at {@code eol}: CRLF counts as one; a CR ending the buffer may have its LF in the next one. */
    private int skipEol(ByteBuffer b, int eol, int end) {
        if (b.get(eol) == '\r') {
            if (eol + 1 < end) {
                return b.get(eol + 1) == '\n' ? eol + 2 : eol + 1;
            }
            lastWasCr = true;
        }
        return eol + 1;
    }

    /** One whole line, {@code [from, to)} of {@code b}. */
    private void line(ByteBuffer b, int from, int to) {
        int n = to - from;
        if (n == 0) {
            dispatch();
            return;
        }
        if (n < 5 || b.get(from) != 'd' || b.get(from + 1) != 'a' || b.get(from + 2) != 't'
                || b.get(from + 3) != 'a' || b.get(from + 4) != ':') {
            return; // a comment, another field, or a field name that merely starts like data
        }
        int v = from + 5;
        if (v < to && b.get(v) == ' ') {
            v++;
        }
        if (!hasData) {
            hasData = true;
            inPlace = b;
            inPlaceOffset = v;
            inPlaceLength = to - v;
            return;
        }
        if (inPlace != null) {
            copyData(inPlace, inPlaceOffset, inPlaceLength, false);
            inPlace = null;
        }
        copyData(b, v, to - v, true);
    }

    /** The carried line is whole: scan it from the scanner's own array. */
    private void lineFromCarry() {
        ByteBuffer carried = ByteBuffer.wrap(line, 0, lineLength);
        int n = lineLength;
        lineLength = 0;
        line(carried, 0, n);
        if (inPlace == carried) {
            // its data points into the carry array, which the next partial line reuses
            copyData(carried, inPlaceOffset, inPlaceLength, false);
            inPlace = null;
        }
    }

    private void dispatch() {
        if (!hasData) {
            return;
        }
        hasData = false;
        if (inPlace != null) {
            ByteBuffer b = inPlace;
            inPlace = null;
            events.onEvent(b, inPlaceOffset, inPlaceLength);
        } else {
            int n = dataLength;
            dataLength = 0;
            events.onEvent(dataView, 0, n);
            if (data.length > MAX_KEPT) {
                data = new byte[256];
                dataView = ByteBuffer.wrap(data);
            }
        }
    }

    /** Appends to the copied data, after a newline when {@code joined}. */
    private void copyData(ByteBuffer b, int from, int n, boolean joined) {
        int need = dataLength + n + (joined ? 1 : 0);
        if (need > data.length) {
            data = Arrays.copyOf(data, Math.max(need, data.length * 2));
            dataView = ByteBuffer.wrap(data);
        }
        if (joined) {
            data[dataLength++] = '\n';
        }
        b.get(from, data, dataLength, n);
        dataLength += n;
    }

    /** Keeps a partial line, {@code [from, to)} of {@code b}, for the next buffer. */
    private void keep(ByteBuffer b, int from, int to) {
        int n = to - from;
        if (lineLength + n > line.length) {
            line = Arrays.copyOf(line, Math.max(lineLength + n, line.length * 2));
        }
        b.get(from, line, lineLength, n);
        lineLength += n;
    }
}
