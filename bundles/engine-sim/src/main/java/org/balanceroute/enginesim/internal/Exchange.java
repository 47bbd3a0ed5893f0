package org.balanceroute.enginesim.internal;

import java.nio.ByteBuffer;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.util.Callback;
import org.eclipse.jetty.util.URIUtil;

/**
 * One HTTP request being answered: Jetty's request, response and the callback that ends the
 * exchange, and the request id (echoed or generated).
 */
final class Exchange {

    final Request request;
    final Response response;
    final Callback callback;
    final String requestId;

    Exchange(Request request, Response response, Callback callback, String requestId) {
        this.request = request;
        this.response = response;
        this.callback = callback;
        this.requestId = requestId;
    }

    String method() {
        return request.getMethod();
    }

    /** The path, decoded and not normalised ({@code /v1/../health} is no route), as {@code URI.getPath()} gives it. */
    String path() {
        String raw = request.getHttpURI().getPath();
        if (raw == null) {
            return "";
        }
        try {
            return URIUtil.decodePath(raw);
        } catch (IllegalArgumentException e) {
            return raw;
        }
    }

    String header(String name) {
        return request.getHeaders().get(name);
    }

    /** The whole answer in one write (Jetty sets its Content-Length); ends the exchange. */
    void send(int status, String contentType, byte[] body) {
        response.setStatus(status);
        response.getHeaders().put(HttpHeader.CONTENT_TYPE, contentType);
        response.write(true, body.length == 0 ? null : ByteBuffer.wrap(body), callback);
    }
}
