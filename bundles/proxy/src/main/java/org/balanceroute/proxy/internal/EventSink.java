package org.balanceroute.proxy.internal;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import org.glassfish.jersey.server.ChunkedOutput;

/**
 * Where one client's event stream is written: Jersey's {@link ChunkedOutput} (the entity of the
 * 200 response) in the runtime, a buffer in unit tests, so the relay and the flow are tested
 * without a container.
 */
interface EventSink {

    /** Writes one SSE frame (events and comments, already framed); throws when the client is gone. */
    void write(String frame) throws IOException;

    /** Whether the stream is closed (by us, or by the container when the client left). */
    boolean isClosed();

    /** Ends the stream. */
    void close() throws IOException;

    /** The response entity that carries this stream. */
    Object entity();

    /**
     * A sink over a new {@link ChunkedOutput} of bytes: Jersey writes a {@code byte[]} chunk
     * straight to the response, where a {@code String} chunk would get a new writer (and its
     * 8 KB buffer) per event.
     */
    static EventSink chunked() {
        ChunkedOutput<byte[]> out = new ChunkedOutput<>(byte[].class);
        return new EventSink() {
            @Override
            public void write(String frame) throws IOException {
                out.write(frame.getBytes(StandardCharsets.UTF_8));
            }

            @Override
            public boolean isClosed() {
                return out.isClosed();
            }

            @Override
            public void close() throws IOException {
                out.close();
            }

            @Override
            public Object entity() {
                return out;
            }
        };
    }
}
