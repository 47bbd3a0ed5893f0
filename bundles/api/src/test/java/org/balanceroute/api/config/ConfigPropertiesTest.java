package org.balanceroute.api.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Hashtable;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ConfigPropertiesTest {

    private static final String PID = "org.example.pid";

    private static ConfigProperties of(String key, Object value) {
        return ConfigProperties.of(PID, Map.of(key, value));
    }

    private static String error(Runnable read) {
        ConfigurationException e = assertThrows(ConfigurationException.class, read::run);
        assertEquals(PID, e.pid());
        return e.getMessage();
    }

    @Test
    void absentPropertiesAreTheirDefaults() {
        ConfigProperties c = ConfigProperties.of(PID, (Map<String, ?>) null);
        assertEquals(8, c.intValue("n", 8, 1, 16));
        assertEquals(-3L, c.longValue("l", -3, Long.MIN_VALUE, Long.MAX_VALUE));
        assertEquals(0.5, c.doubleValue("d", 0.5, 0, 1));
        assertEquals("x", c.text("t", "x"));
        assertEquals(List.of("a", "b"), c.list("l", "a, b"));
        assertTrue(c.bool("b", true));
    }

    @Test
    void integersInRangeFromTextNumbersAndOneElementArrays() {
        assertEquals(16, of("n", " 16 ").intValue("n", 8, 1, 16));
        assertEquals(1, of("n", 1L).intValue("n", 8, 1, 16));
        assertEquals(8, of("n", 8.0).intValue("n", 1, 1, 16));
        assertEquals(9, of("n", new String[] {"9"}).intValue("n", 1, 1, 16));
        assertEquals(9, of("n", List.of(9)).intValue("n", 1, 1, 16));
    }

    @Test
    void anIntegerOutOfRangeNamesPidPropertyRangeAndValue() {
        assertEquals("org.example.pid: rMax must be an integer in [1, 16], got 17",
                error(() -> of("rMax", 17).intValue("rMax", 8, 1, 16)));
        assertEquals("org.example.pid: rMax must be an integer in [1, 16], got '0'",
                error(() -> of("rMax", "0").intValue("rMax", 8, 1, 16)));
        assertEquals("org.example.pid: n must be an integer >= 0, got -1",
                error(() -> of("n", -1).intValue("n", 0, 0, Integer.MAX_VALUE)));
        assertEquals("org.example.pid: n must be an integer in [0, 2147483647], got 2147483648",
                error(() -> of("n", 2147483648L).longValue("n", 0, 0, Integer.MAX_VALUE)));
        assertEquals("org.example.pid: n must be an integer, got 2147483648",
                error(() -> of("n", 2147483648L).intValue("n", 0, Integer.MIN_VALUE, Integer.MAX_VALUE)));
    }

    @Test
    void anIntegerThatDoesNotConvertIsAnError() {
        assertEquals("org.example.pid: maxBodyBytes must be an integer in [1024, 1073741824], got 'abc'",
                error(() -> of("maxBodyBytes", "abc").intValue("maxBodyBytes", 2048, 1024, 1 << 30)));
        assertEquals("org.example.pid: n must be an integer >= 1, got 8.5",
                error(() -> of("n", 8.5).longValue("n", 1, 1, Long.MAX_VALUE)));
        assertEquals("org.example.pid: n must be an integer <= 3, got true",
                error(() -> of("n", true).intValue("n", 1, Integer.MIN_VALUE, 3)));
    }

    @Test
    void numbersInClosedOpenAndOneSidedRanges() {
        assertEquals(0.25, of("q", "0.25").doubleValue("q", 0.5, Double.MIN_VALUE, 1));
        assertEquals(1.0, of("q", 1).doubleValue("q", 0.5, Double.MIN_VALUE, 1));
        assertEquals("org.example.pid: gamma must be a number in (0, 1], got 0",
                error(() -> of("gamma", 0).doubleValue("gamma", 0.64, Double.MIN_VALUE, 1)));
        assertEquals("org.example.pid: confidence must be a number in [0, 1], got 1.5",
                error(() -> of("confidence", 1.5).doubleValue("confidence", 0.5, 0, 1)));
        assertEquals("org.example.pid: alpha must be a number > 0, got -1",
                error(() -> of("alpha", -1).doubleValue("alpha", 1, Double.MIN_VALUE, Double.MAX_VALUE)));
        assertEquals("org.example.pid: beta must be a number >= 0, got 'x'",
                error(() -> of("beta", "x").doubleValue("beta", 1, 0, Double.MAX_VALUE)));
        assertEquals("org.example.pid: window must be a number >= 0.01, got 0.001",
                error(() -> of("window", 0.001).doubleValue("window", 5, 0.01, Double.MAX_VALUE)));
        assertEquals("org.example.pid: beta must be a number >= 0, got 'NaN'",
                error(() -> of("beta", "NaN").doubleValue("beta", 1, 0, Double.MAX_VALUE)));
        assertEquals("org.example.pid: beta must be a number >= 0, got Infinity",
                error(() -> of("beta", Double.POSITIVE_INFINITY).doubleValue("beta", 1, 0, Double.MAX_VALUE)));
    }

    @Test
    void textOptionsListsAndFlags() {
        assertEquals("br0", of("policy", "  br0 ").text("policy", "jsq"));
        assertEquals("org.example.pid: policy must be text, got 3", error(() -> of("policy", 3).text("policy", "")));
        assertEquals("mean", of("m", "mean").oneOf("m", "min", List.of("min", "mean", "now")));
        assertEquals("org.example.pid: m must be one of min, mean, now, got 'max'",
                error(() -> of("m", "max").oneOf("m", "min", List.of("min", "mean", "now"))));
        assertEquals(List.of("a", "b", "c"), of("l", new String[] {"a, b", " ", "c"}).list("l", ""));
        assertEquals(List.of(), of("l", " , ").list("l", "x"));
        assertEquals("org.example.pid: l must be a comma-separated list, got [a, 1]",
                error(() -> of("l", List.of("a", 1)).list("l", "")));
        assertFalse(of("b", "FALSE").bool("b", true));
        assertTrue(of("b", Boolean.TRUE).bool("b", false));
        assertEquals("org.example.pid: b must be true or false, got 'yes'", error(() -> of("b", "yes").bool("b", true)));
    }

    @Test
    void aRuleBetweenPropertiesFailsTheSameWay() {
        ConfigProperties c = of("window", 31);
        c.require(true, "window", "anything", 31);
        ConfigurationException e = assertThrows(ConfigurationException.class,
                () -> c.require(false, "window", "0 or in [minSamples = 32, 1048576]", 31));
        assertEquals("window", e.property());
        assertEquals("org.example.pid: window must be 0 or in [minSamples = 32, 1048576], got 31", e.getMessage());
    }

    @Test
    void anUpdateIsReadOrRejectedWithTheReason() {
        List<String> rejected = new java.util.ArrayList<>();
        assertEquals(java.util.Optional.of(4), ConfigProperties.readUpdate(PID, Map.of("n", 4),
                c -> c.intValue("n", 1, 1, 16), e -> rejected.add(e.getMessage())));
        assertEquals(java.util.Optional.empty(), ConfigProperties.readUpdate(PID, Map.of("n", 17),
                c -> c.intValue("n", 1, 1, 16), e -> rejected.add(e.getMessage())));
        assertEquals(List.of("org.example.pid: n must be an integer in [1, 16], got 17"), rejected);
    }

    @Test
    void aDictionaryReadsAsAMap() {
        Hashtable<String, Object> d = new Hashtable<>();
        d.put("n", "3");
        assertEquals(3, ConfigProperties.of(PID, (java.util.Dictionary<String, ?>) d).intValue("n", 1, 1, 16));
        assertEquals(1, ConfigProperties.of(PID, (java.util.Dictionary<String, ?>) null).intValue("n", 1, 1, 16));
    }
}
