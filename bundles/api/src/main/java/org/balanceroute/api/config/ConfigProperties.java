package org.balanceroute.api.config;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.Collections;
import java.util.Dictionary;
import java.util.Enumeration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Consumer;
import java.util.function.Function;

/**
 * One component's configuration properties under its PID, read as typed values within their
 * ranges. An absent property is its default; a value that does not convert or is out of range
 * throws {@link ConfigurationException} naming the PID and the property, so a settings object
 * built from these reads is whole or not built at all.
 *
 * <p>Values are taken as ConfigAdmin holds them: text from a {@code .cfg} file ({@code "8"}),
 * typed values from a {@code .config} file or the admin API ({@code 8L}), or a one-element array
 * or collection of either (what Declarative Services coerces to a scalar).
 */
public final class ConfigProperties {

    private final String pid;
    private final Map<String, ?> properties;

    private ConfigProperties(String pid, Map<String, ?> properties) {
        this.pid = pid;
        this.properties = properties;
    }

    /** @param properties as Declarative Services passes them; null reads as empty */
    public static ConfigProperties of(String pid, Map<String, ?> properties) {
        return new ConfigProperties(pid, properties == null ? Map.of() : properties);
    }

    /** @param properties as ConfigAdmin passes them to a managed service; null reads as empty */
    public static ConfigProperties of(String pid, Dictionary<String, ?> properties) {
        Map<String, Object> m = new HashMap<>();
        if (properties != null) {
            for (Enumeration<String> keys = properties.keys(); keys.hasMoreElements(); ) {
                String k = keys.nextElement();
                m.put(k, properties.get(k));
            }
        }
        return new ConfigProperties(pid, m);
    }

    /**
     * What a component's {@code @Modified} does with new properties: the settings {@code read}
     * makes of them, or empty after {@code rejected} was told why they cannot be used, so that the
     * settings in force stay.
     */
    public static <S> Optional<S> readUpdate(String pid, Map<String, ?> properties, Function<ConfigProperties, S> read,
            Consumer<ConfigurationException> rejected) {
        try {
            return Optional.of(read.apply(of(pid, properties)));
        } catch (ConfigurationException e) {
            rejected.accept(e);
            return Optional.empty();
        }
    }

    public String pid() {
        return pid;
    }

    /** An integer in [min, max]; {@link Integer#MAX_VALUE} as max means no upper bound. */
    public int intValue(String key, int defaultValue, int min, int max) {
        return (int) whole(key, defaultValue, min, max, Integer.MIN_VALUE, Integer.MAX_VALUE);
    }

    /** An integer in [min, max]; {@link Long#MAX_VALUE} as max means no upper bound. */
    public long longValue(String key, long defaultValue, long min, long max) {
        return whole(key, defaultValue, min, max, Long.MIN_VALUE, Long.MAX_VALUE);
    }

    /**
     * A finite number in [min, max]. {@link Double#MIN_VALUE} as min means "&gt; 0" (the inclusive
     * bound metatype can state); {@link Double#MAX_VALUE} as max means no upper bound.
     */
    public double doubleValue(String key, double defaultValue, double min, double max) {
        Object v = value(key);
        if (v == null) {
            return defaultValue;
        }
        String allowed = Bounds.number(min, max);
        double d;
        if (v instanceof Number n) {
            d = n.doubleValue();
        } else if (v instanceof String s) {
            try {
                d = Double.parseDouble(s.trim());
            } catch (NumberFormatException e) {
                throw invalid(key, allowed, v);
            }
        } else {
            throw invalid(key, allowed, v);
        }
        require(Double.isFinite(d) && d >= min && d <= max, key, allowed, v);
        return d;
    }

    /** Text, trimmed. */
    public String text(String key, String defaultValue) {
        Object v = value(key);
        if (v == null) {
            return defaultValue;
        }
        if (!(v instanceof String s)) {
            throw invalid(key, "text", v);
        }
        return s.trim();
    }

    /** Text, trimmed, that is one of {@code values}. */
    public String oneOf(String key, String defaultValue, List<String> values) {
        String s = text(key, defaultValue);
        require(values.contains(s), key, "one of " + String.join(", ", values), s);
        return s;
    }

    /** A comma-separated list (one text) or several texts, each split at commas; blanks dropped. */
    public List<String> list(String key, String defaultValue) {
        Object v = properties.get(key);
        List<String> out = new ArrayList<>();
        Collection<?> parts = v == null ? List.of(defaultValue)
                : v instanceof Object[] a ? Arrays.asList(a)
                : v instanceof Collection<?> c ? c
                : List.of(v);
        for (Object part : parts) {
            if (!(part instanceof String s)) {
                throw invalid(key, "a comma-separated list", v);
            }
            for (String item : s.split(",")) {
                if (!item.isBlank()) {
                    out.add(item.trim());
                }
            }
        }
        return Collections.unmodifiableList(out);
    }

    /** true or false (text in any case, or a boolean). */
    public boolean bool(String key, boolean defaultValue) {
        Object v = value(key);
        if (v == null) {
            return defaultValue;
        }
        if (v instanceof Boolean b) {
            return b;
        }
        if (v instanceof String s && (s.trim().equalsIgnoreCase("true") || s.trim().equalsIgnoreCase("false"))) {
            return Boolean.parseBoolean(s.trim());
        }
        throw invalid(key, "true or false", v);
    }

    /**
     * A rule these reads cannot state (between two properties, or not a range).
     *
     * @throws ConfigurationException unless {@code ok}
     */
    public void require(boolean ok, String key, String allowed, Object value) {
        if (!ok) {
            throw invalid(key, allowed, value);
        }
    }

    private ConfigurationException invalid(String key, String allowed, Object value) {
        return new ConfigurationException(pid, key, allowed, value);
    }

    private long whole(String key, long defaultValue, long min, long max, long typeMin, long typeMax) {
        Object v = value(key);
        if (v == null) {
            return defaultValue;
        }
        String allowed = Bounds.integer(min, max, typeMin, typeMax);
        long n;
        if (v instanceof Byte || v instanceof Short || v instanceof Integer || v instanceof Long) {
            n = ((Number) v).longValue();
        } else if (v instanceof Number d && d.doubleValue() == Math.rint(d.doubleValue())
                && Math.abs(d.doubleValue()) < 0x1p53) {
            n = (long) d.doubleValue(); // 8.0 from a JSON number is 8
        } else if (v instanceof String s) {
            try {
                n = Long.parseLong(s.trim());
            } catch (NumberFormatException e) {
                throw invalid(key, allowed, v);
            }
        } else {
            throw invalid(key, allowed, v);
        }
        require(n >= min && n <= max, key, allowed, v);
        return n;
    }

    /** The value, unwrapped from a one-element array or collection; null when absent. */
    private Object value(String key) {
        Object v = properties.get(key);
        if (v instanceof Object[] a && a.length == 1) {
            return a[0];
        }
        if (v instanceof Collection<?> c && c.size() == 1) {
            return c.iterator().next();
        }
        return v;
    }
}
