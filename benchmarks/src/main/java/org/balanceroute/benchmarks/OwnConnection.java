package org.balanceroute.benchmarks;

import org.eclipse.jetty.client.Connection;
import org.eclipse.jetty.client.HttpClient;
import org.eclipse.jetty.client.Request;
import org.eclipse.jetty.client.Response;
import org.eclipse.jetty.client.Result;
import org.eclipse.jetty.util.Promise;

/**
 * A stream's own connection to the server it streams from, held across its requests as a
 * client of a proxy holds one: opened on first use and again once the server closed it,
 * closed when the stream ends. Never pooled: with a connection pool of thousands per
 * destination, Jetty's pool scans its entries on every acquire and copies its list on every
 * removal, which at 8,192 streams cost this client more than reading the answers. Used by one
 * request at a time (the stream's next one starts after the last one ended).
 */
final class OwnConnection {
    private volatile Connection connection;

    void send(HttpClient client, Request request, Response.CompleteListener listener) {
        Connection c = connection;
        if (c != null && !c.isClosed()) {
            c.send(request, listener);
            return;
        }
        client.resolveDestination(request).newConnection(Promise.from(opened -> {
            connection = opened;
            opened.send(request, listener);
        }, failure -> listener.onComplete(new Result(request, failure, null))));
    }

    void close() {
        Connection c = connection;
        if (c != null) {
            c.close();
        }
    }
}
