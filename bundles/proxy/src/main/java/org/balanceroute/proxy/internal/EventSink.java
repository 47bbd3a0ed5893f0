package org.balanceroute.proxy.internal;

import java.io.IOException;
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

    /** A sink over a new {@link ChunkedOutput}. */
    static EventSink chunked() {
        ChunkedOutput<String> out = new ChunkedOutput<>(String.class);
        return new EventSink() {
            @Override
            public void write(String frame) throws IOException {
                out.write(frame);
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
