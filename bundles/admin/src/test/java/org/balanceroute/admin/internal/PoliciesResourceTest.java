package org.balanceroute.admin.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import jakarta.ws.rs.core.Response;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The REST resource over the real PolicyAdmin, the shipped policies' metatype and a fake runtime. */
class PoliciesResourceTest {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String BALANCE_PID = "org.balanceroute.policy.balance";
    private static final String AVAILABLE = "br0, br0-bypass, brh-exact, brh-survival, jsq, least-running, least-tokens, "
            + "p2c, random, round-robin, vllm-ascend";

    private final FakeRuntime runtime = new FakeRuntime();
    private final FakeConfigAdmin configs = runtime.configs;
    private final PoliciesResource resource = new PoliciesResource(runtime.admin);

    @AfterEach
    void stop() {
        runtime.close();
    }

    private static JsonNode json(String text) throws Exception {
        return JSON.readTree(text);
    }

    /** The OpenAI-style error of a 400, as parsed JSON. */
    private static JsonNode error(Response r) throws Exception {
        assertEquals(400, r.getStatus());
        assertEquals("application/json", r.getMediaType().toString());
        JsonNode body = JSON.readTree((String) r.getEntity());
        assertEquals(List.of("error"), names(body.fieldNames()));
        JsonNode e = body.get("error");
        assertEquals(List.of("message", "type", "param", "code"), names(e.fieldNames()));
        assertEquals("invalid_request_error", e.get("type").textValue());
        assertTrue(e.get("code").isNull());
        return e;
    }

