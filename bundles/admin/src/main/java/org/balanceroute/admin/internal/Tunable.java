package org.balanceroute.admin.internal;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.UnaryOperator;
import org.balanceroute.admin.PolicyAdmin.InvalidChangeException;
import org.balanceroute.admin.PolicyAdmin.ParameterDescription;
import org.osgi.service.metatype.AttributeDefinition;

/**
 * One tunable of a policy as its metatype describes it, and the checks a value must pass before
 * the admin writes it: the type, the minimum and maximum (inclusive, as metatype defines them),
 * the options when the metatype lists them, then the MetaType service's own
 * {@link AttributeDefinition#validate} when there is one. Numbers must be finite. Nothing here
 * knows any policy: whatever a bundle's metatype says is the schema.
 *
 * <p>Values sent by a client are taken strictly by JSON type (a number for an integer or a number,
 * {@code true}/{@code false} for a boolean, text for a string); values already stored in a
 * configuration may also be text, as a {@code .cfg} file holds them, and are parsed.
 *
 * @param description what the admin API and the console show
 * @param kind the metatype type, one of {@link AttributeDefinition}'s constants
 * @param multiValued the metatype's cardinality is not 0 (the admin API does not set lists)
 * @param metatypeCheck the MetaType service's validation of the value as text: null or "" if
 *     valid, else its message; null when there is none
 */
record Tunable(ParameterDescription description, int kind, boolean multiValued, UnaryOperator<String> metatypeCheck) {

    /** The schema's {@code type}s. */
    static final String INTEGER = "integer";
    static final String LONG = "long";
    static final String NUMBER = "number";
    static final String BOOLEAN = "boolean";
    static final String STRING = "string";

    /** A metatype minimum of the smallest positive double reads as an open bound: {@code > 0}. */
    private static final String OPEN_ZERO = Double.toString(Double.MIN_VALUE);

    /**
     * @param min the metatype's min of this attribute, or null
     * @param max the metatype's max, or null
     */
    static Tunable of(AttributeDefinition ad, String min, String max) {
        int kind = ad.getType();
        String type = typeOf(kind);
        Object defaultValue = null;
        String[] defaults = ad.getDefaultValue();
        if (defaults != null && defaults.length > 0 && defaults[0] != null) {
            defaultValue = parseOrNull(kind, defaults[0]);
        }
        Map<String, String> options = new LinkedHashMap<>();
        String[] labels = ad.getOptionLabels();
        String[] values = ad.getOptionValues();
        if (values != null) {
            for (int i = 0; i < values.length; i++) {
                options.put(labels != null && i < labels.length ? labels[i] : values[i], values[i]);
            }
        }
        ParameterDescription d = new ParameterDescription(ad.getID(), ad.getName(), ad.getDescription(), type,
                defaultValue, blankToNull(min), blankToNull(max), Collections.unmodifiableMap(options));
        return new Tunable(d, kind, ad.getCardinality() != 0, ad::validate);
    }

    String id() {
        return description.id();
    }

    /** A value a client sent, typed for the configuration. */
    Object fromRequest(Object value) throws InvalidChangeException {
        if (multiValued) {
            throw new InvalidChangeException(id() + " takes a list of values, which the admin API does not set; "
                    + "edit its configuration instead", id());
        }
        Object typed = switch (description.type()) {
            case INTEGER, LONG -> value instanceof Number n && integral(n) ? integer(n) : null;
            case NUMBER -> value instanceof Number n ? number(n.doubleValue()) : null;
            case BOOLEAN -> value instanceof Boolean b ? b : null;
            default -> value instanceof String s ? s : null;
        };
        return checked(typed, shown(value), "");
    }

