package org.balanceroute.proxy.internal;

import jakarta.servlet.ReadListener;
import jakarta.servlet.ServletInputStream;
import java.io.IOException;
import java.util.Arrays;
import java.util.function.Consumer;

/**
 * A request body read without blocking a thread (the servlet's {@link ReadListener}): the bytes
 * are taken as they arrive, on whichever container thread has them, and {@code done} gets the
 * whole body once the last byte is in. A body that arrived with its headers (most do) is read at
 * once, on the thread that installed the listener; a client that sends its body slowly, or stalls,
 * holds no thread meanwhile (the connection's idle timeout ends a stall, through {@code failed}).
 *
 * <p>At most {@code limit + 1} bytes are read: one more than the limit is enough for the flow to
 * refuse the body as too large, and the rest is never buffered. Exactly one of {@code done} and
 * {@code failed} runs, once.
 */
final class BodyReader implements ReadListener {

    private static final int UNKNOWN_LENGTH_START = 8192;

    private final ServletInputStream in;
    private final int limit;
    private final long declared;
    private final Consumer<byte[]> done;
    private final Consumer<Throwable> failed;
    private byte[] buffer;
    private int length;
    private boolean ended;

    private BodyReader(ServletInputStream in, long declared, int limit, Consumer<byte[]> done,
            Consumer<Throwable> failed) {
        this.in = in;
        this.limit = limit;
        this.declared = declared;
        this.done = done;
        this.failed = failed;
        this.buffer = new byte[(int) Math.min(declared >= 0 ? declared : UNKNOWN_LENGTH_START, (long) limit + 1)];
    }

    /**
     * Reads the body of the request whose input is {@code in} (declared length {@code declared}, -1 when
     * unknown); the request must be in the servlet's async mode.
     */
    static void read(ServletInputStream in, long declared, int limit, Consumer<byte[]> done, Consumer<Throwable> failed) {
        in.setReadListener(new BodyReader(in, declared, limit, done, failed));
    }

    @Override
    public void onDataAvailable() throws IOException {
        try {
            while (!ended && in.isReady()) {
                if (in.isFinished()) {
                    end();
                    return;
                }
                if (length == buffer.length) {
                    if (length > limit) {
                        end(); // one past the limit: enough to refuse it
                        return;
                    }
                    buffer = Arrays.copyOf(buffer, (int) Math.min(Math.max((long) buffer.length * 2, UNKNOWN_LENGTH_START),
                            (long) limit + 1));
                }
                int r = in.read(buffer, length, buffer.length - length);
                if (r < 0) {
                    end();
                    return;
                }
                length += r;
                if (length == declared) {
                    // all the bytes the request declared: the body is whole. Reading on for the end
                    // grew the array by copying (8 KiB a request, 5% of the bytes allocated at 1,024
                    // streams) only to trim it again
                    end();
                    return;
                }
            }
        } catch (IOException | RuntimeException e) {
            onError(e);
        }
    }

    @Override
    public void onAllDataRead() {
        end();
    }

    @Override
    public void onError(Throwable t) {
        if (ended) {
            return;
        }
        ended = true;
        failed.accept(t);
    }

    private void end() {
        if (ended) {
            return;
        }
        ended = true;
        done.accept(length == buffer.length ? buffer : Arrays.copyOf(buffer, length));
    }
}
