package org.balanceroute.console.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.balanceroute.admin.PolicyAdmin.ParameterDescription;
import org.balanceroute.admin.PolicyAdmin.PolicyDescription;
import org.junit.jupiter.api.Test;

class PolicyRequestTest {

    static final List<PolicyDescription> POLICIES = List.of(
            new PolicyDescription("br0", "org.balanceroute.policy.balance", List.of(
                    new ParameterDescription("rMax", "R_max", "Stage 2 candidates", "integer", 8, "1", "16", Map.of()),
                    new ParameterDescription("alpha", "alpha", "fill weight", "number", 1.0, "0", null, Map.of()),
                    new ParameterDescription("seed", "seed", "seed", "long", 1L, null, null, Map.of()),
                    new ParameterDescription("bypass", "bypass", "bypass", "boolean", false, null, null, Map.of()),
                    new ParameterDescription("mode", "mode", "mode", "string", "a", null, null, Map.of("A", "a"))),
                    Map.of("rMax", 8, "alpha", 1.0)),
            new PolicyDescription("jsq", null, List.of(), Map.of()));

    private static JsonNode json(String s) throws Exception {
        return StateJson.JSON.readTree(s);
    }

    private static PolicyRequest parse(String s) throws Exception {
        return PolicyRequest.parse(json(s), POLICIES);
    }

    @Test
    void valuesAreTypedAsTheSchemaSays() throws Exception {
        PolicyRequest r = parse("{\"policy\": \"br0\", \"parameters\": {\"rMax\": 12, \"alpha\": 2, \"seed\": 5,"
                + " \"bypass\": true, \"mode\": \"a\"}}");
        assertEquals("br0", r.policy());
        Map<String, Object> expected = new LinkedHashMap<>();
        expected.put("rMax", 12);
        expected.put("alpha", 2.0);
        expected.put("seed", 5L);
        expected.put("bypass", true);
        expected.put("mode", "a");
        assertEquals(expected, r.parameters());
    }

    @Test
    void formTextReadsAsItsType() throws Exception {
        PolicyRequest r = parse("{\"policy\": \"br0\", \"parameters\": {\"rMax\": \" 12 \", \"alpha\": \"0.5\","
                + " \"bypass\": \"false\"}}");
        assertEquals(Map.of("rMax", 12, "alpha", 0.5, "bypass", false), r.parameters());
    }

    @Test
    void whatDoesNotReadAsItsTypeIsPassedOnForPolicyAdminToJudge() throws Exception {
        PolicyRequest r = parse("{\"policy\": \"br0\", \"parameters\": {\"rMax\": 1.5, \"alpha\": \"abc\","
                + " \"unknown\": 3, \"big\": 99999999999}}");
        assertEquals(1.5, r.parameters().get("rMax"));
        assertEquals("abc", r.parameters().get("alpha"));
        assertEquals(3, r.parameters().get("unknown"));
        assertEquals(99999999999L, r.parameters().get("big"));
        // out of range is PolicyAdmin's call, not the page's: passed on typed
        assertEquals(99, parse("{\"policy\": \"br0\", \"parameters\": {\"rMax\": 99}}").parameters().get("rMax"));
    }

    @Test
    void aPolicyOnlyOrAnUnknownPolicy() throws Exception {
        assertEquals(new PolicyRequest(null, "jsq", Map.of()), parse("{\"policy\": \"jsq\"}"));
        assertEquals(new PolicyRequest(null, "jsq", Map.of()), parse("{\"policy\": \" jsq \", \"parameters\": null}"));
        assertEquals(new PolicyRequest(null, "nosuch", Map.of("x", "1")),
                parse("{\"policy\": \"nosuch\", \"parameters\": {\"x\": \"1\"}}"));
        assertEquals(new PolicyRequest("chat", "jsq", Map.of()), parse("{\"pool\": \" chat \", \"policy\": \"jsq\"}"));
    }

    @Test
    void bodiesThatAreNoChange() {
        for (String bad : List.of("[]", "\"br0\"", "{}", "{\"policy\": 3}", "{\"policy\": \" \"}",
                "{\"policy\": \"br0\", \"parameters\": [1]}", "{\"policy\": \"br0\", \"parameters\": {\"rMax\": null}}",
                "{\"policy\": \"br0\", \"parameters\": {\"rMax\": [1]}}", "{\"pool\": 1, \"policy\": \"br0\"}",
                "{\"pool\": \"\", \"policy\": \"br0\"}")) {
            assertThrows(PolicyRequest.BadRequest.class, () -> parse(bad), bad);
        }
        assertThrows(PolicyRequest.BadRequest.class, () -> PolicyRequest.parse(null, POLICIES));
    }
}
