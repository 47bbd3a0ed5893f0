package org.balanceroute.cli;

import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.TypeConversionException;

/**
 * The option value types of every command. A message says what is wrong with the value; the
 * parser puts the option's name in front ("--workers must be an integer, got 'many'").
 */
final class Values {

    private Values() {
    }

    static final class Int implements ITypeConverter<Integer> {
        @Override
        public Integer convert(String value) {
            long v = parseLong(value);
            if (v != (int) v) {
                throw new TypeConversionException("is out of range, got '" + value + "'");
            }
            return (int) v;
        }
    }

    static final class Long implements ITypeConverter<java.lang.Long> {
        @Override
        public java.lang.Long convert(String value) {
            return parseLong(value);
        }
    }

    /** A finite number (NaN and the infinities are not). */
    static final class Real implements ITypeConverter<Double> {
        @Override
        public Double convert(String value) {
            try {
                double d = Double.parseDouble(value.trim());
                if (Double.isFinite(d)) {
                    return d;
                }
            } catch (NumberFormatException e) {
                // below
            }
            throw new TypeConversionException("must be a number, got '" + value + "'");
        }
    }

    /**
     * A comma list of integers, e.g. {@code 8,8}: each must be an int, none empty.
     *
     * @throws UsageException naming the option
     */
    static int[] intList(String option, String value) throws UsageException {
        String[] items = value.split(",", -1);
        int[] out = new int[items.length];
        for (int i = 0; i < items.length; i++) {
            String item = items[i].trim();
            try {
                long v = java.lang.Long.parseLong(item);
                if (v != (int) v) {
                    throw new NumberFormatException();
                }
                out[i] = (int) v;
            } catch (NumberFormatException e) {
                throw new UsageException(option + " must be an integer or a comma list of integers, got '" + value
                        + "'" + (item.isEmpty() ? " (an empty item)" : " ('" + item + "' is not one)"));
            }
        }
        return out;
    }

    private static long parseLong(String value) {
        try {
            return java.lang.Long.parseLong(value.trim());
        } catch (NumberFormatException e) {
            throw new TypeConversionException("must be an integer, got '" + value + "'");
        }
    }
}
