package org.balanceroute.admin.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import jakarta.ws.rs.core.Response;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.balanceroute.api.PoolSnapshot;
import org.balanceroute.fleet.DecodeInstance;
import org.balanceroute.fleet.Endpoint;
import org.balanceroute.fleet.Fleet;
import org.balanceroute.fleet.PoolTopology;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class PoolsResourceTest {

    private static final ObjectMapper JSON = new ObjectMapper();

    private static PoolTopology twoInstances() {
        return new PoolTopology("default", "m", List.of("alias"), List.of("http://p:1"), List.of(
                new DecodeInstance("a", List.of(new Endpoint("http://d:1", 0), new Endpoint("http://d:1", 1)), 64),
                new DecodeInstance("b", List.of(new Endpoint("http://e:1", -1), new Endpoint("http://e:2", -1)), 32)));
    }

    /** Worker 1 down, 2 draining with one running, 3 drained. */
    private static PoolSnapshot snapshot() {
        return new PoolSnapshot("local", 3, 0, 64, new long[] {900, 100, 400, 0}, new int[] {2, 1, 1, 0},
                new int[] {1, 0, 0, 0}, 7, new boolean[] {true, false, true, true}, new int[] {0, 0, 1, 1},
                new int[] {64, 64, 32, 32}, new boolean[] {false, false, true, true});
    }

    @Test
    void everyWorkerWithItsStateAndEveryInstanceWithItsImbalance() {
        JsonNode pool = JSON.valueToTree(PoolsResource.render(twoInstances(), snapshot(), "br0", "br0"));
        assertEquals("default", pool.path("pool").asText());
        assertEquals(7, pool.path("poolDepth").asInt());
        assertEquals(800, pool.path("imbalance").asLong());
        JsonNode a = pool.path("instances").get(0);
        JsonNode b = pool.path("instances").get(1);
        assertEquals(800, a.path("imbalance").asLong());
        assertEquals(0, b.path("imbalance").asLong(), "drained and draining workers count in no imbalance");
        assertEquals("serving", a.path("workers").get(0).path("state").asText());
        assertEquals("down", a.path("workers").get(1).path("state").asText());
        assertEquals("draining", b.path("workers").get(0).path("state").asText());
        assertEquals("drained", b.path("workers").get(1).path("state").asText());
        assertEquals(2, b.path("workers").get(0).path("worker").asInt());
        assertEquals("http://d:1;rank=1", a.path("workers").get(1).path("endpoint").asText());
        assertEquals(32, b.path("capacity").asInt());
    }

    /** A fleet of {@code default} and {@code chat} (both routed, one worker each) and {@code later} (no router yet). */
    private final FakeRuntime runtime = new FakeRuntime();
    private final FakeRouter chat = runtime.addPool("chat", true);
    private final PoolsResource resource = new PoolsResource(runtime.router, () -> runtime.fleet,
            new PolicyAnswers(runtime.admin, Duration.ofSeconds(5)));

    {
        runtime.addPool("later", false);
        runtime.router.snapshot = oneWorker(100, 2);
        chat.snapshot = oneWorker(700, 5);
        chat.active = "jsq";
        chat.own = "jsq";
    }

    @AfterEach
    void stop() {
        runtime.close();
    }

    private static PoolSnapshot oneWorker(long load, int poolDepth) {
        return new PoolSnapshot("local", 1, 0, 64, new long[] {load}, new int[] {1}, new int[1], poolDepth);
    }

    /** The JSON of an error answer, checked to be the OpenAI shape with this status. */
    private static JsonNode error(Response r, int status) throws Exception {
        assertEquals(status, r.getStatus());
        return JSON.readTree((String) r.getEntity()).path("error");
    }

    private static Map<?, ?> entity(Response r) {
        return (Map<?, ?>) r.getEntity();
    }

    @Test
    void everyPoolComesFromItsOwnRouterWithItsPolicies() {
        JsonNode pools = JSON.valueToTree(resource.pools()).path("pools");
        assertEquals(3, pools.size());
        JsonNode chatPool = pools.get(0);
        assertEquals("chat", chatPool.path("pool").asText());
        assertEquals("jsq", chatPool.path("activePolicy").asText());
        assertEquals("jsq", chatPool.path("configuredPolicy").asText());
        assertEquals(5, chatPool.path("poolDepth").asInt());
        assertEquals(700, chatPool.path("instances").get(0).path("workers").get(0).path("load").asLong());
        JsonNode defaultPool = pools.get(1);
        assertEquals("br0", defaultPool.path("activePolicy").asText());
        assertEquals("br0", defaultPool.path("configuredPolicy").asText());
        assertEquals(100, defaultPool.path("instances").get(0).path("workers").get(0).path("load").asLong());
        JsonNode later = pools.get(2);
        assertEquals("later", later.path("pool").asText());
        assertTrue(later.path("activePolicy").isMissingNode() && later.path("poolDepth").isMissingNode(),
                "no router yet: the topology only");
        assertEquals("http://later:8200", later.path("instances").get(0).path("workers").get(0).path("endpoint").asText());
    }

    @Test
    void aDrainActsOnTheNamedPoolsRouter() {
        Response r = resource.worker("chat", "0", "drain");
        assertEquals(200, r.getStatus());
        assertEquals(List.of("0:true"), chat.drains);
        assertEquals(List.of(), runtime.router.drains, "the primary pool's router is not touched");
        assertEquals("chat", entity(r).get("pool"));
        assertEquals(200, resource.instance("chat", "decode", "undrain").getStatus());
        assertEquals(List.of("0:true", "0:false"), chat.drains);
    }

    @Test
    void anUnknownPoolIs404AndAPoolWithoutARouter503() throws Exception {
        JsonNode e = error(resource.worker("nope", "0", "drain"), 404);
        assertEquals("pool", e.path("param").asText());
        assertEquals("no pool 'nope' (GET /admin/pools lists them)", e.path("message").asText());
        e = error(resource.instance("later", "decode", "drain"), 503);
        assertEquals("pool 'later' has no router in this runtime yet", e.path("message").asText());
    }

    @Test
    void aPoolsPolicyIsWrittenToItsOwnFactoryConfigurationAndConfirmedOnItsRouter() throws Exception {
        runtime.configs.putFactory(Fleet.FACTORY_PID, "chat", Map.of("model", "m", "felix.fileinstall.filename", "file:/c"));
        runtime.configs.putFactory(Fleet.FACTORY_PID, "default", Map.of("model", "d"));
        Response r = resource.changePolicy("chat", JSON.readTree("{\"policy\": \"brh-survival\", \"parameters\": {\"beta\": 8}}"));
        assertEquals(200, r.getStatus(), String.valueOf(r.getEntity()));
        assertEquals(List.of("pool", "active", "parameters", "available", "applied", "message"),
                List.copyOf(entity(r).keySet()));
        assertEquals("chat", entity(r).get("pool"));
        assertEquals("brh-survival", entity(r).get("active"));
        assertEquals("brh-survival", chat.activePolicy());
        assertEquals("br0", runtime.router.activePolicy(), "the other pool keeps its policy");
        Map<String, Object> written = runtime.configs.updates.get("org.balanceroute.pool~chat");
        assertEquals("brh-survival", written.get("policy"));
        assertEquals("m", written.get("model"), "the pool's other keys are kept");
        assertEquals(List.of("org.balanceroute.policy.balance", "org.balanceroute.pool~chat"),
                List.copyOf(runtime.configs.updates.keySet()), "the parameters to the policy's shared PID, first");

        JsonNode got = JSON.valueToTree(resource.policy("chat").getEntity());
        assertEquals("chat", got.path("pool").asText());
        assertEquals("brh-survival", got.path("active").asText());
        assertEquals("brh-survival", got.path("configured").asText());
        assertEquals(8.0, got.path("parameters").path("beta").asDouble());
        assertTrue(got.path("available").toString().contains("\"jsq\""));
    }

    @Test
    void putAdminPolicyWritesTheRoutersPolicyAsBeforePoolsWhenThePrimaryPoolNamesNone() throws Exception {
        runtime.configs.putFactory(Fleet.FACTORY_PID, "default", Map.of("model", "d"));
        Response r = new PoliciesResource(runtime.admin).update(JSON.readTree("{\"policy\": \"p2c\"}"));
        assertEquals(200, r.getStatus(), String.valueOf(r.getEntity()));
        assertEquals("default", entity(r).get("pool"));
        assertEquals("p2c", runtime.configs.updates.get(PolicyAdminService.ROUTER_PID).get("policy"),
                "the router's, which the replicas share");
        assertFalse(runtime.configs.updates.containsKey("org.balanceroute.pool~default"), "the pool's file names none");
        assertEquals("p2c", runtime.router.activePolicy());
        assertEquals("jsq", chat.activePolicy());
        assertEquals("p2c", JSON.valueToTree(resource.policy("default").getEntity()).path("active").asText());
    }

    @Test
    void putAdminPolicyAlsoWritesThePrimaryPoolsOwnPolicyWhenItsFileNamesOne() throws Exception {
        runtime.configs.putFactory(Fleet.FACTORY_PID, "default", Map.of("model", "d", "policy", "br0"));
        Response r = new PoliciesResource(runtime.admin).update(JSON.readTree("{\"policy\": \"p2c\"}"));
        assertEquals(200, r.getStatus(), String.valueOf(r.getEntity()));
        assertEquals("p2c", runtime.configs.updates.get(PolicyAdminService.ROUTER_PID).get("policy"));
        assertEquals("p2c", runtime.configs.updates.get("org.balanceroute.pool~default").get("policy"));
    }

    @Test
    void aPoolWithoutAFactoryConfigurationWritesTheRoutersPolicy() throws Exception {
        Response r = resource.changePolicy("default", JSON.readTree("{\"policy\": \"random\"}"));
        assertEquals(200, r.getStatus(), String.valueOf(r.getEntity()));
        assertEquals("random", runtime.configs.updates.get(PolicyAdminService.ROUTER_PID).get("policy"));
        assertEquals("random", runtime.router.activePolicy());
    }

    @Test
    void anUnknownPoolsPolicyIs404AndNothingIsWritten() throws Exception {
        JsonNode e = error(resource.changePolicy("nope", JSON.readTree("{\"policy\": \"jsq\"}")), 404);
        assertEquals("pool", e.path("param").asText());
        assertEquals("invalid_request_error", e.path("type").asText());
        assertEquals("no pool 'nope' (GET /admin/pools lists them)", e.path("message").asText());
        e = error(resource.changePolicy("nope", JSON.readTree("{\"policy\": \"no-such\"}")), 404);
        assertEquals("pool", e.path("param").asText(), "the pool is checked first");
        e = error(resource.policy("nope"), 404);
        assertEquals("pool", e.path("param").asText());
        e = error(resource.changePolicy("chat", JSON.readTree("{\"policy\": \"br0\", \"parameters\": {\"rMax\": 99}}")), 400);
        assertEquals("rMax", e.path("param").asText());
        assertTrue(runtime.configs.updates.isEmpty());
    }

    @Test
    void aPoolWithoutARouterYetIsWrittenAndAnswered202() throws Exception {
        runtime.configs.putFactory(Fleet.FACTORY_PID, "later", Map.of("model", "l"));
        PoolsResource impatient = new PoolsResource(runtime.router, () -> runtime.fleet,
                new PolicyAnswers(runtime.admin, Duration.ofMillis(30)));
        Response r = impatient.changePolicy("later", JSON.readTree("{\"policy\": \"jsq\"}"));
        assertEquals(202, r.getStatus());
        assertEquals(false, entity(r).get("applied"));
        assertEquals("none", entity(r).get("active"));
        assertTrue(((String) entity(r).get("message")).contains("pool 'later' has no router yet"), String.valueOf(entity(r)));
        assertEquals("jsq", runtime.configs.updates.get("org.balanceroute.pool~later").get("policy"));
        JsonNode got = JSON.valueToTree(resource.policy("later").getEntity());
        assertTrue(got.path("active").isNull() && got.path("configured").isNull());
    }
}
