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

    private static long parseLong(String value) {
        try {
            return java.lang.Long.parseLong(value.trim());
        } catch (NumberFormatException e) {
            throw new TypeConversionException("must be an integer, got '" + value + "'");
        }
    }
}
