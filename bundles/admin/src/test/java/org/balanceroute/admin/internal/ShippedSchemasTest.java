package org.balanceroute.admin.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.math.BigInteger;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Predicate;
import org.balanceroute.admin.PolicyAdmin.InvalidChangeException;
import org.balanceroute.admin.PolicyAdmin.ParameterDescription;
import org.balanceroute.api.RoutingPolicy;
import org.balanceroute.policy.balance.BalanceSettings;
import org.balanceroute.policy.baseline.RandomPolicy;
import org.balanceroute.policy.example.LeastRunningPolicy;
import org.balanceroute.predictor.exactmatch.ExactMatchSettings;
import org.balanceroute.predictor.survival.SurvivalSettings;
import org.junit.jupiter.api.Test;
import org.osgi.framework.ServiceReference;

/**
 * The schema every shipped policy (and predictor) bundle brings, read as the runtime reads it:
 * the MetaType service (Felix's own reader and validation) for each bundle's metatype documents,
 * the policies' names and PIDs from their component descriptions. For every shipped parameter,
 * the admin's schema-driven validation accepts exactly what the settings' own validation accepts
 * (both edges, just past them, wrong types), its default is the settings' default, and its
 * description states the same range: the three cannot drift apart.
 */
class ShippedSchemasTest {

    static final ShippedBundle BALANCE = ShippedBundle.of(BalanceSettings.class);
    static final ShippedBundle BASELINE = ShippedBundle.of(RandomPolicy.class);
    static final ShippedBundle EXAMPLE = ShippedBundle.of(LeastRunningPolicy.class);
    static final ShippedBundle SURVIVAL = ShippedBundle.of(SurvivalSettings.class);
    static final ShippedBundle EXACT = ShippedBundle.of(ExactMatchSettings.class);

    /** The schemas of every shipped policy, the example's included, as the admin reads them. */
    static MetaTypeSchemas shippedSchemas() {
        MetaTypeSchemas schemas = new MetaTypeSchemas(ShippedBundle.metaTypeService(BALANCE, BASELINE, EXAMPLE));
        List<ServiceReference<RoutingPolicy>> refs = new ArrayList<>();
        refs.addAll(BALANCE.policies());
        refs.addAll(BASELINE.policies());
        refs.addAll(EXAMPLE.policies());
        schemas.policies = refs;
        return schemas;
    }

    private static final Map<String, PolicySchemas.PolicySchema> SHIPPED = shippedSchemas().byName();

    private static Map<String, Tunable> tunables(String policy) {
        Map<String, Tunable> m = new LinkedHashMap<>();
        SHIPPED.get(policy).tunables().forEach(t -> m.put(t.id(), t));
        return m;
    }

    private static boolean adminAccepts(Tunable t, Object value) {
        try {
            t.fromRequest(value);
            return true;
        } catch (InvalidChangeException e) {
            assertEquals(t.id(), e.field());
            assertTrue(e.getMessage().startsWith(t.id() + " must be " + t.allowed() + ", got "), e.getMessage());
            return false;
        }
    }

    private static boolean balanceAccepts(String field, Number value) {
        BalanceSettings d = BalanceSettings.defaults();
        Map<String, Number> v = new HashMap<>(Map.of("sGreedy", d.sGreedy(), "rMax", d.rMax(), "horizon", d.horizon(),
                "alpha", d.alpha(), "beta", d.beta(), "gamma", d.gamma(), "confidence", d.confidence(),
                "projectedSlots", d.projectedSlots()));
        v.put(field, value);
        try {
            new BalanceSettings(v.get("sGreedy").intValue(), v.get("rMax").intValue(), v.get("horizon").intValue(),
                    v.get("alpha").doubleValue(), v.get("beta").doubleValue(), v.get("gamma").doubleValue(),
                    v.get("confidence").doubleValue(), d.stage1Worker(), d.horizonMargin(),
                    v.get("projectedSlots").intValue());
            return true;
        } catch (IllegalArgumentException e) {
            return false;
        }
    }

    /** Integers at and around every edge (and the int range's). */
    private static final long[] INTEGER_PROBES = {Long.MIN_VALUE, Integer.MIN_VALUE, -1001, -2, -1, 0, 1, 2, 3, 15, 16,
        17, 63, 64, 65, 999, 1000, 1001, 4095, 4096, 4097, 536_870_911, 536_870_912, 536_870_913, Integer.MAX_VALUE,
        Integer.MAX_VALUE + 1L, Long.MAX_VALUE};

