package org.balanceroute.admin.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.lang.reflect.Proxy;
import java.util.Map;
import java.util.function.UnaryOperator;
import org.balanceroute.admin.PolicyAdmin.InvalidChangeException;
import org.osgi.service.metatype.AttributeDefinition;
import org.junit.jupiter.api.Test;

/** The schema-driven checks beyond what the shipped policies use: options, booleans, text, lists. */
class TunableTest {

    /** An attribute as a MetaType service would hand it out; {@code validate} as given. */
    static AttributeDefinition ad(String id, int type, int cardinality, String[] defaults, String[] labels,
            String[] values, UnaryOperator<String> validate) {
        return (AttributeDefinition) Proxy.newProxyInstance(TunableTest.class.getClassLoader(),
                new Class<?>[] {AttributeDefinition.class}, (proxy, method, args) -> switch (method.getName()) {
                    case "getID" -> id;
                    case "getName" -> id + " name";
                    case "getDescription" -> id + " description";
                    case "getType" -> type;
                    case "getCardinality" -> cardinality;
                    case "getDefaultValue" -> defaults;
                    case "getOptionLabels" -> labels;
                    case "getOptionValues" -> values;
                    case "validate" -> validate.apply((String) args[0]);
                    default -> throw new UnsupportedOperationException(method.getName());
                });
    }

    private static String refusal(Tunable t, Object value) {
        return assertThrows(InvalidChangeException.class, () -> t.fromRequest(value)).getMessage();
    }

    @Test
    void optionsAreTheOnlyValuesAllowed() throws Exception {
        Tunable mode = Tunable.of(ad("mode", AttributeDefinition.STRING, 0, new String[] {"fast"},
                new String[] {"Fast", "Careful"}, new String[] {"fast", "careful"}, v -> ""), null, null);
        assertEquals(Map.of("Fast", "fast", "Careful", "careful"), mode.description().options());
        assertEquals("string", mode.description().type());
        assertEquals("fast", mode.description().defaultValue());
        assertEquals("careful", mode.fromRequest("careful"));
        assertEquals("mode must be one of fast, careful, got \"slow\"", refusal(mode, "slow"));
        assertEquals("mode must be one of fast, careful, got 1", refusal(mode, 1L));

        Tunable level = Tunable.of(ad("level", AttributeDefinition.INTEGER, 0, new String[] {"2"}, null,
                new String[] {"1", "2", "4"}, v -> null), null, null);
        assertEquals(4, level.fromRequest(4L));
        assertEquals("level must be one of 1, 2, 4, got 3", refusal(level, 3L));
    }

    @Test
    void booleansAndTextTakeTheirJsonTypesOnly() throws Exception {
        Tunable on = Tunable.of(ad("on", AttributeDefinition.BOOLEAN, 0, new String[] {"true"}, null, null, v -> null),
                null, null);
        assertEquals(true, on.description().defaultValue());
        assertEquals(false, on.fromRequest(false));
        assertEquals("on must be true or false, got \"false\"", refusal(on, "false"));
        assertEquals(false, on.fromStored("false", "pid"), "a .cfg file holds text");

        Tunable label = Tunable.of(ad("label", AttributeDefinition.STRING, 0, null, null, null, v -> null), null, null);
        assertNull(label.description().defaultValue());
        assertEquals("x", label.fromRequest("x"));
        assertEquals("label must be a string, got 3", refusal(label, 3L));
    }

    @Test
    void theMetaTypeServicesOwnValidationHasTheLastWord() throws Exception {
        // a PID described by a MetaTypeProvider service: no metatype document, so no min/max here
        Tunable n = Tunable.of(ad("n", AttributeDefinition.INTEGER, 0, new String[] {"5"}, null, null,
                v -> Integer.parseInt(v) > 10 ? "%greater than maximum" : ""), null, null);
        assertNull(n.description().max());
        assertEquals(10, n.fromRequest(10L));
        assertEquals("n must be an integer, got 11 (greater than maximum)", refusal(n, 11L));
    }

    @Test
    void listsAreNotSetThroughTheAdmin() {
        Tunable hosts = Tunable.of(ad("hosts", AttributeDefinition.STRING, -10, null, null, null, v -> null), null, null);
        assertEquals("hosts takes a list of values, which the admin API does not set; edit its configuration instead",
                refusal(hosts, "a"));
    }

    @Test
    void integersKeepTheirTypesRange() throws Exception {
        Tunable small = Tunable.of(ad("small", AttributeDefinition.SHORT, 0, null, null, null, v -> null), "-5", "1e3");
        assertEquals("an integer in [-5, 1000]", small.allowed());
        assertEquals((short) 1000, small.fromRequest(1000L));
        assertEquals("small must be an integer in [-5, 1000], got 1001", refusal(small, 1001L));
        Tunable i = Tunable.of(ad("i", AttributeDefinition.INTEGER, 0, null, null, null, v -> null), null, null);
        assertEquals("i must be an integer, got 2147483648", refusal(i, 2147483648L));
    }
}
