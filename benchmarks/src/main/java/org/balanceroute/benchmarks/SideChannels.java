package org.balanceroute.benchmarks;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;

/**
 * What a run reads beside the load: the router's prompt-pool depth (the admin snapshot) and the
 * engine's stats, through a JDK client of their own, not queued behind the load.
 */
final class SideChannels {

    private final HttpClient side = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(5)).build();
    private final URI proxy;
    private final String adminAuth;
    /** The cluster's endpoint for GET /sim/stats, or null. */
    private final URI sim;

    SideChannels(URI proxy, String adminAuth, URI sim) {
        this.proxy = proxy;
        this.adminAuth = adminAuth;
        this.sim = sim;
    }

    /** The router's prompt-pool depth, or -1 when the admin API does not answer. */
    int poolDepth() {
        try {
            HttpResponse<String> r = side.send(HttpRequest.newBuilder(proxy.resolve("/admin/snapshot"))
                    .timeout(Duration.ofSeconds(2)).header("Authorization", adminAuth).GET().build(),
                    HttpResponse.BodyHandlers.ofString());
            return r.statusCode() == 200 ? ProxyOverhead.JSON.readTree(r.body()).path("poolDepth").asInt(-1) : -1;
        } catch (IOException e) {
            return -1;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return -1;
        }
    }

    void resetSimStats() {
        if (sim == null) {
            return;
        }
        try {
            side.send(HttpRequest.newBuilder(sim.resolve("/sim/stats/reset")).timeout(Duration.ofSeconds(2))
                    .POST(HttpRequest.BodyPublishers.noBody()).build(), HttpResponse.BodyHandlers.discarding());
        } catch (IOException e) {
            System.err.println("proxy-overhead: POST /sim/stats/reset: " + e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** The engine's mean wall-clock decode step since the last reset, or NaN. */
    double simStepMs() {
        if (sim == null) {
            return Double.NaN;
        }
        try {
            HttpResponse<String> r = side.send(HttpRequest.newBuilder(sim.resolve("/sim/stats"))
                    .timeout(Duration.ofSeconds(5)).GET().build(), HttpResponse.BodyHandlers.ofString());
            return r.statusCode() == 200 ? ProxyOverhead.JSON.readTree(r.body()).path("meanStepMs").asDouble(Double.NaN) : Double.NaN;
        } catch (IOException e) {
            return Double.NaN;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return Double.NaN;
        }
    }
}
