package org.balanceroute.simulator;

import java.util.Arrays;

/** Nearest-rank percentiles of a sample. */
final class Percentiles {

    private Percentiles() {
    }

    /** The q-quantile (0 < q <= 1) by nearest rank; 0 for an empty sample. Sorts {@code values} in place. */
    static double of(double[] values, double q) {
        if (values.length == 0) {
            return 0;
        }
        Arrays.sort(values);
        int rank = (int) Math.ceil(q * values.length);
        return values[Math.max(0, Math.min(values.length, rank) - 1)];
    }
}
