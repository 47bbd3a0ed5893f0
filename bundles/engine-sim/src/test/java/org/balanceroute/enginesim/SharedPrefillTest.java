package org.balanceroute.enginesim;

import static org.balanceroute.enginesim.SimHttp.JSON;
import static org.balanceroute.enginesim.SimHttp.json;
import static org.balanceroute.enginesim.SimHttp.post;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.net.http.HttpResponse;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * A prefill tier shared by two decode instances, each its own cluster: the second one, started
 * with {@code handlesFrom} the first, takes the first's handles through it (once, matched), while
 * a cluster without the option still refuses them.
 */
class SharedPrefillTest {

    static SimCluster issuer;
    static SimCluster peer;
    static SimCluster stranger;

    @BeforeAll
    static void start() throws Exception {
        issuer = SimCluster.start(SimConfig.builder().prefill(1).decode(1).portBase(0).timeFactor(0.01).build());
        peer = SimCluster.start(SimConfig.builder().prefill(0).decode(2).portBase(0).timeFactor(0.01)
                .handlesFrom(issuer.allRanksUrl()).build());
        stranger = SimCluster.start(SimConfig.builder().prefill(0).decode(1).portBase(0).timeFactor(0.01).build());
    }

    @AfterAll
    static void stop() {
        for (SimCluster c : new SimCluster[] {stranger, peer, issuer}) {
            if (c != null) {
                c.close();
            }
        }
    }

    private static JsonNode handle(String requestId) throws Exception {
        String body = "{\"prompt\": [1,2,3,4,5,6,7,8,9,10,11,12], \"max_tokens\": 1, \"min_tokens\": 1,"
                + " \"kv_transfer_params\": {\"do_remote_decode\": true, \"do_remote_prefill\": false}}";
        HttpResponse<String> r = post(issuer.prefillUrl(0) + "/v1/completions", body, "X-Request-Id", requestId);
        assertEquals(200, r.statusCode(), r.body());
        return json(r).get("kv_transfer_params");
    }

    private static String decodeBody(JsonNode kv) throws Exception {
        ObjectNode b = (ObjectNode) JSON.readTree("{\"prompt\": [1,2,3,4,5,6,7,8,9,10,11,12],"
                + " \"max_tokens\": 4, \"ignore_eos\": true}");
        b.set("kv_transfer_params", kv);
        return b.toString();
    }

    @Test
    void aPeerTakesTheIssuersHandleOnceWithItsPromptLength() throws Exception {
        JsonNode kv = handle("shared-1");
        HttpResponse<String> r = post(peer.decodeUrl(1) + "/v1/completions", decodeBody(kv));
        assertEquals(200, r.statusCode(), r.body());
        assertEquals(12, json(r).at("/usage/prompt_tokens").asInt());
        assertEquals(4, json(r).at("/usage/completion_tokens").asInt());
        assertEquals(1, JSON.readTree(peer.statsJson()).path("completed").asInt(), peer.statsJson());

        // once: neither the peer nor the issuer's own ranks take it again
        HttpResponse<String> again = post(peer.decodeUrl(0) + "/v1/completions", decodeBody(kv));
        assertEquals(400, again.statusCode(), again.body());
        assertTrue(json(again).at("/error/message").asText().contains("already used"), again.body());
        assertEquals("kv_transfer_params", json(again).at("/error/param").asText());
        HttpResponse<String> atIssuer = post(issuer.decodeUrl(0) + "/v1/completions", decodeBody(kv));
        assertEquals(400, atIssuer.statusCode(), atIssuer.body());
    }

    @Test
    void thePeerRefusesWhatTheIssuerWouldRefuse() throws Exception {
        ObjectNode tampered = handle("shared-2").deepCopy();
        tampered.put("remote_port", 1);
        HttpResponse<String> r = post(peer.decodeUrl(0) + "/v1/completions", decodeBody(tampered));
        assertEquals(400, r.statusCode(), r.body());
        assertTrue(json(r).at("/error/message").asText().contains("does not match"), r.body());

        ObjectNode forged = handle("shared-3").deepCopy();
        forged.put("remote_request_id", "never-issued");
        HttpResponse<String> f = post(peer.decodeUrl(0) + "/v1/completions", decodeBody(forged));
        assertEquals(400, f.statusCode(), f.body());
        assertTrue(json(f).at("/error/message").asText().contains("unknown KV handle"), f.body());
    }

    @Test
    void aClusterWithoutTheOptionStillRefusesAnotherClustersHandle() throws Exception {
        HttpResponse<String> r = post(stranger.decodeUrl(0) + "/v1/completions", decodeBody(handle("shared-4")));
        assertEquals(400, r.statusCode(), r.body());
        assertTrue(json(r).at("/error/message").asText().contains("no prefill server of this cluster issued it"),
                r.body());
    }

    @Test
    void handlesFromMustBeAnHttpBaseUrl() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> SimConfig.builder().handlesFrom("127.0.0.1:18199").build());
        assertTrue(e.getMessage().contains("--handles-from"), e.getMessage());
        assertThrows(IllegalArgumentException.class,
                () -> SimConfig.builder().handlesFrom("http://127.0.0.1:18199/v1").build());
        assertEquals(java.util.List.of("http://127.0.0.1:18199"),
                SimConfig.builder().handlesFrom("http://127.0.0.1:18199").build().handlePeers());
    }
}