    /** Numbers at and around every edge. */
    private static final double[] NUMBER_PROBES = {-1e300, -1, -Double.MIN_VALUE, -0.0, 0, Double.MIN_VALUE, 1e-300,
        0.001, 0.5, 0.64, 0.999, 1, Math.nextUp(1.0), 1.0001, 2, 14.67, 1e9, Double.MAX_VALUE};

    private static void assertAgreement(Tunable t, Predicate<Number> settingsAccept) {
        switch (t.description().type()) {
            case Tunable.INTEGER, Tunable.LONG -> {
                for (long p : INTEGER_PROBES) {
                    boolean fitsInt = p >= Integer.MIN_VALUE && p <= Integer.MAX_VALUE;
                    boolean expected = t.description().type().equals(Tunable.LONG) || fitsInt
                            ? settingsAccept.test(t.description().type().equals(Tunable.LONG) ? (Number) p : (Number) (int) p)
                            : false; // an int setting cannot hold it
                    assertEquals(expected, adminAccepts(t, p), t.id() + " = " + p);
                }
                assertEquals(false, adminAccepts(t, 8.5), t.id() + ": a fraction is not an integer");
                assertEquals(false, adminAccepts(t, 8.0), t.id() + ": 8.0 is a number, not an integer");
                assertEquals(false, adminAccepts(t, "8"), t.id() + ": text is not a number");
                assertEquals(false, adminAccepts(t, BigInteger.TWO.pow(70)), t.id() + ": beyond 64 bits");
            }
            case Tunable.NUMBER -> {
                for (double p : NUMBER_PROBES) {
                    assertEquals(settingsAccept.test(p), adminAccepts(t, p), t.id() + " = " + p);
                }
                // whole numbers are numbers
                assertEquals(settingsAccept.test(1.0), adminAccepts(t, 1L), t.id() + " = 1 (integral)");
                assertEquals(false, adminAccepts(t, "0.5"), t.id() + ": text is not a number");
                assertEquals(false, adminAccepts(t, true), t.id() + ": a boolean is not a number");
            }
            default -> throw new AssertionError("no shipped parameter is a " + t.description().type());
        }
        assertEquals(false, adminAccepts(t, null), t.id() + ": null");
    }

    /** The description states the range in the same words the admin's errors use, and the default. */
    private static void assertDescribed(Tunable t, Object settingsDefault) {
        ParameterDescription d = t.description();
        assertNotNull(d.name(), t.id());
        String words = t.allowed().replaceFirst("^an? ", "");
        assertTrue(d.description().toLowerCase(Locale.ROOT).contains(words), d.description() + " should say " + words);
        assertTrue(d.description().contains("default " + settingsDefault), d.description());
        assertTrue(PolicyAdminService.same(settingsDefault, d.defaultValue()), t.id() + " default " + d.defaultValue());
    }

    @Test
    void everyShippedPolicyNamesItsConfigurationOrNone() {
        assertEquals(List.of("br0", "br0-bypass", "brh-exact", "brh-survival", "jsq", "least-running", "least-tokens",
                "p2c", "random", "round-robin", "vllm-ascend"), List.copyOf(SHIPPED.keySet()));
        for (String brFamily : List.of("br0", "brh-survival", "brh-exact")) {
            assertEquals("org.balanceroute.policy.balance", SHIPPED.get(brFamily).pid(), brFamily);
            assertEquals(List.of("sGreedy", "rMax", "horizon", "alpha", "beta", "gamma", "confidence", "stage1Worker",
                    "horizonMargin", "projectedSlots"), List.copyOf(tunables(brFamily).keySet()), brFamily);
        }
        assertEquals("org.balanceroute.policy.baseline.random", SHIPPED.get("random").pid());
        assertEquals("org.balanceroute.policy.baseline.p2c", SHIPPED.get("p2c").pid());
        assertEquals(List.of("seed"), List.copyOf(tunables("p2c").keySet()));
        assertEquals(LeastRunningPolicy.PID, SHIPPED.get("least-running").pid());
        assertEquals(List.of("queuedWeight"), List.copyOf(tunables("least-running").keySet()));
        for (String none : List.of("jsq", "round-robin", "least-tokens", "vllm-ascend", "br0-bypass")) {
            assertNull(SHIPPED.get(none).pid(), none);
            assertEquals(List.of(), SHIPPED.get(none).tunables(), none);
        }
    }

