package org.balanceroute.enginesim.internal;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.IdentityHashMap;
import java.util.Map;
import org.balanceroute.enginesim.SimConfig;
import org.balanceroute.wire.OpenAiErrorBody;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.http.HttpStatus;
import org.eclipse.jetty.http.UriCompliance;
import org.eclipse.jetty.server.Connector;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.HttpConfiguration;
import org.eclipse.jetty.server.HttpConnectionFactory;
import org.eclipse.jetty.server.NetworkConnector;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.eclipse.jetty.server.handler.ErrorHandler;
import org.eclipse.jetty.util.Callback;
import org.eclipse.jetty.util.thread.QueuedThreadPool;
import org.eclipse.jetty.util.thread.ScheduledExecutorScheduler;

/**
 * A running cluster: the step loop and shared state ({@link Engines}) and one Jetty server with a
 * connector per endpoint. Asynchronous throughout: a bounded pool (one selector thread per
 * endpoint and {@value #WORKERS} more) serves every connection and stream, whatever their number.
 */
public final class EngineServers implements AutoCloseable {

    /** Connections waiting to be accepted per endpoint: bursts of thousands of requests (a replay) must not time out. */
    private static final int ACCEPT_BACKLOG = 4096;
    /**
     * An idle keep-alive connection is kept 10 minutes: a client (the proxy's pool) reuses the
     * connections of a burst of thousands long after it, and one closed under it just then would
     * see an EOF on its POST.
     */
    private static final long IDLE_TIMEOUT_MILLIS = 600_000;
    /** Pool threads besides the selectors': requests, stream writes, prefill answers. */
    static final int WORKERS = 16;
    /** The largest request line plus headers, as the JDK's server took (its maxReqHeaderSize, 384 KiB). */
    private static final int REQUEST_HEADER_BYTES = 384 * 1024;
    /** Thread names: {@code enginesim-http-N} (the pool), {@code enginesim-scheduler-N}. */
    static final String POOL_NAME = "enginesim-http";

    private final SimConfig config;
    private final Engines engines;
    private final Server server;
    private final HttpConfiguration http = new HttpConfiguration();
    /** Each connector's endpoint; filled before the server starts, read only after. */
    private final Map<Connector, EndpointHandler> endpoints = new IdentityHashMap<>();
    private final int[] prefillPorts;
    private final int[] decodePorts;
    private int allRanksPort = -1;

    private EngineServers(SimConfig config) {
        this.config = config;
        int connectors = config.prefill() + config.decode() + (config.allRanksEndpoint() ? 1 : 0);
        QueuedThreadPool pool = new QueuedThreadPool(connectors + WORKERS, Math.min(8, connectors + WORKERS));
        pool.setName(POOL_NAME);
        pool.setDaemon(true);
        ScheduledExecutorScheduler scheduler = new ScheduledExecutorScheduler("enginesim-scheduler", true);
        server = new Server(pool, scheduler, null);
        server.setErrorHandler(new OpenAiErrors());
        server.setHandler(new Handler.Abstract() {
            @Override
            public boolean handle(Request request, Response response, Callback callback) {
                endpoints.get(request.getConnectionMetaData().getConnector()).handle(request, response, callback);
                return true;
            }
        });
        // no Server header (the JDK's server sent none); a Date header, as it and uvicorn do
        http.setSendServerVersion(false);
        http.setSendDateHeader(true);
        http.setRequestHeaderSize(REQUEST_HEADER_BYTES);
        // every path reaches the handlers, which answer what they do not serve with an OpenAI 404
        http.setUriCompliance(UriCompliance.UNSAFE);
        this.engines = new Engines(config, pool, scheduler);
        prefillPorts = new int[config.prefill()];
        decodePorts = new int[config.decode()];
    }