    private static List<String> names(Iterator<String> it) {
        List<String> l = new ArrayList<>();
        it.forEachRemaining(l::add);
        return l;
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> entity(Response r) {
        return (Map<String, Object>) r.getEntity();
    }

    @Test
    void getAnswersTheActivePolicyItsParametersInForceTheAvailableOnesAndTheirSchema() throws Exception {
        Map<String, Object> answer = resource.policies();
        assertEquals(List.of("active", "parameters", "available", "schema"), List.copyOf(answer.keySet()));
        assertEquals("br0", answer.get("active"));
        assertEquals(runtime.router.policyParameters("br0"), answer.get("parameters"));
        assertEquals(List.of(AVAILABLE.split(", ")), answer.get("available"));
        JsonNode tree = JSON.valueToTree(answer);
        JsonNode schema = tree.get("schema");
        assertEquals(List.of(AVAILABLE.split(", ")), names(schema.fieldNames()), "every available policy");
        assertEquals("{\"id\":\"rMax\",\"name\":\"R_max\",\"description\":\"Stage 2 candidates per worker: the R_max "
                + "oldest waiting requests, whose subsets are searched exhaustively. Integer in [1, 16]; default 8.\","
                + "\"type\":\"integer\",\"default\":8,\"min\":\"1\",\"max\":\"16\",\"options\":{}}",
                JSON.writeValueAsString(schema.get("br0").get(1)));
        assertEquals(10, schema.get("brh-survival").size());
        assertEquals("[]", schema.get("jsq").toString(), "a policy without parameters");
        JsonNode seed = schema.get("random").get(0);
        assertEquals("long", seed.get("type").textValue());
        assertTrue(seed.get("min").isNull() && seed.get("max").isNull());
        JsonNode weight = schema.get("least-running").get(0);
        assertEquals("queuedWeight", weight.get("id").textValue());
        assertEquals("16", weight.get("max").textValue());

        runtime.router.active = "jsq";
        assertEquals(Map.of(), resource.policies().get("parameters"));
    }

    @Test
    void putSwitchesAndRetunesThroughConfigAdminAndAnswersOnceInForce() throws Exception {
        configs.put(PolicyAdminService.ROUTER_PID, Map.of("workers", "8", "felix.fileinstall.filename", "file:/x.cfg"));
        runtime.delayMillis = 150; // the components take their time
        Response r = resource.update(json("{\"policy\": \"brh-survival\", \"parameters\": {\"horizon\": 40, \"beta\": 8}}"));
        assertEquals(200, r.getStatus());
        Map<String, Object> answer = entity(r);
        assertEquals(List.of("pool", "active", "parameters", "available", "applied", "message"),
                List.copyOf(answer.keySet()));
        assertEquals("default", answer.get("pool"), "the primary pool");
        assertEquals("brh-survival", answer.get("active"));
        assertEquals(true, answer.get("applied"));
        assertEquals("{\"sGreedy\":0,\"rMax\":8,\"horizon\":40,\"alpha\":1.0,\"beta\":8.0,\"gamma\":0.64,\"confidence\":0.5,"
                + "\"stage1Worker\":\"margin\",\"horizonMargin\":\"mean\",\"projectedSlots\":0}",
                JSON.writeValueAsString(answer.get("parameters")));
        assertEquals("brh-survival", resource.policies().get("active"), "a GET right after the PUT shows it");
        assertEquals(40, ((Map<?, ?>) resource.policies().get("parameters")).get("horizon"));

        Map<String, Object> balance = configs.updates.get(BALANCE_PID);
        assertEquals(40, balance.get("horizon"));
        assertEquals(8.0, balance.get("beta"));
        assertEquals(null, balance.get("rMax"), "only the fields sent are written");
        Map<String, Object> routerConfig = configs.updates.get(PolicyAdminService.ROUTER_PID);
        assertEquals("brh-survival", routerConfig.get("policy"));
        assertEquals("8", routerConfig.get("workers"), "other properties are kept");
        assertEquals("file:/x.cfg", routerConfig.get("felix.fileinstall.filename"));
        assertEquals(List.of(BALANCE_PID, PolicyAdminService.ROUTER_PID), List.copyOf(configs.updates.keySet()),
                "parameters are written before the switch");
    }

    @Test
    void aChangeNotInForceWithinTheWaitIsAnswered202WithWhatIsPending() throws Exception {
        runtime.applying = false; // a router that has not received the configuration yet
        PoliciesResource impatient = new PoliciesResource(runtime.admin, Duration.ofMillis(60));
        Response r = impatient.update(json("{\"policy\": \"jsq\"}"));
        assertEquals(202, r.getStatus());
        Map<String, Object> answer = entity(r);
        assertEquals(false, answer.get("applied"));
        assertEquals("br0", answer.get("active"), "what is in force when it answers");
        assertEquals("written through ConfigAdmin, not yet in force after 60 ms: the router reports br0 active; the "
                + "router applies it once it receives the configuration (GET /admin/pools/default/policy shows what is in force)",
                answer.get("message"));
        assertEquals("jsq", configs.updates.get(PolicyAdminService.ROUTER_PID).get("policy"), "it is written");
    }

    @Test
    void putWithoutParametersKeepsTheStoredOnes() throws Exception {
        configs.put(BALANCE_PID, Map.of("rMax", "12", "alpha", 2));
        Response r = resource.update(json("{\"policy\": \"br0\"}"));
        assertEquals(200, r.getStatus());
        Map<?, ?> parameters = (Map<?, ?>) entity(r).get("parameters");
        assertEquals(12, parameters.get("rMax"));
        assertEquals(2.0, parameters.get("alpha"));
        assertEquals(List.of(PolicyAdminService.ROUTER_PID), List.copyOf(configs.updates.keySet()));
    }

    @Test
    void valuesForAFileBackedConfigurationAreWrittenAsText() throws Exception {
        configs.put(BALANCE_PID, Map.of("rMax", "8", "felix.fileinstall.filename", "file:/b.cfg"));
        assertEquals(200, resource.update(json("{\"policy\": \"br0\", \"parameters\": {\"rMax\": 6, \"beta\": 2}}"))
                .getStatus());
        assertEquals("6", configs.updates.get(BALANCE_PID).get("rMax"));
        assertEquals("2.0", configs.updates.get(BALANCE_PID).get("beta"));
    }

    @Test
    void eachPolicysParametersGoToThePidItNames() throws Exception {
        assertEquals(200, resource.update(json("{\"policy\": \"p2c\", \"parameters\": {\"seed\": 42}}")).getStatus());
        assertEquals(42L, configs.updates.get("org.balanceroute.policy.baseline.p2c").get("seed"));
        Response r = resource.update(json("{\"policy\": \"least-running\", \"parameters\": {\"queuedWeight\": 2}}"));
        assertEquals(200, r.getStatus());
        assertEquals(2, configs.updates.get("org.balanceroute.policy.example").get("queuedWeight"));
        assertEquals(Map.of("queuedWeight", 2), entity(r).get("parameters"));
    }

    @Test
    void anUnknownPolicyIsRefusedAndNothingIsWritten() throws Exception {
        JsonNode e = error(resource.update(json("{\"policy\": \"brh-oracle\"}")));
        assertEquals("policy", e.get("param").textValue());
        assertEquals("unknown policy 'brh-oracle'; available: " + AVAILABLE, e.get("message").textValue());
        assertTrue(configs.updates.isEmpty());
    }

    @Test
    void aParameterOutOfRangeNamesTheFieldAndTheRange() throws Exception {
        assertRefused("{\"policy\": \"br0\", \"parameters\": {\"rMax\": 99}}", "rMax",
                "rMax must be an integer in [1, 16], got 99");
        assertRefused("{\"policy\": \"br0\", \"parameters\": {\"rMax\": 4, \"gamma\": 0}}", "gamma",
                "gamma must be a number in (0, 1], got 0");
        assertRefused("{\"policy\": \"brh-survival\", \"parameters\": {\"alpha\": -1}}", "alpha",
                "alpha must be a number > 0, got -1");
        assertRefused("{\"policy\": \"brh-survival\", \"parameters\": {\"confidence\": 1.5}}", "confidence",
                "confidence must be a number in [0, 1], got 1.5");
        assertRefused("{\"policy\": \"br0\", \"parameters\": {\"horizon\": 8.5}}", "horizon",
                "horizon must be an integer in [0, 1000], got 8.5");
        assertRefused("{\"policy\": \"br0\", \"parameters\": {\"horizon\": 1001}}", "horizon",
                "horizon must be an integer in [0, 1000], got 1001");
        assertRefused("{\"policy\": \"br0\", \"parameters\": {\"sGreedy\": -1}}", "sGreedy",
                "sGreedy must be an integer >= 0, got -1");
        assertRefused("{\"policy\": \"br0\", \"parameters\": {\"beta\": \"14\"}}", "beta",
                "beta must be a number >= 0, got \"14\"");
        assertRefused("{\"policy\": \"br0\", \"parameters\": {\"beta\": [14]}}", "beta",
                "beta must be a number >= 0, got [14]");
        assertRefused("{\"policy\": \"random\", \"parameters\": {\"seed\": 1.5}}", "seed",
                "seed must be a 64-bit integer, got 1.5");
        assertRefused("{\"policy\": \"least-running\", \"parameters\": {\"queuedWeight\": 17}}", "queuedWeight",
                "queuedWeight must be an integer in [0, 16], got 17");
        assertTrue(configs.updates.isEmpty());
    }

    @Test
    void unknownFieldsAndParametersAreRefused() throws Exception {
        assertRefused("{\"policy\": \"jsq\", \"parameters\": {\"seed\": 1}}", "seed",
                "policy 'jsq' has no parameters, got 'seed'");
        assertRefused("{\"policy\": \"br0\", \"parameters\": {\"rmax\": 4}}", "rmax",
                "unknown parameter 'rmax' for policy 'br0'; known: sGreedy, rMax, horizon, alpha, beta, gamma, confidence, "
                + "stage1Worker, horizonMargin, projectedSlots");
        assertRefused("{\"policy\": \"br0\", \"params\": {}}", "params",
                "unknown field 'params'; expected 'policy' and 'parameters'");
        assertRefused("{\"parameters\": {}}", "policy",
                "policy must be the name of one of the available policies: " + AVAILABLE);
        assertRefused("{\"policy\": 7}", "policy",
                "policy must be the name of one of the available policies: " + AVAILABLE);
        assertRefused("{\"policy\": \"br0\", \"parameters\": [1]}", "parameters",
                "parameters must be a JSON object of the policy's parameters");
        JsonNode e = error(resource.update(json("[\"br0\"]")));
        assertTrue(e.get("param").isNull());
        e = error(resource.update(null));
        assertTrue(e.get("message").textValue().startsWith("the request body must be a JSON object"));
        assertTrue(configs.updates.isEmpty());
    }

    @Test
    void anInvalidStoredValueIsReportedRatherThanKept() throws Exception {
        configs.put(BALANCE_PID, Map.of("rMax", "99"));
        assertRefused("{\"policy\": \"br0\", \"parameters\": {\"alpha\": 2}}", "rMax",
                "rMax must be an integer in [1, 16], got 99 (the value stored in configuration "
                        + "org.balanceroute.policy.balance); send a valid rMax");
        assertTrue(configs.updates.isEmpty());
        assertEquals(200, resource.update(json("{\"policy\": \"br0\", \"parameters\": {\"rMax\": 9}}")).getStatus());
    }

    private void assertRefused(String body, String param, String message) throws Exception {
        JsonNode e = error(resource.update(json(body)));
        assertEquals(param, e.get("param").textValue(), body);
        assertEquals(message, e.get("message").textValue(), body);
    }
}