    /** A value already in a configuration (typed, or text from a file), typed for the configuration. */
    Object fromStored(Object value, String pid) throws InvalidChangeException {
        String suffix = " (the value stored in configuration " + pid + "); send a valid " + id();
        if (multiValued) {
            return value; // not the admin's to check: it never writes lists
        }
        Object typed = switch (description.type()) {
            case INTEGER, LONG -> value instanceof Number n ? (integral(n) ? integer(n) : null)
                    : value instanceof String s ? parseOrNull(kind, s) : null;
            case NUMBER -> value instanceof Number n ? number(n.doubleValue())
                    : value instanceof String s ? parseOrNull(kind, s) : null;
            case BOOLEAN -> value instanceof Boolean b ? b : value instanceof String s ? parseOrNull(kind, s) : null;
            default -> value == null ? null : String.valueOf(value);
        };
        return checked(typed, String.valueOf(value), suffix);
    }

    /** The range and type in words, e.g. {@code an integer in [1, 16]}, {@code a number in (0, 1]}. */
    String allowed() {
        if (!description.options().isEmpty()) {
            return "one of " + String.join(", ", description.options().values());
        }
        String min = description.min();
        String max = description.max();
        return switch (description.type()) {
            case INTEGER, LONG -> {
                String base = description.type().equals(LONG) && min == null && max == null ? "a 64-bit integer"
                        : "an integer";
                yield base + range(min, max, false);
            }
            case NUMBER -> "a number" + range(min, max, OPEN_ZERO.equals(min));
            case BOOLEAN -> "true or false";
            default -> "a string" + (min == null && max == null ? "" : " of length" + range(min, max, false));
        };
    }

    /** Range, options, the MetaType service's check; the typed value, or the error naming the field. */
    private Object checked(Object typed, String shown, String suffix) throws InvalidChangeException {
        if (typed == null || !inRange(typed) || !inOptions(typed)) {
            throw error(shown, suffix);
        }
        if (metatypeCheck != null) {
            String problem = metatypeCheck.apply(text(typed));
            if (problem != null && !problem.isEmpty()) {
                throw new InvalidChangeException(id() + " must be " + allowed() + ", got " + shown + " ("
                        + problem.replaceFirst("^%", "") + ")" + suffix, id());
            }
        }
        return typed;
    }

    private InvalidChangeException error(String shown, String suffix) {
        return new InvalidChangeException(id() + " must be " + allowed() + ", got " + shown + suffix, id());
    }

    private boolean inRange(Object typed) {
        if (!(typed instanceof Number n)) {
            return true; // metatype's min/max of a string bound its length, left to validate()
        }
        BigDecimal v = new BigDecimal(n.toString());
        BigDecimal min = decimalOrNull(description.min());
        BigDecimal max = decimalOrNull(description.max());
        return (min == null || v.compareTo(min) >= 0) && (max == null || v.compareTo(max) <= 0);
    }

    private boolean inOptions(Object typed) {
        if (description.options().isEmpty()) {
            return true;
        }
        for (String option : description.options().values()) {
            Object o = parseOrNull(kind, option);
            if (o != null && (o.equals(typed) || (o instanceof Number a && typed instanceof Number b
                    && new BigDecimal(a.toString()).compareTo(new BigDecimal(b.toString())) == 0))) {
                return true;
            }
        }
        return false;
    }

    /** The configuration value of an integral number in this type's range, else null. */
    private Object integer(Number n) {
        BigInteger v = n instanceof BigInteger b ? b : BigInteger.valueOf(n.longValue());
        return switch (kind) {
            case AttributeDefinition.BYTE -> fits(v, Byte.MIN_VALUE, Byte.MAX_VALUE) ? (Object) v.byteValue() : null;
            case AttributeDefinition.SHORT -> fits(v, Short.MIN_VALUE, Short.MAX_VALUE) ? (Object) v.shortValue() : null;
            case AttributeDefinition.INTEGER -> fits(v, Integer.MIN_VALUE, Integer.MAX_VALUE) ? (Object) v.intValue() : null;
            default -> fits(v, Long.MIN_VALUE, Long.MAX_VALUE) ? (Object) v.longValue() : null;
        };
    }

