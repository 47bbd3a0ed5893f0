package org.balanceroute.enginesim;

import static org.balanceroute.enginesim.BarrierTimingTest.tokenPrompt;
import static org.balanceroute.enginesim.SimHttp.get;
import static org.balanceroute.enginesim.SimHttp.json;
import static org.balanceroute.enginesim.SimHttp.post;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.net.http.HttpResponse;
import org.junit.jupiter.api.Test;

/** {@code GET /sim/series} over real HTTP: every rank's true KV load, step by step, reset with the stats. */
class LoadSeriesEndpointTest {

    @Test
    void theSeriesHoldsEveryRanksLoadAtEveryStep() throws Exception {
        try (SimCluster c = SimCluster.start(SimConfig.builder().prefill(0).decode(2).portBase(0)
                .timeFactor(0.01).build())) {
            HttpResponse<String> r = post(c.allRanksUrl() + "/v1/completions",
                    "{\"prompt\": " + tokenPrompt(100) + ", \"max_tokens\": 10, \"ignore_eos\": true}",
                    "X-data-parallel-rank", "1");
            assertEquals(200, r.statusCode(), r.body());
            HttpResponse<String> answer = get(c.decodeUrl(0) + "/sim/series");
            assertEquals(200, answer.statusCode());
            assertEquals("application/json", answer.headers().firstValue("Content-Type").orElse("").split(";")[0]);
            JsonNode s = json(answer);
            assertEquals(2, s.get("ranks").asInt());
            assertEquals(10, s.get("steps").asLong());
            assertEquals(1, s.get("stride").asLong());
            assertEquals(10, s.get("samples").asInt());
            for (int i = 0; i < 10; i++) {
                assertEquals(i, s.get("step").get(i).asLong());
                // rank 1 runs the request: its prompt plus the tokens generated before the step
                assertEquals(100 + i, s.get("loads").get(i).get(1).asLong(), s.toString());
                assertEquals(0, s.get("loads").get(i).get(0).asLong());
            }
            assertEquals(0.0, s.get("timeS").get(0).asDouble());
            assertTrue(s.get("timeS").get(9).asDouble() > s.get("timeS").get(0).asDouble());
            assertEquals(s.toString(), c.seriesJson(), "the same in Java");

            post(c.decodeUrl(1) + "/sim/stats/reset", "");
            JsonNode empty = json(get(c.allRanksUrl() + "/sim/series"));
            assertEquals(0, empty.get("steps").asLong());
            assertEquals(0, empty.get("loads").size());
            assertEquals(405, post(c.decodeUrl(0) + "/sim/series", "").statusCode());
        }
    }
}
