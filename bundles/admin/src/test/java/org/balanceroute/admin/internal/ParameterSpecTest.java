package org.balanceroute.admin.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import org.balanceroute.policy.balance.BalanceSettings;
import org.junit.jupiter.api.Test;

/** The admin's BR ranges and defaults must be BalanceSettings' own. */
class ParameterSpecTest {

    private static final JsonNodeFactory NODES = JsonNodeFactory.instance;

    private static boolean settingsAccept(String field, double value) {
        Map<String, Double> v = new HashMap<>();
        BalanceSettings d = BalanceSettings.defaults();
        v.put("sGreedy", (double) d.sGreedy());
        v.put("rMax", (double) d.rMax());
        v.put("horizon", (double) d.horizon());
        v.put("alpha", d.alpha());
        v.put("beta", d.beta());
        v.put("gamma", d.gamma());
        v.put("confidence", d.confidence());
        v.put(field, value);
        try {
            new BalanceSettings(v.get("sGreedy").intValue(), v.get("rMax").intValue(), v.get("horizon").intValue(),
                    v.get("alpha"), v.get("beta"), v.get("gamma"), v.get("confidence"));
            return true;
        } catch (IllegalArgumentException e) {
            return false;
        }
    }

    private static boolean adminAccepts(ParameterSpec spec, double value) {
        try {
            spec.check(spec.kind() == ParameterSpec.Kind.NUMBER ? NODES.numberNode(value) : NODES.numberNode((long) value));
            return true;
        } catch (InvalidRequestException e) {
            return false;
        }
    }

    @Test
    void defaultsAreBalanceSettingsDefaults() {
        BalanceSettings d = BalanceSettings.defaults();
        Map<String, Object> expected = Map.of("sGreedy", d.sGreedy(), "rMax", d.rMax(), "horizon", d.horizon(),
                "alpha", d.alpha(), "beta", d.beta(), "gamma", d.gamma(), "confidence", d.confidence());
        Map<String, Object> actual = new HashMap<>();
        ParameterSpec.BALANCE.forEach(s -> actual.put(s.name(), s.defaultValue()));
        assertEquals(expected, actual);
    }

    @Test
    void rangesAgreeWithBalanceSettingsAtEveryBoundary() {
        double[] probes = {-1e9, -1, -0.5, -Double.MIN_VALUE, 0, Double.MIN_VALUE, 0.5, 0.999, 1, 1.0001, 2, 15, 16, 17,
                999, 1000, 1001, 14.67, 1e9};
        for (ParameterSpec spec : ParameterSpec.BALANCE) {
            for (double p : probes) {
                if (spec.kind() != ParameterSpec.Kind.NUMBER && p != Math.rint(p)) {
                    continue;
                }
                assertEquals(settingsAccept(spec.name(), p), adminAccepts(spec, p), spec.name() + " = " + p);
            }
        }
    }

    @Test
    void policiesAndTheirParameters() {
        assertEquals(ParameterSpec.BALANCE, ParameterSpec.of("br0"));
        assertEquals(ParameterSpec.BALANCE, ParameterSpec.of("brh-exact"));
        assertEquals(List.of("seed"), ParameterSpec.of("random").stream().map(ParameterSpec::name).toList());
        assertEquals(List.of(), ParameterSpec.of("br0-bypass"));
        assertEquals(List.of(), ParameterSpec.of("jsq"));
    }

    @Test
    void storedTextIsParsedAndChecked() throws Exception {
        ParameterSpec rMax = ParameterSpec.BALANCE.get(1);
        assertEquals(12, rMax.checkStored("12"));
        assertEquals(12, rMax.checkStored(12L));
        Consumer<Object> refused = v -> assertThrows(InvalidRequestException.class, () -> rMax.checkStored(v));
        refused.accept("twelve");
        refused.accept("17");
        refused.accept(12.5);
        assertEquals(0.25, ParameterSpec.BALANCE.get(6).checkStored(" 0.25 "));
    }
}
