package org.balanceroute.admin.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import jakarta.ws.rs.core.Response;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class PoliciesResourceTest {

    private static final ObjectMapper JSON = new ObjectMapper();

    private final FakeRouter router = new FakeRouter();
    private final FakeConfigAdmin configs = new FakeConfigAdmin();
    private final PoliciesResource resource = new PoliciesResource(router, configs.service());

    private static JsonNode json(String text) throws Exception {
        return JSON.readTree(text);
    }

    /** The OpenAI-style error of a 400, as parsed JSON. */
    private static JsonNode error(Response r) throws Exception {
        assertEquals(400, r.getStatus());
        assertEquals("application/json", r.getMediaType().toString());
        JsonNode body = JSON.readTree((String) r.getEntity());
        assertEquals(List.of("error"), iterable(body.fieldNames()));
        JsonNode e = body.get("error");
        assertEquals(List.of("message", "type", "param", "code"), iterable(e.fieldNames()));
        assertEquals("invalid_request_error", e.get("type").textValue());
        assertTrue(e.get("code").isNull());
        return e;
    }

    private static List<String> iterable(java.util.Iterator<String> it) {
        List<String> l = new java.util.ArrayList<>();
        it.forEachRemaining(l::add);
        return l;
    }

    @Test
    void getAnswersTheActivePolicyItsParametersInForceAndTheAvailableOnes() throws Exception {
        Map<String, Object> br = new LinkedHashMap<>();
        br.put("rMax", 4);
        router.parameters = Map.of("br0", br);
        Map<String, Object> answer = resource.policies();
        assertEquals(List.of("active", "parameters", "available"), List.copyOf(answer.keySet()));
        assertEquals("br0", answer.get("active"));
        assertEquals(br, answer.get("parameters"));
        assertEquals(router.available, answer.get("available"));
        assertEquals("{\"active\":\"br0\",\"parameters\":{\"rMax\":4},\"available\":"
                + "[\"br0\",\"brh-survival\",\"jsq\",\"p2c\",\"random\"]}", JSON.writeValueAsString(answer));

        router.active = "jsq";
        assertEquals(Map.of(), resource.policies().get("parameters"));
    }

    @Test
    void putSwitchesAndRetunesThroughConfigAdmin() throws Exception {
        configs.put(PoliciesResource.ROUTER_PID, Map.of("workers", "8", "felix.fileinstall.filename", "file:/x.cfg"));
        Response r = resource.update(json("{\"policy\": \"brh-survival\", \"parameters\": {\"horizon\": 40, \"beta\": 8}}"));
        assertEquals(200, r.getStatus());
        @SuppressWarnings("unchecked")
        Map<String, Object> answer = (Map<String, Object>) r.getEntity();
        assertEquals(List.of("active", "parameters", "available"), List.copyOf(answer.keySet()));
        assertEquals("brh-survival", answer.get("active"));
        assertEquals("{\"sGreedy\":0,\"rMax\":8,\"horizon\":40,\"alpha\":1.0,\"beta\":8.0,\"gamma\":0.64,\"confidence\":0.5}",
                JSON.writeValueAsString(answer.get("parameters")));

        Map<String, Object> balance = configs.updates.get(ParameterSpec.BALANCE_PID);
        assertEquals(40, balance.get("horizon"));
        assertEquals(8.0, balance.get("beta"));
        assertEquals(null, balance.get("rMax"), "only the fields sent are written");
        Map<String, Object> routerConfig = configs.updates.get(PoliciesResource.ROUTER_PID);
        assertEquals("brh-survival", routerConfig.get("policy"));
        assertEquals("8", routerConfig.get("workers"), "other properties are kept");
        assertEquals("file:/x.cfg", routerConfig.get("felix.fileinstall.filename"));
        assertEquals(List.of(ParameterSpec.BALANCE_PID, PoliciesResource.ROUTER_PID), List.copyOf(configs.updates.keySet()),
                "parameters are written before the switch");
    }

    @Test
    void putWithoutParametersKeepsTheStoredOnes() throws Exception {
        configs.put(ParameterSpec.BALANCE_PID, Map.of("rMax", "12", "alpha", 2));
        Response r = resource.update(json("{\"policy\": \"br0\"}"));
        assertEquals(200, r.getStatus());
        @SuppressWarnings("unchecked")
        Map<String, Object> parameters = (Map<String, Object>) ((Map<String, Object>) r.getEntity()).get("parameters");
        assertEquals(12, parameters.get("rMax"));
        assertEquals(2.0, parameters.get("alpha"));
        assertEquals(List.of(PoliciesResource.ROUTER_PID), List.copyOf(configs.updates.keySet()));
    }

    @Test
    void valuesForAFileBackedConfigurationAreWrittenAsText() throws Exception {
        configs.put(ParameterSpec.BALANCE_PID, Map.of("rMax", "8", "felix.fileinstall.filename", "file:/b.cfg"));
        assertEquals(200, resource.update(json("{\"policy\": \"br0\", \"parameters\": {\"rMax\": 6, \"beta\": 2}}"))
                .getStatus());
        assertEquals("6", configs.updates.get(ParameterSpec.BALANCE_PID).get("rMax"));
        assertEquals("2.0", configs.updates.get(ParameterSpec.BALANCE_PID).get("beta"));
    }

    @Test
    void seedsGoToTheirPolicysConfiguration() throws Exception {
        assertEquals(200, resource.update(json("{\"policy\": \"p2c\", \"parameters\": {\"seed\": 42}}")).getStatus());
        assertEquals(42L, configs.updates.get(ParameterSpec.P2C_PID).get("seed"));
    }

    @Test
    void anUnknownPolicyIsRefusedAndNothingIsWritten() throws Exception {
        JsonNode e = error(resource.update(json("{\"policy\": \"brh-oracle\"}")));
        assertEquals("policy", e.get("param").textValue());
        assertEquals("unknown policy 'brh-oracle'; available: br0, brh-survival, jsq, p2c, random",
                e.get("message").textValue());
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
                "sGreedy must be an integer >= 0 (0 means G), got -1");
        assertRefused("{\"policy\": \"br0\", \"parameters\": {\"beta\": \"14\"}}", "beta",
                "beta must be a number >= 0, got \"14\"");
        assertRefused("{\"policy\": \"random\", \"parameters\": {\"seed\": 1.5}}", "seed",
                "seed must be a 64-bit integer, got 1.5");
        assertTrue(configs.updates.isEmpty());
    }

    @Test
    void unknownFieldsAndParametersAreRefused() throws Exception {
        assertRefused("{\"policy\": \"jsq\", \"parameters\": {\"seed\": 1}}", "seed",
                "policy 'jsq' has no parameters, got 'seed'");
        assertRefused("{\"policy\": \"br0\", \"parameters\": {\"rmax\": 4}}", "rmax",
                "unknown parameter 'rmax' for policy 'br0'; known: sGreedy, rMax, horizon, alpha, beta, gamma, confidence");
        assertRefused("{\"policy\": \"br0\", \"params\": {}}", "params",
                "unknown field 'params'; expected 'policy' and 'parameters'");
        assertRefused("{\"parameters\": {}}", "policy",
                "policy must be the name of one of the available policies: br0, brh-survival, jsq, p2c, random");
        assertRefused("{\"policy\": \"br0\", \"parameters\": [1]}", "parameters",
                "parameters must be a JSON object of the policy's parameters");
        JsonNode e = error(resource.update(json("[\"br0\"]")));
        assertTrue(e.get("param").isNull());
        e = error(resource.update(null));
        assertTrue(e.get("message").textValue().startsWith("the request body must be a JSON object"));
    }

    @Test
    void anInvalidStoredValueIsReportedRatherThanKept() throws Exception {
        configs.put(ParameterSpec.BALANCE_PID, Map.of("rMax", "99"));
        assertRefused("{\"policy\": \"br0\", \"parameters\": {\"alpha\": 2}}", "rMax",
                "rMax must be an integer in [1, 16], got 99 (the value stored in configuration "
                        + "org.balanceroute.policy.balance); send a valid rMax");
        assertEquals(200, resource.update(json("{\"policy\": \"br0\", \"parameters\": {\"rMax\": 9}}")).getStatus());
    }

    private void assertRefused(String body, String param, String message) throws Exception {
        JsonNode e = error(resource.update(json(body)));
        assertEquals(param, e.get("param").textValue(), body);
        assertEquals(message, e.get("message").textValue(), body);
    }
}
