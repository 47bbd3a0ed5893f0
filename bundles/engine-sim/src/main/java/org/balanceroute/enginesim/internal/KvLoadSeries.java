package org.balanceroute.enginesim.internal;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * Every rank's true KV load over the decode steps since the last reset, sampled in bounded
 * memory: each step is kept while fewer than {@link #capacity()} samples are held; when full,
 * every other sample is dropped and the stride doubles, so a run of any length keeps between
 * half the capacity and the capacity, evenly spaced over the whole run (steps 0, s, 2s, ... for
 * a power of two s). The capacity is {@value #MAX_SAMPLES} samples, fewer for many ranks so that
 * at most {@value #MAX_LOADS} loads are held (4 MiB). Not thread-safe: {@link GroundTruthStats}
 * guards it with its monitor.
 */
final class KvLoadSeries {

    static final int MAX_SAMPLES = 4096;
    static final int MAX_LOADS = 1 << 19;

    private final int ranks;
    private final int capacity;
    private final long[] steps;
    private final double[] seconds;
    private final long[] loads; // sample i, rank g at i * ranks + g
    private int samples;
    private long stride = 1;
    private long nextStep;

    KvLoadSeries(int ranks) {
        this.ranks = ranks;
        this.capacity = Math.max(2, Math.min(MAX_SAMPLES, MAX_LOADS / ranks) & ~1);
        steps = new long[capacity];
        seconds = new double[capacity];
        loads = new long[capacity * ranks];
    }

    int capacity() {
        return capacity;
    }

    /** One decode step's loads, {@code secondsSinceFirst} wall seconds after the first step began. */
    void record(long[] rankLoads, double secondsSinceFirst) {
        long step = nextStep++;
        if (step % stride != 0) {
            return;
        }
        if (samples == capacity) {
            for (int i = 0; i < capacity / 2; i++) {
                steps[i] = steps[2 * i];
                seconds[i] = seconds[2 * i];
                System.arraycopy(loads, 2 * i * ranks, loads, i * ranks, ranks);
            }
            samples = capacity / 2;
            stride *= 2;
            if (step % stride != 0) {
                return;
            }
        }
        steps[samples] = step;
        seconds[samples] = secondsSinceFirst;
        System.arraycopy(rankLoads, 0, loads, samples * ranks, ranks);
        samples++;
    }

    void reset() {
        samples = 0;
        stride = 1;
        nextStep = 0;
    }

    /**
     * {@code {"ranks": G, "steps": N, "stride": s, "samples": n, "step": [...], "timeS": [...],
     * "loads": [[L_0, ..., L_G-1], ...]}}: N steps recorded since the reset, n of them kept (every
     * s-th), each with its step index, its wall time since the first step and every rank's load.
     */
    ObjectNode toJson(ObjectMapper json) {
        ObjectNode out = json.createObjectNode();
        out.put("ranks", ranks);
        out.put("steps", nextStep);
        out.put("stride", stride);
        out.put("samples", samples);
        ArrayNode step = out.putArray("step");
        ArrayNode time = out.putArray("timeS");
        ArrayNode load = out.putArray("loads");
        for (int i = 0; i < samples; i++) {
            step.add(steps[i]);
            time.add(Math.round(seconds[i] * 1e6) / 1e6);
            ArrayNode row = load.addArray();
            for (int g = 0; g < ranks; g++) {
                row.add(loads[i * ranks + g]);
            }
        }
        return out;
    }
}
