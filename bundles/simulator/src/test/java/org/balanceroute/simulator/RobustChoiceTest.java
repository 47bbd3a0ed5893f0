package org.balanceroute.simulator;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.List;
import org.junit.jupiter.api.Test;

class RobustChoiceTest {

    private static final List<Double> CURRENT = List.of(100.0, 100.0, 100.0, 100.0, 100.0);
    /** The lowest mean (94.8), all of it from one part: worse than the current settings on the other four. */
    private static final List<Double> FLUKE = List.of(60.0, 105.0, 104.0, 103.0, 102.0);
    /** A smaller gain (mean 97.4), on every part. */
    private static final List<Double> STEADY = List.of(97.0, 98.0, 97.0, 98.0, 97.0);

    @Test
    void theWinnerOfOnePartIsRefusedAndTheOneThatWinsEveryPartChosen() {
        RobustChoice everyPart = new RobustChoice(5, 1);
        assertEquals(-1, everyPart.winner(CURRENT, List.of(FLUKE)));
        assertEquals(1, everyPart.winner(CURRENT, List.of(FLUKE, STEADY)));
        assertEquals(1, RobustChoice.wins(CURRENT, FLUKE));
        assertEquals(5, RobustChoice.wins(CURRENT, STEADY));
    }

    @Test
    void theQuorumIsAShareOfThePartsRoundedUp() {
        assertEquals(5, new RobustChoice(5, 1).required());
        assertEquals(4, new RobustChoice(5, 0.8).required());
        assertEquals(3, new RobustChoice(5, 0.51).required());
        List<Double> fourOfFive = List.of(90.0, 90.0, 90.0, 90.0, 130.0);
        assertEquals(-1, new RobustChoice(5, 1).winner(CURRENT, List.of(fourOfFive)));
        assertEquals(0, new RobustChoice(5, 0.8).winner(CURRENT, List.of(fourOfFive)));
    }

    @Test
    void amongTheQualifiedTheLowestMedianRatioWinsNotTheLowestMean() {
        List<Double> deepOnce = List.of(50.0, 99.0, 99.0, 99.0, 99.0); // mean ratio 0.892, median 0.99
        List<Double> broad = List.of(95.0, 95.0, 95.0, 95.0, 95.0); // mean and median 0.95
        assertEquals(1, new RobustChoice(5, 1).winner(CURRENT, List.of(deepOnce, broad)));
        // equal medians: the lower mean
        List<Double> broadAndDeep = List.of(60.0, 95.0, 95.0, 95.0, 95.0);
        assertEquals(1, new RobustChoice(5, 1).winner(CURRENT, List.of(broad, broadAndDeep)));
    }

    @Test
    void aPartWithoutStepsIsNoWinAndBadSettingsAreRefused() {
        List<Double> current = List.of(100.0, Double.NaN, 100.0);
        List<Double> candidate = List.of(90.0, 10.0, 90.0);
        assertEquals(2, RobustChoice.wins(current, candidate));
        assertEquals(-1, new RobustChoice(3, 1).winner(current, List.of(candidate)));
        assertEquals(0, new RobustChoice(3, 0.6).winner(current, List.of(candidate)));
        assertThrows(IllegalArgumentException.class, () -> new RobustChoice(0, 1));
        assertThrows(IllegalArgumentException.class, () -> new RobustChoice(RobustChoice.MAX_PARTS + 1, 1));
        assertThrows(IllegalArgumentException.class, () -> new RobustChoice(5, 0.5));
        assertThrows(IllegalArgumentException.class, () -> new RobustChoice(5, Double.NaN));
    }
}
