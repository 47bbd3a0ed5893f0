package org.balanceroute.proxy.internal;

import java.nio.ByteBuffer;
import org.apache.felix.http.jetty.ConnectorFactory;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.http.HttpStatus;
import org.eclipse.jetty.server.Connector;
import org.eclipse.jetty.server.LocalConnector;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.handler.ErrorHandler;
import org.eclipse.jetty.util.Callback;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Deactivate;

/**
 * The answers the runtime's HTTP server gives itself, before any servlet sees the request (a bad
 * request line, a header block over the limit: 431, a URI over it: 414, a bad header or
 * {@code Content-Length}: 400, an unknown HTTP version: 505), as OpenAI error bodies like every
 * other error of the proxy, instead of Jetty's HTML page. Errors inside the servlet context (404,
 * 405, ...) are {@link ErrorBodyMapper}'s.
 *
 * <p>Felix HTTP Jetty hands its {@link Server} to a {@link ConnectorFactory} service only: this one
 * installs its error handler on the server it is given and returns an in-memory connector, which
 * opens no socket (Felix adds and starts whatever a factory returns). Felix calls it again for the
 * new server when it restarts Jetty; the handler that was there is put back when the component
 * stops, so no class of an updated proxy bundle stays in the server.
 */
@Component(service = ConnectorFactory.class)
public final class JettyErrorBodies implements ConnectorFactory {

    private Server server;
    private Request.Handler previous;

    @Override
    public synchronized Connector createConnector(Server server) {
        restore();
        this.server = server;
        this.previous = server.getErrorHandler();
        server.setErrorHandler(new Bodies());
        return new LocalConnector(server);
    }

    @Deactivate
    synchronized void deactivate() {
        restore();
    }

    private void restore() {
        if (server != null && server.getErrorHandler() instanceof Bodies) {
            server.setErrorHandler(previous);
        }
        server = null;
        previous = null;
    }

    /** Jetty's error handler: the status and Jetty's reason as an OpenAI error body. */
    static final class Bodies implements Request.Handler {

        @Override
        public boolean handle(Request request, Response response, Callback callback) {
            int status = request.getAttribute(ErrorHandler.ERROR_STATUS) instanceof Integer s ? s : response.getStatus();
            response.setStatus(status);
            response.getHeaders().put(HttpHeader.CONTENT_TYPE, "application/json");
            response.write(true, ByteBuffer.wrap(OpenAiError.ofStatus(status, message(request, status)).body()),
                    callback);
            return true;
        }

        /** The status's phrase, Jetty's reason when it says more ("No URI", "Illegal character ..."), and the limit passed. */
        private static String message(Request request, int status) {
            String phrase = HttpStatus.getMessage(status);
            String reason = request.getAttribute(ErrorHandler.ERROR_MESSAGE) instanceof String m ? m : null;
            StringBuilder b = new StringBuilder(phrase);
            if (reason != null && !reason.isBlank() && !reason.equals(phrase)) {
                b.append(": ").append(reason);
            }
            if (status == HttpStatus.REQUEST_HEADER_FIELDS_TOO_LARGE_431 || status == HttpStatus.URI_TOO_LONG_414) {
                b.append(" (the request line and headers may take at most ")
                        .append(request.getConnectionMetaData().getHttpConfiguration().getRequestHeaderSize())
                        .append(" bytes)");
            }
            return b.toString();
        }
    }
}
