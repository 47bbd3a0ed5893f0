package org.balanceroute.connector.vllm.internal;

import java.nio.ByteBuffer;
import org.eclipse.jetty.client.Request;
import org.eclipse.jetty.io.Content;

/**
 * A request body that lets go of its bytes once they are handed to the connection. Jetty keeps a
 * request's content until the exchange ends, and a decode exchange lasts as long as its stream:
 * with {@code BytesRequestContent} every open stream kept its whole prompt (a 12k-id prompt is
 * ~70 KB; 1500 streams, ~100 MB live through every young collection). It cannot be rewound, so
 * it suits requests that are never re-sent by Jetty itself (no redirects, no authentication
 * challenges); the connector's own retries build a new request.
 */
final class OneShotBytesContent implements Request.Content {

    private final String contentType;
    private final long length;
    private volatile byte[] bytes;

    OneShotBytesContent(String contentType, byte[] bytes) {
        this.contentType = contentType;
        this.length = bytes.length;
        this.bytes = bytes;
    }

    @Override
    public String getContentType() {
        return contentType;
    }

    @Override
    public long getLength() {
        return length;
    }

    @Override
    public Content.Chunk read() {
        byte[] b = bytes;
        if (b == null) {
            return Content.Chunk.EOF;
        }
        bytes = null;
        return Content.Chunk.from(ByteBuffer.wrap(b), true);
    }

    @Override
    public void demand(Runnable demandCallback) {
        demandCallback.run(); // always readable: the bytes, then EOF
    }

    @Override
    public void fail(Throwable failure) {
        bytes = null;
    }
}
