package org.balanceroute.enginesim.internal;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.util.UUID;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicInteger;
import org.balanceroute.enginesim.SimConfig;
import org.eclipse.jetty.util.thread.Scheduler;

/**
 * What every endpoint of a cluster serves from: the decode step loop, the prefill servers'
 * requests in flight, the fault plan, the ground-truth stats, the KV handles issued, the time
 * factor, and the server's thread pool and scheduler (the stream writers' wake-ups, the prefill
 * delays). {@link EngineServers} builds it and binds one {@link EndpointHandler} per endpoint to
 * it; the handlers know this state, not the cluster that serves them.
 */
final class Engines {

    final SimConfig config;
    final ObjectMapper json = new ObjectMapper();
    final Faults faults;
    final GroundTruthStats stats;
    final DecodeEngine engine;
    final KvHandleRegistry handles;
    /** The clusters whose handles this one also accepts (none by default). */
    final HandlePeers peers;
    /** Distinguishes this cluster's engine ids from another cluster's. */
    final String clusterId = UUID.randomUUID().toString().substring(0, 8);
    final AtomicInteger[] prefillInFlight;
    final TimeFactor timeFactor;
    /** The HTTP server's pool: a stream writer woken by the step loop writes there. */
    final Executor executor;
    /** The HTTP server's scheduler: a prefill answers when its simulated time is up. */
    final Scheduler scheduler;

    Engines(SimConfig config, Executor executor, Scheduler scheduler) {
        this.executor = executor;
        this.scheduler = scheduler;
        this.config = config;
        faults = new Faults(config.decode(), config.prefill());
        timeFactor = new TimeFactor(config.timeFactor());
        stats = new GroundTruthStats(config.decode(), timeFactor);
        engine = new DecodeEngine(config, timeFactor, faults, stats);
        handles = new KvHandleRegistry(config.handleClockNanos(), config.handleTtlSeconds());
        peers = new HandlePeers(config.handlePeers(), json, executor);
        prefillInFlight = new AtomicInteger[config.prefill()];
        for (int i = 0; i < prefillInFlight.length; i++) {
            prefillInFlight[i] = new AtomicInteger();
        }
    }

    /** The time factor in force now: --time-factor, or the last {@link #setTimeFactor}. */
    double timeFactor() {
        return timeFactor.get();
    }

    /** Changes the time factor from the next step and prefill on. */
    void setTimeFactor(double v) {
        timeFactor.set(v);
        engine.wake();
    }

    /** Tokens per streamed chunk now: --stream-interval, or the last {@link #setStreamInterval}. */
    int streamInterval() {
        return engine.streamInterval();
    }

    /** Changes the tokens per streamed chunk from the next decode step on. */
    void setStreamInterval(int v) {
        engine.setStreamInterval(v);
    }
}
