package org.balanceroute.enginesim.internal;

import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.balanceroute.enginesim.SimConfig;

/** A running cluster: the step loop and shared state ({@link Engines}) and one HTTP server per endpoint. */
public final class EngineServers implements AutoCloseable {

    /** Connections waiting to be accepted per server: bursts of thousands of requests (a replay) must not time out. */
    private static final int ACCEPT_BACKLOG = 4096;

    static {
        // The JDK server keeps at most 200 idle keep-alive connections, each for 30 s, and closes
        // the rest; a client (the proxy's pool) that reuses one of those just then sees an EOF on
        // its POST. A cluster that served a burst of thousands keeps them, for 10 minutes. Read
        // once, when the server classes initialise; an operator's own -D setting wins.
        if (System.getProperty("sun.net.httpserver.maxIdleConnections") == null) {
            System.setProperty("sun.net.httpserver.maxIdleConnections", "65536");
        }
        if (System.getProperty("sun.net.httpserver.idleInterval") == null) {
            System.setProperty("sun.net.httpserver.idleInterval", "600");
        }
        // Nagle's algorithm (the JDK server's default) holds a small write, a stream chunk, until
        // the peer's delayed ACK: ~40 ms, longer than many decode steps.
        if (System.getProperty("sun.net.httpserver.nodelay") == null) {
            System.setProperty("sun.net.httpserver.nodelay", "true");
        }
    }

    private final SimConfig config;
    private final Engines engines;
    private final ExecutorService executor;
    private final List<HttpServer> servers = new ArrayList<>();
    private final int[] prefillPorts;
    private final int[] decodePorts;
    private int allRanksPort = -1;

    private EngineServers(SimConfig config) {
        this.config = config;
        this.engines = new Engines(config);
        AtomicInteger threads = new AtomicInteger();
        executor = Executors.newCachedThreadPool(r -> {
            Thread t = new Thread(r, "enginesim-http-" + threads.incrementAndGet());
            t.setDaemon(true);
            return t;
        });
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
            return c;
        } catch (IOException | RuntimeException e) {
            c.close();
            throw e;
        }
    }

    private int bind(int port, EndpointHandler handler) throws IOException {
        HttpServer server;
        try {
            server = HttpServer.create(new InetSocketAddress(config.host(), port), ACCEPT_BACKLOG);
        } catch (IOException e) {
            throw new IOException("cannot listen on " + config.host() + ":" + port + ": " + e.getMessage(), e);
        }
        server.createContext("/", handler);
        server.setExecutor(executor);
        server.start();
        servers.add(server);
        return server.getAddress().getPort();
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

    @Override
    public void close() {
        // HttpServer.stop waits for its dispatcher thread: stop them side by side
        List<Thread> stopping = new ArrayList<>();
        for (HttpServer s : servers) {
            Thread t = new Thread(() -> s.stop(0), "enginesim-stop");
            t.start();
            stopping.add(t);
        }
        for (Thread t : stopping) {
            try {
                t.join(5000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        servers.clear();
        engines.engine.stop();
        executor.shutdownNow();
        try {
            executor.awaitTermination(2, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