    private Object number(double v) {
        if (!Double.isFinite(v)) {
            return null;
        }
        double x = v == 0 ? 0.0 : v; // -0.0 is 0 (metatype's validation would order it below a min of 0)
        return kind == AttributeDefinition.FLOAT ? (Object) (float) x : (Object) x;
    }

    private static boolean fits(BigInteger v, long min, long max) {
        return v.compareTo(BigInteger.valueOf(min)) >= 0 && v.compareTo(BigInteger.valueOf(max)) <= 0;
    }

    private static boolean integral(Number n) {
        return n instanceof Integer || n instanceof Long || n instanceof Short || n instanceof Byte
                || n instanceof BigInteger;
    }

    /** Text parsed as the metatype type (a {@code .cfg} file's value, a default, an option), or null. */
    private static Object parseOrNull(int kind, String text) {
        String t = text.trim();
        try {
            return switch (kind) {
                case AttributeDefinition.BYTE -> Byte.valueOf(t);
                case AttributeDefinition.SHORT -> Short.valueOf(t);
                case AttributeDefinition.INTEGER -> Integer.valueOf(t);
                case AttributeDefinition.LONG -> Long.valueOf(t);
                case AttributeDefinition.BIGINTEGER -> new BigInteger(t).longValueExact();
                case AttributeDefinition.DOUBLE, AttributeDefinition.BIGDECIMAL -> finiteOrNull(Double.valueOf(t));
                case AttributeDefinition.FLOAT -> {
                    Float f = Float.valueOf(t);
                    yield Float.isFinite(f) ? f : null;
                }
                case AttributeDefinition.BOOLEAN -> t.equalsIgnoreCase("true") ? Boolean.TRUE
                        : t.equalsIgnoreCase("false") ? Boolean.FALSE : null;
                default -> text;
            };
        } catch (NumberFormatException | ArithmeticException e) {
            return null;
        }
    }

    private static Double finiteOrNull(Double d) {
        return Double.isFinite(d) ? (d == 0 ? 0.0 : d) : null;
    }

    static String typeOf(int kind) {
        return switch (kind) {
            case AttributeDefinition.BYTE, AttributeDefinition.SHORT, AttributeDefinition.INTEGER -> INTEGER;
            case AttributeDefinition.LONG, AttributeDefinition.BIGINTEGER -> LONG;
            case AttributeDefinition.DOUBLE, AttributeDefinition.FLOAT, AttributeDefinition.BIGDECIMAL -> NUMBER;
            case AttributeDefinition.BOOLEAN -> BOOLEAN;
            default -> STRING;
        };
    }

    /** " in [a, b]", " >= a", " <= b", or "". */
    private static String range(String min, String max, boolean openMin) {
        String lo = openMin ? "0" : plain(min);
        if (min != null && max != null) {
            return " in " + (openMin ? "(" : "[") + lo + ", " + plain(max) + "]";
        }
        if (min != null) {
            return (openMin ? " > " : " >= ") + lo;
        }
        return max != null ? " <= " + plain(max) : "";
    }

    /** A bound as an operator reads it: {@code 0.0} as {@code 0}, {@code 1.0E3} as {@code 1000}. */
    private static String plain(String bound) {
        BigDecimal d = decimalOrNull(bound);
        return d == null ? bound : d.stripTrailingZeros().toPlainString();
    }

    private static BigDecimal decimalOrNull(String s) {
        if (s == null) {
            return null;
        }
        try {
            return new BigDecimal(s.trim());
        } catch (NumberFormatException e) {
            return null;
        }
    }

    private static String blankToNull(String s) {
        return s == null || s.isBlank() ? null : s.trim();
    }

    /** A value as the MetaType service's validation reads it. */
    private static String text(Object typed) {
        return String.valueOf(typed);
    }

    /** A client's value as the error shows it: text quoted, the rest as JSON would print it. */
    static String shown(Object value) {
        return value instanceof String s ? "\"" + s + "\"" : String.valueOf(value);
    }
}
