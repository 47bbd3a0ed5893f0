package org.balanceroute.simulator;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

class PercentilesTest {

    @Test
    void nearestRank() {
        double[] v = {5, 1, 4, 2, 3, 6, 7, 8, 9, 10};
        assertEquals(5, Percentiles.of(v.clone(), 0.5));
        assertEquals(10, Percentiles.of(v.clone(), 0.95));
        assertEquals(1, Percentiles.of(v.clone(), 0.01));
        assertEquals(0, Percentiles.of(new double[0], 0.95));
    }
}
