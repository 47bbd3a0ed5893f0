package org.balanceroute.enginesim.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Test;

class KvLoadSeriesTest {

    private static final ObjectMapper JSON = new ObjectMapper();

    @Test
    void aLongRunKeepsAtMostTheCapacityEvenlySpaced() {
        KvLoadSeries series = new KvLoadSeries(3);
        assertEquals(KvLoadSeries.MAX_SAMPLES, series.capacity());
        int steps = 100_000;
        for (int k = 0; k < steps; k++) {
            series.record(new long[] {k, 2L * k, 7}, k * 0.01);
        }
        JsonNode s = series.toJson(JSON);
        int n = s.get("samples").asInt();
        long stride = s.get("stride").asLong();
        assertTrue(n <= KvLoadSeries.MAX_SAMPLES && n > KvLoadSeries.MAX_SAMPLES / 2, "samples " + n);
        assertEquals(32, stride, "100,000 steps over 4096 samples: every 32nd");
        assertEquals(steps, s.get("steps").asLong());
        for (int i = 0; i < n; i++) {
            long step = s.get("step").get(i).asLong();
            assertEquals(i * stride, step);
            assertEquals(2 * step, s.get("loads").get(i).get(1).asLong());
            assertEquals(step * 0.01, s.get("timeS").get(i).asDouble(), 1e-6);
        }
        series.reset();
        assertEquals(0, series.toJson(JSON).get("samples").asInt());
    }

    @Test
    void manyRanksHoldFewerSamples() {
        assertEquals(512, new KvLoadSeries(1024).capacity(), "at most 2^19 loads");
        assertEquals(2, new KvLoadSeries(1 << 20).capacity());
    }
}