    @Test
    void theBalanceSchemaIsBalanceSettings() {
        Map<String, Tunable> br = tunables("br0");
        BalanceSettings d = BalanceSettings.defaults();
        Map<String, Object> defaults = Map.of("sGreedy", d.sGreedy(), "rMax", d.rMax(), "horizon", d.horizon(),
                "alpha", d.alpha(), "beta", d.beta(), "gamma", d.gamma(), "confidence", d.confidence(),
                "projectedSlots", d.projectedSlots());
        for (Tunable t : br.values()) {
            if (t.description().type().equals(Tunable.STRING)) {
                continue; // the options, below
            }
            assertAgreement(t, v -> balanceAccepts(t.id(), v));
            assertDescribed(t, defaults.get(t.id()));
        }
        assertEquals("one of slots, margin", br.get("stage1Worker").allowed());
        assertEquals("one of min, mean, now", br.get("horizonMargin").allowed());
        for (BalanceSettings.Stage1Worker w : BalanceSettings.Stage1Worker.values()) {
            assertTrue(adminAccepts(br.get("stage1Worker"), w.value()), w.value());
        }
        for (BalanceSettings.HorizonMargin m : BalanceSettings.HorizonMargin.values()) {
            assertTrue(adminAccepts(br.get("horizonMargin"), m.value()), m.value());
        }
        assertTrue(!adminAccepts(br.get("stage1Worker"), "lightest"));
        assertTrue(br.get("stage1Worker").description().description()
                .contains("default " + BalanceSettings.DEFAULT_STAGE1_WORKER));
        assertEquals(BalanceSettings.DEFAULT_STAGE1_WORKER, br.get("stage1Worker").description().defaultValue());
        assertEquals(BalanceSettings.DEFAULT_HORIZON_MARGIN, br.get("horizonMargin").description().defaultValue());
        assertEquals("integer", br.get("rMax").description().type());
        assertEquals("1", br.get("rMax").description().min());
        assertEquals("16", br.get("rMax").description().max());
        assertEquals("an integer in [1, 16]", br.get("rMax").allowed());
        assertEquals("an integer >= 0", br.get("sGreedy").allowed());
        assertEquals("a number > 0", br.get("alpha").allowed());
        assertEquals("a number >= 0", br.get("beta").allowed());
        assertEquals("a number in (0, 1]", br.get("gamma").allowed());
        assertEquals("a number in [0, 1]", br.get("confidence").allowed());
    }

    @Test
    void seedsTakeAny64BitInteger() {
        for (String policy : List.of("random", "p2c")) {
            Tunable seed = tunables(policy).get("seed");
            assertEquals("long", seed.description().type());
            assertAgreement(seed, v -> true); // every long is a seed
            assertDescribed(seed, 1L);
            assertEquals("a 64-bit integer", seed.allowed());
        }
    }

    @Test
    void theExamplePolicyBringsItsOwnTunable() {
        Tunable w = tunables("least-running").get("queuedWeight");
        assertAgreement(w, v -> v.longValue() >= LeastRunningPolicy.MIN_QUEUED_WEIGHT
                && v.longValue() <= LeastRunningPolicy.MAX_QUEUED_WEIGHT);
        assertDescribed(w, LeastRunningPolicy.DEFAULT_QUEUED_WEIGHT);
        assertEquals("an integer in [0, 16]", w.allowed());
        assertEquals("Queued weight", w.description().name());
    }