    /**
     * Binds every endpoint and starts the step loop; on a bind failure nothing stays open.
     *
     * @throws IllegalArgumentException when a configured fault is invalid (nothing started)
     */
    public static EngineServers start(SimConfig config) throws IOException {
        EngineServers c = new EngineServers(config);
        for (String fault : config.faults()) {
            try {
                c.engines.faults.apply(c.engines.json.readTree(fault), -1);
            } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
                throw new IllegalArgumentException("--fault is not valid JSON: " + fault);
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException("--fault " + fault + ": " + e.getMessage());
            }
        }
        try {
            c.engines.engine.start();
            for (int i = 0; i < config.prefill(); i++) {
                c.prefillPorts[i] = c.bind(config.portBase() == 0 ? 0 : config.portBase() + i,
                        new EndpointHandler(c.engines, EndpointHandler.Kind.PREFILL, i));
            }
            if (config.allRanksEndpoint()) {
                c.allRanksPort = c.bind(config.portBase() == 0 ? 0 : config.portBase() + 99,
                        new EndpointHandler(c.engines, EndpointHandler.Kind.ALL_RANKS, -1));
            }
            for (int g = 0; g < config.decode(); g++) {
                c.decodePorts[g] = c.bind(config.portBase() == 0 ? 0 : config.portBase() + 100 + g,
                        new EndpointHandler(c.engines, EndpointHandler.Kind.RANK, g));
            }
            c.server.start();
            return c;
        } catch (IOException | RuntimeException e) {
            c.close();
            throw e;
        } catch (Exception e) {
            c.close();
            throw new IOException("cannot start the simulated cluster's HTTP server: " + e, e);
        }
    }

    /** Opens a connector on the port (0: ephemeral) for the endpoint; it accepts once the server starts. */
    private int bind(int port, EndpointHandler handler) throws IOException {
        // no acceptor thread: the connector's one selector accepts too
        ServerConnector connector = new ServerConnector(server, 0, 1, new HttpConnectionFactory(http));
        connector.setHost(config.host());
        connector.setPort(port);
        connector.setAcceptQueueSize(ACCEPT_BACKLOG);
        connector.setIdleTimeout(IDLE_TIMEOUT_MILLIS);
        // no Nagle: a stream chunk is a small write, and the peer's delayed ACK (~40 ms) is longer than many steps
        connector.setAcceptedTcpNoDelay(true);
        try {
            connector.open();
        } catch (IOException e) {
            throw new IOException("cannot listen on " + config.host() + ":" + port + ": " + e.getMessage(), e);
        }
        endpoints.put(connector, handler);
        server.addConnector(connector);
        return connector.getLocalPort();
    }

    public int prefillPort(int i) {
        return prefillPorts[i];
    }

    public int decodePort(int g) {
        return decodePorts[g];
    }

    public int allRanksPort() {
        return allRanksPort;
    }

    /** Applies a fault change given as JSON (the {@code POST /sim/faults} body). */
    public void applyFaults(String jsonBody) throws IOException {
        engines.faults.apply(engines.json.readTree(jsonBody), -1);
        engines.engine.wake();
    }

    public String statsJson() throws IOException {
        return engines.json.writeValueAsString(engines.stats.toJson(engines.json));
    }

    public String seriesJson() throws IOException {
        return engines.json.writeValueAsString(engines.stats.seriesJson(engines.json));
    }

    /** The time factor in force now: --time-factor, or the last {@link #setTimeFactor}. */
    public double timeFactor() {
        return engines.timeFactor();
    }

    /** Changes the time factor from the next step and prefill on ({@code POST /sim/timing}). */
    public void setTimeFactor(double v) {
        engines.setTimeFactor(v);
    }

    /** Tokens per streamed chunk now: --stream-interval, or the last {@link #setStreamInterval}. */
    public int streamInterval() {
        return engines.streamInterval();
    }

    /** Changes the tokens per streamed chunk from the next decode step on ({@code POST /sim/timing}). */
    public void setStreamInterval(int v) {
        engines.setStreamInterval(v);
    }

    public void resetStats() {
        engines.stats.reset();
    }

    /**
     * Stops the step loop (open streams and waiting requests get their in-band error, written
     * while the server still runs), then the server: its connections, pool and scheduler.
     */
    @Override
    public void close() {
        engines.engine.stop();
        try {
            server.stop();
        } catch (Exception e) {
            // stopping anyway: the sockets close below
        }
        for (Connector c : server.getConnectors()) {
            if (c instanceof NetworkConnector n) {
                try {
                    n.close(); // a connector opened by a start that failed was never started
                } catch (RuntimeException e) {
                    // already closed
                }
            }
        }
    }

    /**
     * Jetty's own answers (a request it refuses before any endpoint sees it: a bad request line,
     * a header block over {@link #REQUEST_HEADER_BYTES}, a bad Content-Length, an unknown HTTP
     * version), as OpenAI error bodies like every other error of the cluster.
     */
    private final class OpenAiErrors implements Request.Handler {

        @Override
        public boolean handle(Request request, Response response, Callback callback) throws IOException {
            int status = request.getAttribute(ErrorHandler.ERROR_STATUS) instanceof Integer s ? s : response.getStatus();
            String message = request.getAttribute(ErrorHandler.ERROR_MESSAGE) instanceof String m && !m.isBlank()
                    ? m : HttpStatus.getMessage(status);
            String type = switch (status) {
                case 404 -> "NotFoundError";
                case 405 -> "MethodNotAllowedError";
                default -> status < 500 ? "BadRequestError" : "InternalServerError";
            };
            response.setStatus(status);
            response.getHeaders().put(HttpHeader.CONTENT_TYPE, "application/json");
            response.write(true, ByteBuffer.wrap(engines.json.writeValueAsBytes(
                    OpenAiErrorBody.of(message, type, null, status))), callback);
            return true;
        }
    }
}
