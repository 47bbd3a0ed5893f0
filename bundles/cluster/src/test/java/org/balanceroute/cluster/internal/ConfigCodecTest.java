package org.balanceroute.cluster.internal;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Arrays;
import java.util.Hashtable;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.Vector;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class ConfigCodecTest {

    @Test
    void everyTypeRoundTrips() {
        Map<String, Object> p = new LinkedHashMap<>();
        p.put("s", "br0");
        p.put("unicode", "caf\u00e9 \u6f22\u5b57 \ud83d\ude00");
        p.put("empty", "");
        p.put("i", 8);
        p.put("j", Long.MAX_VALUE);
        p.put("d", 14.67);
        p.put("f", 0.64f);
        p.put("z", true);
        p.put("h", (short) -3);
        p.put("b", (byte) 7);
        p.put("c", 'x');
        p.put("nan", Double.NaN);
        p.put("strings", new String[] {"a", "b,c", ""});
        p.put("ints", new Integer[] {1, 2, 3});
        p.put("longs", new Long[] {});
        p.put("bools", new Boolean[] {true, false});
        p.put("doubles", new Double[] {1.5, -0.0});
        p.put("floats", new Float[] {1.25f});
        p.put("list", new Vector<>(List.of(4, 5)));
        p.put("long text", "w".repeat(100_000));
        Map<String, Object> back = ConfigCodec.decode(ConfigCodec.encode(p));
        assertEquals(p.keySet(), back.keySet());
        for (String k : p.keySet()) {
            Object a = p.get(k);
            Object b = back.get(k);
            if (a.getClass().isArray()) {
                assertArrayEquals((Object[]) a, (Object[]) b, k);
                assertEquals(a.getClass(), b.getClass(), k);
            } else if (a instanceof List<?> l) {
                assertEquals(l, b, k);
            } else {
                assertEquals(a, b, k);
                assertEquals(a.getClass(), b.getClass(), k);
            }
        }
        assertEquals(ConfigCodec.normalized(p), ConfigCodec.normalized(back));
    }

    @Test
    void primitiveArraysComeBackBoxed() {
        Map<String, Object> back = ConfigCodec.decode(ConfigCodec.encode(Map.of("a", new int[] {1, 2}, "b", new boolean[] {true})));
        assertArrayEquals(new Integer[] {1, 2}, (Integer[]) back.get("a"));
        assertArrayEquals(new Boolean[] {true}, (Boolean[]) back.get("b"));
    }

    @Test
    void randomPropertiesRoundTrip() {
        SplittableRandom random = new SplittableRandom(7);
        for (int round = 0; round < 200; round++) {
            Map<String, Object> p = new LinkedHashMap<>();
            int n = random.nextInt(12);
            for (int i = 0; i < n; i++) {
                String key = "k" + random.nextInt(1000);
                p.put(key, switch (random.nextInt(5)) {
                    case 0 -> Integer.toString(random.nextInt());
                    case 1 -> random.nextInt();
                    case 2 -> random.nextLong();
                    case 3 -> random.nextDouble();
                    default -> new String[] {Integer.toString(random.nextInt(10)), "x" + random.nextInt()};
                });
            }
            byte[] once = ConfigCodec.encode(p);
            Map<String, Object> back = ConfigCodec.decode(once);
            assertEquals(ConfigCodec.normalized(p), ConfigCodec.normalized(back), "round " + round);
            assertArrayEquals(once, ConfigCodec.encode(back), "equal properties encode to equal bytes");
        }
    }

    @Test
    void frameworkKeysAreNeitherEncodedNorCompared() {
        Hashtable<String, Object> d = new Hashtable<>();
        d.put("service.pid", "org.balanceroute.router");
        d.put("felix.fileinstall.filename", "file:/a/config/org.balanceroute.router.cfg");
        d.put("component.name", "x");
        d.put("component.id", 4L);
        d.put("policy", "br0");
        Map<String, Object> p = ConfigCodec.properties(d);
        assertEquals(Map.of("policy", "br0"), p);
        assertEquals(Map.of("policy", "br0"), ConfigCodec.decode(ConfigCodec.encode(d.entrySet().stream()
                .collect(java.util.stream.Collectors.toMap(Map.Entry::getKey, Map.Entry::getValue)))));
        Map<String, Object> other = Map.of("policy", "br0", "felix.fileinstall.filename", "file:/b/config/x.cfg");
        assertEquals(ConfigCodec.normalized(p), ConfigCodec.normalized(other));
    }

    @Test
    void textFromAFileEqualsTheTypedValue() {
        assertEquals(ConfigCodec.normalized(Map.of("workers", "8", "alpha", "1.0", "on", "true")),
                ConfigCodec.normalized(Map.of("workers", 8, "alpha", 1.0, "on", true)));
        assertNotEquals(ConfigCodec.normalized(Map.of("workers", "8")), ConfigCodec.normalized(Map.of("workers", 9)));
        assertNotEquals(ConfigCodec.normalized(Map.of("a", "x,y")), ConfigCodec.normalized(Map.of("a", new String[] {"x", "y"})));
        assertEquals(ConfigCodec.normalized(Map.of("a", List.of("x", "y"))), ConfigCodec.normalized(Map.of("a", new String[] {"x", "y"})));
    }

    @Test
    void anUnsupportedValueNamesItsKey() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> ConfigCodec.encode(Map.of("when", new java.util.Date())));
        assertTrue(e.getMessage().contains("when"), e.getMessage());
        e = assertThrows(IllegalArgumentException.class, () -> ConfigCodec.encode(Map.of("mixed", List.of(1, "a"))));
        assertTrue(e.getMessage().contains("mixed"), e.getMessage());
    }

    @ParameterizedTest
    @ValueSource(ints = {0, 1, 3, 6, 9})
    void truncatedBytesAreRejected(int cut) {
        byte[] full = ConfigCodec.encode(Map.of("policy", "br0"));
        byte[] part = Arrays.copyOf(full, Math.min(cut, full.length - 1));
        assertThrows(IllegalArgumentException.class, () -> ConfigCodec.decode(part));
    }

    @Test
    void anotherVersionIsRejected() {
        byte[] b = ConfigCodec.encode(Map.of("policy", "br0"));
        b[0] = 9;
        assertThrows(IllegalArgumentException.class, () -> ConfigCodec.decode(b));
    }
}
