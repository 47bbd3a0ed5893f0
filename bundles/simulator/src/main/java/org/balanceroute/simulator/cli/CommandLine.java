package org.balanceroute.simulator.cli;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * {@code --name value} options and {@code --flag} switches, parsed once. Every error names the
 * option: an unknown one, a missing value, a value of the wrong type.
 */
final class CommandLine {

    private final Map<String, String> values = new HashMap<>();

    CommandLine(List<String> args, Set<String> valueOptions, Set<String> flags) throws UsageException {
        for (int i = 0; i < args.size(); i++) {
            String arg = args.get(i);
            String name = arg;
            String value = null;
            int eq = arg.indexOf('=');
            if (arg.startsWith("--") && eq > 0) {
                name = arg.substring(0, eq);
                value = arg.substring(eq + 1);
            }
            if (flags.contains(name) && value == null) {
                values.put(name, "true");
            } else if (valueOptions.contains(name)) {
                if (value == null) {
                    if (i + 1 >= args.size()) {
                        throw new UsageException(name + " needs a value");
                    }
                    value = args.get(++i);
                }
                if (values.put(name, value) != null) {
                    throw new UsageException(name + " given twice");
                }
            } else {
                throw new UsageException("unknown option '" + arg + "'");
            }
        }
    }

    boolean flag(String name) {
        return values.containsKey(name);
    }

    String string(String name, String fallback) {
        return values.getOrDefault(name, fallback);
    }

    int integer(String name, int fallback) throws UsageException {
        long v = longValue(name, fallback);
        if (v != (int) v) {
            throw new UsageException(name + " is out of range, got '" + values.get(name) + "'");
        }
        return (int) v;
    }

    long longValue(String name, long fallback) throws UsageException {
        String v = values.get(name);
        if (v == null) {
            return fallback;
        }
        try {
            return Long.parseLong(v.trim());
        } catch (NumberFormatException e) {
            throw new UsageException(name + " must be an integer, got '" + v + "'");
        }
    }

    double number(String name, double fallback) throws UsageException {
        String v = values.get(name);
        if (v == null) {
            return fallback;
        }
        try {
            double d = Double.parseDouble(v.trim());
            if (!Double.isFinite(d)) {
                throw new NumberFormatException();
            }
            return d;
        } catch (NumberFormatException e) {
            throw new UsageException(name + " must be a number, got '" + v + "'");
        }
    }
}
