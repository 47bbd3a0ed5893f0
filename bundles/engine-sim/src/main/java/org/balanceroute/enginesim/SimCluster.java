package org.balanceroute.enginesim;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import org.balanceroute.enginesim.internal.EngineServers;

/**
 * A simulated vLLM DP cluster on localhost: P prefill servers, G decode ranks (one endpoint per
 * rank, "external DP") and an all-ranks endpoint honouring {@code X-data-parallel-rank}.
 * {@link #start} binds everything and starts the decode step loop; {@link #close} stops it.
 *
 * <pre>{@code
 * try (SimCluster c = SimCluster.start(SimConfig.builder().prefill(1).decode(2).portBase(0)
 *         .timeFactor(0.01).build())) {
 *     URI rank0 = URI.create(c.decodeUrl(0) + "/v1/completions");
 *     ...
 * }
 * }</pre>
 *
 * <p>{@code ./balanceroute sim-cluster} starts one from the command line (the CLI module's
 * SimClusterCommand), prints the endpoints and serves until stopped.
 */
public final class SimCluster implements AutoCloseable {

    private final SimConfig config;
    private final EngineServers servers;

    private SimCluster(SimConfig config, EngineServers servers) {
        this.config = config;
        this.servers = servers;
    }

    /**
     * Starts a cluster.
     *
     * @throws IOException when a port cannot be bound (nothing stays open then)
     * @throws IllegalArgumentException when a configured fault is invalid (nothing started)
     */
    public static SimCluster start(SimConfig config) throws IOException {
        return new SimCluster(config, EngineServers.start(config));
    }

    public SimConfig config() {
        return config;
    }

    /** Base URL of prefill server i, e.g. {@code http://127.0.0.1:18100}. */
    public String prefillUrl(int i) {
        return url(servers.prefillPort(i));
    }

    /** Base URL of decode rank g (one endpoint = one DP rank). */
    public String decodeUrl(int g) {
        return url(servers.decodePort(g));
    }

    /** Base URL of the all-ranks endpoint, or null when it is disabled. */
    public String allRanksUrl() {
        return servers.allRanksPort() < 0 ? null : url(servers.allRanksPort());
    }

    public int prefillPort(int i) {
        return servers.prefillPort(i);
    }

    public int decodePort(int g) {
        return servers.decodePort(g);
    }

    public int allRanksPort() {
        return servers.allRanksPort();
    }

    /**
     * Applies a fault change, the body {@code POST /sim/faults} takes: {@code {"rank": g,
     * "slowFactor": x, "failNext": n, "cutAfterTokens": k, "down": bool}}, {@code {"prefill": i,
     * "failNext": n, "down": bool}} or {@code {"clear": true}}.
     *
     * @throws IllegalArgumentException naming a bad field
     */
    public void applyFaults(String json) throws IOException {
        servers.applyFaults(json);
    }

    /** The ground-truth statistics, as {@code GET /sim/stats} returns them. */
    public String statsJson() throws IOException {
        return servers.statsJson();
    }

    /**
     * Every rank's KV load over the steps since the last reset (sampled, bounded), as {@code GET
     * /sim/series} returns it: {@code {"ranks", "steps", "stride", "samples", "step": [...],
     * "timeS": [...], "loads": [[...], ...]}}.
     */
    public String seriesJson() throws IOException {
        return servers.seriesJson();
    }

    /** Wall seconds per modelled second now: the configured one, or the last {@link #setTimeFactor}. */
    public double timeFactor() {
        return servers.timeFactor();
    }

    /**
     * Changes the time factor while the cluster runs, from the next decode step and prefill on
     * (as {@code POST /sim/timing {"timeFactor": F}}); reset the statistics after it, so that
     * they cover one factor.
     *
     * @throws IllegalArgumentException unless finite and > 0
     */
    public void setTimeFactor(double timeFactor) {
        servers.setTimeFactor(timeFactor);
    }

    /** Tokens per streamed chunk now: the configured one, or the last {@link #setStreamInterval}. */
    public int streamInterval() {
        return servers.streamInterval();
    }

    /**
     * Changes the tokens per streamed chunk while the cluster runs, from the next decode step on
     * (as {@code POST /sim/timing {"streamInterval": K}}).
     *
     * @throws IllegalArgumentException unless 1..4096
     */
    public void setStreamInterval(int streamInterval) {
        servers.setStreamInterval(streamInterval);
    }

    /** Clears the ground truth: the statistics and the load series. */
    public void resetStats() {
        servers.resetStats();
    }

    private String url(int port) {
        String host = config.host().contains(":") ? "[" + config.host() + "]" : config.host();
        return "http://" + host + ":" + port;
    }

    /** Stops every server and the step loop; open streams end with an in-band error. */
    @Override
    public void close() {
        servers.close();
    }

    /** One line per endpoint, as {@code ./balanceroute sim-cluster} prints them. */
    public List<String> describe() {
        List<String> lines = new ArrayList<>();
        for (int i = 0; i < config.prefill(); i++) {
            lines.add("prefill " + i + "    " + prefillUrl(i));
        }
        if (allRanksUrl() != null) {
            lines.add("all ranks    " + allRanksUrl() + "  (header X-data-parallel-rank: g; without it the"
                    + " rank with the lowest 4*waiting+running)");
        }
        for (int g = 0; g < config.decode(); g++) {
            lines.add("decode rank " + g + "  " + decodeUrl(g));
        }
        return lines;
    }
}