    @Test
    void thePredictorsSchemasAreTheirSettings() {
        MetaTypeSchemas schemas = new MetaTypeSchemas(ShippedBundle.metaTypeService(SURVIVAL, EXACT));
        List<Tunable> survival = schemas.schema("survival", SURVIVAL.bundle, "org.balanceroute.predictor.survival");
        assertEquals(List.of("minSamples", "quantile", "window"), survival.stream().map(Tunable::id).toList());
        assertAgreement(survival.get(0), v -> {
            try {
                return new SurvivalSettings(v.longValue()) != null;
            } catch (IllegalArgumentException e) {
                return false;
            }
        });
        assertDescribed(survival.get(0), SurvivalSettings.DEFAULT_MIN_SAMPLES);
        assertAgreement(survival.get(1), v -> {
            try {
                return new SurvivalSettings(SurvivalSettings.DEFAULT_MIN_SAMPLES, v.doubleValue()) != null;
            } catch (IllegalArgumentException e) {
                return false;
            }
        });
        assertDescribed(survival.get(1), SurvivalSettings.DEFAULT_QUANTILE);
        // window >= minSamples, a rule between two fields: probed with minSamples at its min
        assertAgreement(survival.get(2), v -> {
            try {
                return new SurvivalSettings(SurvivalSettings.MIN_MIN_SAMPLES, SurvivalSettings.DEFAULT_QUANTILE,
                        v.intValue()) != null;
            } catch (IllegalArgumentException e) {
                return false;
            }
        });
        assertDescribed(survival.get(2), SurvivalSettings.DEFAULT_WINDOW);

        Map<String, Tunable> exact = new LinkedHashMap<>();
        schemas.schema("exact-match", EXACT.bundle, "org.balanceroute.predictor.exactmatch")
                .forEach(t -> exact.put(t.id(), t));
        assertEquals(List.of("minCount", "maxPrompts", "maxLengthsPerPrompt", "minSamples", "quantile", "window"),
                List.copyOf(exact.keySet()));
        for (Tunable t : exact.values()) {
            assertAgreement(t, v -> {
                // minCount <= maxLengthsPerPrompt, a rule between two fields: each is probed with the
                // other at its widest (minCount at its min, maxLengthsPerPrompt at its max, the metatype's)
                Map<String, Number> s = new HashMap<>(Map.of("minCount", ExactMatchSettings.MIN_MIN_COUNT,
                        "maxPrompts", ExactMatchSettings.DEFAULT_MAX_PROMPTS, "maxLengthsPerPrompt",
                        t.id().equals("minCount") ? ExactMatchSettings.MAX_LENGTHS_PER_PROMPT
                                : ExactMatchSettings.DEFAULT_MAX_LENGTHS_PER_PROMPT,
                        "minSamples", t.id().equals("window") ? SurvivalSettings.MIN_MIN_SAMPLES
                                : SurvivalSettings.DEFAULT_MIN_SAMPLES, "quantile", SurvivalSettings.DEFAULT_QUANTILE,
                        "window", SurvivalSettings.DEFAULT_WINDOW));
                s.put(t.id(), v);
                try {
                    new ExactMatchSettings(s.get("minCount").intValue(), s.get("maxPrompts").intValue(),
                            s.get("maxLengthsPerPrompt").intValue());
                    new SurvivalSettings(s.get("minSamples").longValue(), s.get("quantile").doubleValue(),
                            s.get("window").intValue());
                    return true;
                } catch (IllegalArgumentException e) {
                    return false;
                }
            });
        }
        assertDescribed(exact.get("maxPrompts"), ExactMatchSettings.DEFAULT_MAX_PROMPTS);
        assertDescribed(exact.get("maxLengthsPerPrompt"), ExactMatchSettings.DEFAULT_MAX_LENGTHS_PER_PROMPT);
        assertDescribed(exact.get("minSamples"), SurvivalSettings.DEFAULT_MIN_SAMPLES);
        assertDescribed(exact.get("quantile"), SurvivalSettings.DEFAULT_QUANTILE);
        assertDescribed(exact.get("window"), SurvivalSettings.DEFAULT_WINDOW);
        assertTrue(exact.get("minCount").description().description().contains("Integer in [1, maxLengthsPerPrompt]"));
        assertTrue(exact.get("maxLengthsPerPrompt").description().description().contains("at least minCount"));
    }

    @Test
    void storedTextIsParsedAndCheckedAgainstTheSameSchema() throws Exception {
        Tunable rMax = tunables("br0").get("rMax");
        assertEquals(12, rMax.fromStored("12", "p"));
        assertEquals(12, rMax.fromStored(" 12 ", "p"));
        assertEquals(12, rMax.fromStored(12L, "p"));
        for (Object bad : List.of("twelve", "17", 12.5, "12.0")) {
            InvalidChangeException e = org.junit.jupiter.api.Assertions.assertThrows(InvalidChangeException.class,
                    () -> rMax.fromStored(bad, "org.balanceroute.policy.balance"));
            assertEquals("rMax must be an integer in [1, 16], got " + bad + " (the value stored in configuration "
                    + "org.balanceroute.policy.balance); send a valid rMax", e.getMessage());
        }
        assertEquals(0.25, tunables("br0").get("confidence").fromStored(" 0.25 ", "p"));
        assertEquals(-3L, tunables("p2c").get("seed").fromStored("-3", "p"));
    }
}
