package org.balanceroute.enginesim;

import static org.balanceroute.enginesim.BarrierTimingTest.tokenPrompt;
import static org.balanceroute.enginesim.SimHttp.get;
import static org.balanceroute.enginesim.SimHttp.json;
import static org.balanceroute.enginesim.SimHttp.post;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.http.HttpResponse;
import org.junit.jupiter.api.Test;

/** {@code POST /sim/timing}: the time factor changed while the cluster runs, from the next step on. */
class TimingEndpointTest {

    @Test
    void theTimeFactorChangesWhileTheClusterRuns() throws Exception {
        // at 1.0 a step lasts b = 20 ms: 50 tokens take a second or more
        try (SimCluster c = SimCluster.start(SimConfig.builder().prefill(1).decode(2).portBase(0).timeFactor(1.0).build())) {
            assertEquals(1.0, json(get(c.decodeUrl(0) + "/sim/timing")).get("timeFactor").asDouble());
            HttpResponse<String> set = post(c.prefillUrl(0) + "/sim/timing", "{\"timeFactor\": 0.001}");
            assertEquals(200, set.statusCode(), set.body());
            assertEquals(0.001, json(set).get("timeFactor").asDouble());
            assertEquals(0.001, c.timeFactor(), "the same in Java, whichever endpoint was asked");
            post(c.decodeUrl(1) + "/sim/stats/reset", "");
            long t0 = System.nanoTime();
            HttpResponse<String> r = post(c.decodeUrl(1) + "/v1/completions",
                    "{\"prompt\": " + tokenPrompt(100) + ", \"max_tokens\": 50, \"ignore_eos\": true}");
            double seconds = (System.nanoTime() - t0) / 1e9;
            assertEquals(200, r.statusCode(), r.body());
            assertTrue(seconds < 0.5, "50 steps of 20 us each took " + seconds + " s");
            assertEquals(0.001, SimHttp.stats(c.decodeUrl(0)).get("timeFactor").asDouble());

            assertEquals(400, post(c.decodeUrl(0) + "/sim/timing", "{\"timeFactor\": 0}").statusCode());
            assertEquals(400, post(c.decodeUrl(0) + "/sim/timing", "{\"timeFactor\": \"fast\"}").statusCode());
            assertEquals(400, post(c.decodeUrl(0) + "/sim/timing", "{}").statusCode());
            assertEquals(0.001, c.timeFactor(), "a rejected change changes nothing");
            assertThrows(IllegalArgumentException.class, () -> c.setTimeFactor(Double.NaN));
            c.setTimeFactor(0.5);
            assertEquals(0.5, json(get(c.allRanksUrl() + "/sim/timing")).get("timeFactor").asDouble());
        }
    }

    @Test
    void theStreamIntervalChangesWhileTheClusterRuns() throws Exception {
        try (SimCluster c = SimCluster.start(SimConfig.builder().prefill(1).decode(1).portBase(0).timeFactor(0.001).build())) {
            String body = "{\"prompt\": " + tokenPrompt(10) + ", \"max_tokens\": 8, \"ignore_eos\": true, \"stream\": true}";
            assertEquals(8, chunks(post(c.decodeUrl(0) + "/v1/completions", body).body()), "1 token per chunk at start");
            HttpResponse<String> set = post(c.decodeUrl(0) + "/sim/timing", "{\"streamInterval\": 4}");
            assertEquals(200, set.statusCode(), set.body());
            assertEquals(4, json(set).get("streamInterval").asInt());
            assertEquals(0.001, json(set).get("timeFactor").asDouble(), "the time factor left as it was");
            assertEquals(4, c.streamInterval());
            assertEquals(2, chunks(post(c.decodeUrl(0) + "/v1/completions", body).body()));

            assertEquals(400, post(c.decodeUrl(0) + "/sim/timing", "{\"streamInterval\": 0}").statusCode());
            assertEquals(400, post(c.decodeUrl(0) + "/sim/timing", "{\"streamInterval\": 2.5}").statusCode());
            assertEquals(400, post(c.decodeUrl(0) + "/sim/timing", "{\"timeFactor\": 0, \"streamInterval\": 2}").statusCode());
            assertEquals(4, c.streamInterval(), "a rejected change changes nothing");
            assertThrows(IllegalArgumentException.class, () -> c.setStreamInterval(4097));
            HttpResponse<String> both = post(c.prefillUrl(0) + "/sim/timing", "{\"timeFactor\": 0.002, \"streamInterval\": 1}");
            assertEquals(200, both.statusCode(), both.body());
            assertEquals(1, c.streamInterval());
            assertEquals(0.002, c.timeFactor());
        }
    }

    /** Token chunks of an SSE answer (those with a choice's text). */
    private static int chunks(String sse) {
        return (int) sse.lines().filter(l -> l.startsWith("data: {") && l.contains("\"text\"")).count();
    }
}
