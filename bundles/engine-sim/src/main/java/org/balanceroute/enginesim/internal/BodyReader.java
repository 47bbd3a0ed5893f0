package org.balanceroute.enginesim.internal;

import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import org.eclipse.jetty.io.Content;
import org.eclipse.jetty.util.Promise;

/**
 * Reads a request body without holding a thread while it arrives: what is there is read, then
 * the source calls back when there is more ({@link Content.Source#demand}). At most
 * {@code limit} bytes: a declared length above it fails at once, a chunked body as soon as it
 * passes it, both with {@link TooLarge}.
 */
final class BodyReader implements Runnable {

    /** The body is larger than the reader takes. */
    static final class TooLarge extends Exception {

        private static final long serialVersionUID = 1L;

        TooLarge(long limit) {
            super("the request body is larger than the " + limit + " bytes accepted", null, false, false);
        }
    }

    private final Content.Source source;
    private final int limit;
    private final Promise<byte[]> promise;
    private final ByteArrayOutputStream body;

    private BodyReader(Content.Source source, int limit, int expected, Promise<byte[]> promise) {
        this.source = source;
        this.limit = limit;
        this.promise = promise;
        this.body = new ByteArrayOutputStream(expected);
    }

    /**
     * Reads {@code source} to its end and completes {@code promise} with the bytes, on this thread
     * when it is all there, else on the thread that delivers the rest.
     *
     * @param declaredLength the body's Content-Length, or -1 when not known (chunked)
     */
    static void read(Content.Source source, long declaredLength, int limit, Promise<byte[]> promise) {
        if (declaredLength > limit) {
            promise.failed(new TooLarge(limit));
            return;
        }
        new BodyReader(source, limit, declaredLength < 0 ? 1024 : (int) declaredLength, promise).run();
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
            if (body.size() + (long) b.remaining() > limit) {
                chunk.release();
                promise.failed(new TooLarge(limit));
                return;
            }
            if (b.hasArray()) {
                body.write(b.array(), b.arrayOffset() + b.position(), b.remaining());
            } else {
                byte[] copy = new byte[b.remaining()];
                b.get(copy);
                body.write(copy, 0, copy.length);
            }
            chunk.release();
            if (last) {
                promise.succeeded(body.toByteArray());
                return;
            }
        }
    }
}
