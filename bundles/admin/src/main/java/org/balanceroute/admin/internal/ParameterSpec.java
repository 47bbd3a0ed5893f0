package org.balanceroute.admin.internal;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.List;

/**
 * One tunable a policy takes through the admin API: its configuration PID, type, default and
 * range. The admin validates a request against these before writing anything, so a value out
 * of range never reaches the configuration; the component validates again (config-or-error)
 * for values written by hand. The BR ranges are those of
 * {@code org.balanceroute.policy.balance.BalanceSettings} (a unit test checks the two agree; the
 * admin bundle does not import the policy bundle, so that bundle can be removed at runtime).
 */
record ParameterSpec(String name, String pid, Kind kind, double min, boolean minOpen, double max, boolean maxOpen,
        String range, Object defaultValue) {

    enum Kind { INTEGER, LONG, NUMBER }

    /** The shared BR-0 / BR-H configuration. */
    static final String BALANCE_PID = "org.balanceroute.policy.balance";
    static final String RANDOM_PID = "org.balanceroute.policy.baseline.random";
    static final String P2C_PID = "org.balanceroute.policy.baseline.p2c";

    static final List<ParameterSpec> BALANCE = List.of(
            integer("sGreedy", BALANCE_PID, 0, Integer.MAX_VALUE, "an integer >= 0 (0 means G)", 0),
            integer("rMax", BALANCE_PID, 1, 16, "an integer in [1, 16]", 8),
            integer("horizon", BALANCE_PID, 0, 1000, "an integer in [0, 1000]", 80),
            new ParameterSpec("alpha", BALANCE_PID, Kind.NUMBER, 0, true, Double.POSITIVE_INFINITY, true,
                    "a number > 0", 1.0),
            new ParameterSpec("beta", BALANCE_PID, Kind.NUMBER, 0, false, Double.POSITIVE_INFINITY, true,
                    "a number >= 0", 14.67),
            new ParameterSpec("gamma", BALANCE_PID, Kind.NUMBER, 0, true, 1, false, "a number in (0, 1]", 0.64),
            new ParameterSpec("confidence", BALANCE_PID, Kind.NUMBER, 0, false, 1, false, "a number in [0, 1]", 0.5));

    static final List<ParameterSpec> RANDOM = List.of(seed(RANDOM_PID));
    static final List<ParameterSpec> P2C = List.of(seed(P2C_PID));

    /** The tunables of a policy by its name; empty for policies without any. */
    static List<ParameterSpec> of(String policy) {
        if (policy.equals("br0") || policy.startsWith("brh-")) {
            return BALANCE;
        }
        return switch (policy) {
            case "random" -> RANDOM;
            case "p2c" -> P2C;
            default -> List.of();
        };
    }

    private static ParameterSpec integer(String name, String pid, int min, int max, String range, int defaultValue) {
        return new ParameterSpec(name, pid, Kind.INTEGER, min, false, max, false, range, defaultValue);
    }

    private static ParameterSpec seed(String pid) {
        return new ParameterSpec("seed", pid, Kind.LONG, Double.NEGATIVE_INFINITY, false, Double.POSITIVE_INFINITY,
                false, "a 64-bit integer", 1L);
    }

    /** The value of a request's JSON field, typed for the configuration. */
    Object check(JsonNode node) throws InvalidRequestException {
        switch (kind) {
            case INTEGER -> {
                if (node.isIntegralNumber() && node.canConvertToInt()) {
                    return inRange(node.intValue(), node.intValue(), node.toString());
                }
            }
            case LONG -> {
                if (node.isIntegralNumber() && node.canConvertToLong()) {
                    return node.longValue();
                }
            }
            case NUMBER -> {
                if (node.isNumber()) {
                    return inRange(node.doubleValue(), node.doubleValue(), node.toString());
                }
            }
        }
        throw error(node.toString(), null);
    }

    /** A value already in the configuration (typed, or text from a .cfg file), typed for the configuration. */
    Object checkStored(Object value) throws InvalidRequestException {
        try {
            switch (kind) {
                case INTEGER -> {
                    long v = value instanceof Number n && !(value instanceof Double || value instanceof Float)
                            ? n.longValue() : Long.parseLong(String.valueOf(value).trim());
                    if (v >= Integer.MIN_VALUE && v <= Integer.MAX_VALUE) {
                        return inRange(v, (int) v, String.valueOf(value));
                    }
                }
                case LONG -> {
                    return value instanceof Number n && !(value instanceof Double || value instanceof Float)
                            ? n.longValue() : Long.parseLong(String.valueOf(value).trim());
                }
                case NUMBER -> {
                    double v = value instanceof Number n ? n.doubleValue() : Double.parseDouble(String.valueOf(value).trim());
                    if (Double.isFinite(v)) {
                        return inRange(v, v, String.valueOf(value));
                    }
                }
            }
        } catch (NumberFormatException | InvalidRequestException e) {
            // reported below, naming the configuration
        }
        throw error(String.valueOf(value), " (the value stored in configuration " + pid + "); send a valid " + name);
    }

    private Object inRange(double v, Object typed, String shown) throws InvalidRequestException {
        boolean below = minOpen ? v <= min : v < min;
        boolean above = maxOpen ? v >= max : v > max;
        if (below || above) {
            throw error(shown, null);
        }
        return typed;
    }

    private InvalidRequestException error(String shown, String suffix) {
        return new InvalidRequestException(name + " must be " + range + ", got " + shown + (suffix == null ? "" : suffix),
                name);
    }
}
