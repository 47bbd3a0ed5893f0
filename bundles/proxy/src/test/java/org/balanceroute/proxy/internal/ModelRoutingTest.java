package org.balanceroute.proxy.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.awaitility.Awaitility;
import org.balanceroute.fleet.DecodeInstance;
import org.balanceroute.fleet.Fleet;
import org.balanceroute.fleet.PoolTopology;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The request's model selects its pool; an unknown model is answered by the proxy before any engine sees it. */
class ModelRoutingTest {

    private static final ObjectMapper JSON = new ObjectMapper();
    private final FlowFakes.Router router = new FlowFakes.Router();
    private final FlowFakes.Connector connector = new FlowFakes.Connector();
    private final List<FlowFakes.Sink> sinks = new ArrayList<>();
    private CompletionFlow flow;

    private static PoolTopology pool(String name, String model, List<String> aliases, String worker) {
        return new PoolTopology(name, model, aliases, List.of("http://p:1"),
                List.of(new DecodeInstance("d", List.of(new org.balanceroute.fleet.Endpoint(worker, -1)), 64)));
    }

    private CompletionFlow flow(Fleet fleet) {
        flow = new CompletionFlow(router, connector, new ProxySettings(1 << 20, 10_000, 64, 0, 3, 0, 0,
                ProxyConfig.DEFAULT_MAX_TOKENS_LIMIT, ProxyConfig.DEFAULT_HOLD_TIMEOUT_MILLIS,
                ProxyConfig.DEFAULT_MAX_HELD_REQUESTS, ProxyConfig.DEFAULT_CLIENT_STALL_MILLIS, false), FlowFakes.sinks(sinks));
        flow.fleet(() -> fleet);
        return flow;
    }

    @AfterEach
    void close() {
        if (flow != null) {
            flow.close();
        }
    }

    private FlowFakes.Async send(String model) {
        FlowFakes.Async async = new FlowFakes.Async();
        String body = "{\"model\": \"" + model + "\", \"prompt\": \"Say:\", \"max_tokens\": 4, \"stream\": true}";
        flow.handle(Endpoint.COMPLETIONS,
                body.getBytes(StandardCharsets.UTF_8), "req-1", async);
        return async;
    }

    @Test
    void anUnknownModelIsAnsweredAsVllmDoesBeforeAnyEngine() throws Exception {
        flow(new Fleet(Map.of("a", pool("a", "llama", List.of(), "http://d:1"))));
        FlowFakes.Async async = send("gpt-9");
        assertEquals(404, async.response.getStatus());
        JsonNode error = JSON.readTree((byte[]) async.response.getEntity()).path("error");
        assertEquals("NotFoundError", error.path("type").asText());
        assertEquals("model", error.path("param").asText());
        assertEquals(404, error.path("code").asInt());
        assertTrue(error.path("message").asText().contains("gpt-9"), error.toString());
        assertTrue(connector.prefillBodies.isEmpty(), "no engine saw it");
    }

    @Test
    void anAliasReachesThePoolAndTheEngineIsSentTheModelName() {
        flow(new Fleet(Map.of("default", pool("default", "deepseek-v3", List.of("dsv3"), "http://d:1"),
                "b", pool("b", "llama", List.of(), "http://d:2"))));
        send("dsv3");
        Awaitility.await().until(() -> !connector.prefillBodies.isEmpty());
        assertEquals("deepseek-v3", connector.prefillBodies.get(0).path("model").asText());
    }

    @Test
    void eachPoolsRequestGoesToItsOwnConnectorAndRouter() {
        FlowFakes.Router routerB = new FlowFakes.Router();
        FlowFakes.Connector connectorB = new FlowFakes.Connector();
        router.others.put("b", routerB);
        connector.others.put("b", connectorB);
        flow(new Fleet(Map.of("default", pool("default", "deepseek-v3", List.of(), "http://d:1"),
                "b", pool("b", "llama", List.of(), "http://d:2"))));
        send("llama");
        Awaitility.await().until(() -> !connectorB.prefillBodies.isEmpty());
        connectorB.prefilled(0);
        Awaitility.await().until(() -> !connectorB.decodes.isEmpty());
        assertEquals(1, routerB.order.size(), "pool b's router placed it");
        send("deepseek-v3");
        Awaitility.await().until(() -> !connector.prefillBodies.isEmpty());
        assertTrue(router.order.isEmpty() && connectorB.prefillBodies.size() == 1, "nothing crossed pools");
    }

    @Test
    void aPoolTheRouterDoesNotHaveYetIsRefusedNotSentToAnotherPoolsEngines() throws Exception {
        flow(new Fleet(Map.of("default", pool("default", "deepseek-v3", List.of(), "http://d:1"),
                "b", pool("b", "llama", List.of(), "http://d:2"))));
        FlowFakes.Async async = send("llama");
        assertEquals(503, async.response.getStatus());
        assertTrue(JSON.readTree((byte[]) async.response.getEntity()).path("error").path("message").asText()
                .contains("pool 'b'"));
        assertTrue(connector.prefillBodies.isEmpty());
    }

    @Test
    void thePoolWithoutAModelNameTakesEveryModelUnchanged() {
        flow(new Fleet(Map.of("default", pool("default", PoolTopology.ANY_MODEL, List.of(), "http://d:1"))));
        send("whatever");
        Awaitility.await().until(() -> !connector.prefillBodies.isEmpty());
        assertEquals("whatever", connector.prefillBodies.get(0).path("model").asText());
    }

    @Test
    void theModelListNamesEveryPoolsModelsAndAliases() {
        JsonNode list = ModelList.of(new Fleet(Map.of("a", pool("a", "deepseek-v3", List.of("dsv3"), "http://d:1"),
                "b", pool("b", "llama", List.of(), "http://d:2"))), 7);
        assertEquals("list", list.path("object").asText());
        assertEquals(3, list.path("data").size());
        assertEquals("dsv3", list.path("data").get(1).path("id").asText());
        assertEquals("deepseek-v3", list.path("data").get(1).path("root").asText());
        assertEquals("llama", list.path("data").get(2).path("id").asText());
    }
}
