package org.balanceroute.api.config;

/** What a range allows, in the words the admin API uses for the same metatype bounds. */
final class Bounds {

    private Bounds() {
    }

    /** "an integer in [1, 16]", "an integer >= 0"; a bound at the type's limit is no bound. */
    static String integer(long min, long max, long typeMin, long typeMax) {
        boolean low = min > typeMin;
        boolean high = max < typeMax;
        if (low && high) {
            return "an integer in [" + min + ", " + max + "]";
        }
        return low ? "an integer >= " + min : high ? "an integer <= " + max : "an integer";
    }

    /** "a number in [0, 1]", "a number in (0, 1]", "a number > 0", "a number >= 0". */
    static String number(double min, double max) {
        boolean positive = min == Double.MIN_VALUE;
        boolean low = min > -Double.MAX_VALUE;
        boolean high = max < Double.MAX_VALUE;
        if (low && high) {
            return "a number in " + (positive ? "(0" : "[" + shown(min)) + ", " + shown(max) + "]";
        }
        if (low) {
            return positive ? "a number > 0" : "a number >= " + shown(min);
        }
        return high ? "a number <= " + shown(max) : "a number";
    }

    private static String shown(double d) {
        return d == Math.rint(d) && Math.abs(d) < 1e15 ? Long.toString((long) d) : Double.toString(d);
    }
}
