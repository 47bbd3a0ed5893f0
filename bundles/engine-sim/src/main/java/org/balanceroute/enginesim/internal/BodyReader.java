package org.balanceroute.enginesim.internal;

import java.nio.ByteBuffer;
import java.util.Arrays;
import org.eclipse.jetty.io.Content;
import org.eclipse.jetty.util.Promise;

/**
 * Reads a request body without holding a thread while it arrives: what is there is read, then
 * the source calls back when there is more ({@link Content.Source#demand}). At most
 * {@code limit} bytes: a declared length above it fails at once, a chunked body as soon as it
 * passes it, both with {@link TooLarge}. A body with a declared length is whole once that many
 * bytes are in, in the array they were read into (as the proxy's reader does).
 */
final class BodyReader implements Runnable {

    /** The body is larger than the reader takes. */
    static final class TooLarge extends Exception {

        private static final long serialVersionUID = 1L;

        TooLarge(long limit) {
            super("the request body is larger than the " + limit + " bytes accepted", null, false, false);
        }
    }

    private static final int UNKNOWN_LENGTH_START = 1024;

    private final Content.Source source;
    private final int limit;
    private final long declared;
    private final Promise<byte[]> promise;
    private byte[] body;
    private int length;

    private BodyReader(Content.Source source, int limit, long declared, Promise<byte[]> promise) {
        this.source = source;
        this.limit = limit;
        this.declared = declared;
        this.promise = promise;
        this.body = new byte[declared < 0 ? UNKNOWN_LENGTH_START : (int) declared];
    }

    /**
     * Reads {@code source} to its end, or to its declared length, and completes {@code promise}
     * with the bytes, on this thread when they are all there, else on the thread that delivers
     * the rest.
     *
     * @param declaredLength the body's Content-Length, or -1 when not known (chunked)
     */
    static void read(Content.Source source, long declaredLength, int limit, Promise<byte[]> promise) {
        if (declaredLength > limit) {
            promise.failed(new TooLarge(limit));
            return;
        }
        if (declaredLength == 0) {
            promise.succeeded(new byte[0]);
            return;
        }
        new BodyReader(source, limit, declaredLength, promise).run();
    }

    @Override
    public void run() {
        while (true) {
            Content.Chunk chunk = source.read();
            if (chunk == null) {
                source.demand(this);
                return;
            }
            if (Content.Chunk.isFailure(chunk)) {
                promise.failed(chunk.getFailure());
                return;
            }
            ByteBuffer b = chunk.getByteBuffer();
            boolean last = chunk.isLast();
            int n = b.remaining();
            if (length + (long) n > limit) {
                chunk.release();
                promise.failed(new TooLarge(limit));
                return;
            }
            if (length + n > body.length) {
                body = Arrays.copyOf(body, (int) Math.min(limit, Math.max(2L * body.length, length + (long) n)));
            }
            b.get(body, length, n);
            length += n;
            chunk.release();
            if (last || length == declared) {
                // with a declared length the body is whole at its last byte: no wait for the end of
                // the content, which may come in a read (and a wake-up) of its own
                promise.succeeded(length == body.length ? body : Arrays.copyOf(body, length));
                return;
            }
        }
    }
}
