package org.balanceroute.enginesim;

import static org.balanceroute.enginesim.SimHttp.await;
import static org.balanceroute.enginesim.SimHttp.json;
import static org.balanceroute.enginesim.SimHttp.metric;
import static org.balanceroute.enginesim.SimHttp.post;
import static org.balanceroute.enginesim.SimHttp.stats;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

/**
 * The decode tier steps at a barrier: a step lasts (a * max_g L_g + b) * timeFactor, so a light
 * rank advances at the heavy rank's pace; and the engine's ground truth matches.
 */
class BarrierTimingTest {

    static String tokenPrompt(int n) {
        StringBuilder sb = new StringBuilder("[");
        for (int i = 0; i < n; i++) {
            sb.append(i == 0 ? "" : ",").append(i % 1000);
        }
        return sb.append(']').toString();
    }

    @Test
    void stepCadenceFollowsTheHeaviestRank() throws Exception {
        double a = 2e-6;
        double b = 0.010;
        double tf = 0.5;
        int heavyPrompt = 10_000;
        int heavyTokens = 60;
        int lightTokens = 20;
        try (SimCluster c = SimCluster.start(SimConfig.builder().prefill(0).decode(2).portBase(0)
                .stepA(a).stepB(b).timeFactor(tf).build())) {
            CompletableFuture<HttpResponse<String>> heavy = CompletableFuture.supplyAsync(() -> {
                try {
                    return post(c.decodeUrl(0) + "/v1/completions", "{\"prompt\": " + tokenPrompt(heavyPrompt)
                            + ", \"max_tokens\": " + heavyTokens + ", \"ignore_eos\": true}");
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
            });
            await("the heavy request to run", Duration.ofSeconds(10),
                    () -> metric(c.decodeUrl(0), "vllm:num_requests_running", 0) == 1);

            long t0 = System.nanoTime();
            HttpResponse<String> light = post(c.decodeUrl(1) + "/v1/completions",
                    "{\"prompt\": [1, 2, 3], \"max_tokens\": " + lightTokens + ", \"ignore_eos\": true}");
            double lightWall = (System.nanoTime() - t0) / 1e9;
            assertEquals(200, light.statusCode(), light.body());
            assertEquals(200, heavy.get().statusCode());

            // the light rank's steps last as long as the heavy rank's: a * ~10000 + b, not a * 3 + b
            double barrierStep = (a * heavyPrompt + b) * tf;
            double aloneStep = (a * 3 + b) * tf;
            assertTrue(lightWall >= 0.9 * lightTokens * barrierStep,
                    "light request took " + lightWall + " s, barrier pace predicts " + lightTokens * barrierStep
                            + " s (alone it would be " + lightTokens * aloneStep + " s)");
            assertTrue(lightWall <= 1.6 * (lightTokens + 2) * (a * (heavyPrompt + heavyTokens) + b) * tf,
                    "light request took " + lightWall + " s");

            JsonNode s = stats(c.decodeUrl(0));
            assertEquals(heavyTokens, s.get("steps").asLong(), s.toString());
            double expectedModel = 0;
            for (int j = 0; j < heavyTokens; j++) {
                expectedModel += a * (heavyPrompt + j) + b;
            }
            assertEquals(expectedModel, s.get("modelStepSecondsSum").asDouble(), 1e-9,
                    "step time = a * max L + b with max L the heavy rank's prompt + generated");
            // measured: from the first step's start to the last step's tokens, wall clock
            double span = s.get("spanS").asDouble();
            assertTrue(span >= 0.97 * expectedModel * tf && span <= 1.3 * expectedModel * tf,
                    "wall time of the steps " + span + " s vs modelled " + expectedModel + " s * " + tf);
            double stepsPerSecond = heavyTokens / span;
            assertTrue(Math.abs(stepsPerSecond - heavyTokens / (expectedModel * tf)) / stepsPerSecond < 0.25,
                    "cadence " + stepsPerSecond + " steps/s");
            assertEquals(heavyTokens + lightTokens, s.get("outputTokens").asLong());
            assertEquals(heavyTokens, s.at("/ranks/0/outputTokens").asLong());
            assertEquals(lightTokens, s.at("/ranks/1/outputTokens").asLong());
        }
    }

    @Test
    void groundTruthStatsMeasureImbalanceAndReset() throws Exception {
        try (SimCluster c = SimCluster.start(SimConfig.builder().prefill(0).decode(2).portBase(0)
                .timeFactor(0.01).build())) {
            HttpResponse<String> r = post(c.allRanksUrl() + "/v1/completions",
                    "{\"prompt\": " + tokenPrompt(100) + ", \"max_tokens\": 10, \"ignore_eos\": true}",
                    "X-data-parallel-rank", "0");
            assertEquals(200, r.statusCode(), r.body());
            JsonNode s = stats(c.allRanksUrl());
            assertEquals(10, s.get("steps").asLong());
            // rank 0 runs 100..109 KV tokens while rank 1 is empty: imbalance = I = the load
            assertEquals(104.5, s.get("avgImbalance").asDouble(), 1e-9);
            assertEquals(104.5, s.get("meanI").asDouble(), 1e-9);
            assertEquals(104.5, s.at("/ranks/0/meanLoad").asDouble(), 1e-9);
            assertEquals(109, s.at("/ranks/0/maxLoad").asLong());
            assertEquals(1, s.at("/ranks/0/completed").asLong());
            assertEquals(0, s.at("/ranks/1/outputTokens").asLong());
            assertTrue(s.get("throughputTokPerS").asDouble() > 0);
            assertTrue(s.get("tpotP95Ms").asDouble() > 0);
            assertTrue(s.get("ttftP95S").asDouble() > 0);
            JsonNode reset = json(post(c.decodeUrl(1) + "/sim/stats/reset", ""));
            assertEquals(0, reset.get("steps").asLong());
            assertEquals(0, stats(c.decodeUrl(0)).get("steps").asLong());
        }
    }

    @Test
    void aSlowRankSlowsTheBarrierForAll() throws Exception {
        double b = 0.010;
        double tf = 0.5;
        try (SimCluster c = SimCluster.start(SimConfig.builder().prefill(0).decode(2).portBase(0)
                .stepA(0).stepB(b).timeFactor(tf).fault("{\"rank\": 1, \"slowFactor\": 3}").build())) {
            HttpResponse<String> r = post(c.decodeUrl(0) + "/v1/completions",
                    "{\"prompt\": \"x\", \"max_tokens\": 10, \"ignore_eos\": true}");
            assertEquals(200, r.statusCode());
            JsonNode s = stats(c.decodeUrl(0));
            assertEquals(10, s.get("steps").asLong());
            assertEquals(10 * 3 * b, s.get("modelStepSecondsSum").asDouble(), 1e-9,
                    "rank 1 is idle but slow: every step lasts 3 b");
            // back to normal through the admin endpoint
            post(c.decodeUrl(1) + "/sim/faults", "{\"slowFactor\": 1}");
            post(c.decodeUrl(1) + "/sim/stats/reset", "");
            assertEquals(200, post(c.decodeUrl(0) + "/v1/completions",
                    "{\"prompt\": \"x\", \"max_tokens\": 10, \"ignore_eos\": true}").statusCode());
            assertEquals(10 * b, stats(c.decodeUrl(0)).get("modelStepSecondsSum").asDouble(), 1e-9);
        }
    }
}
