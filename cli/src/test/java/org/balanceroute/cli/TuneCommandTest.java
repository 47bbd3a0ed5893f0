package org.balanceroute.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

class TuneCommandTest {

    @Test
    void theShareRecoveredIsOfTheGainBetweenTheStartAndTheBestFixedSetting() {
        assertEquals("recovered 80% of the best fixed setting's gain", TuneCommand.verdict(100, 60, 50));
        assertEquals("recovered -20% of the best fixed setting's gain", TuneCommand.verdict(100, 110, 50));
    }

    @Test
    void aStartThatIsAlreadyBestHasNothingToRecover() {
        assertEquals("the start is already the best fixed setting on the rest: nothing to recover;"
                + " the tuned choice's imbalance +10.0% against it", TuneCommand.verdict(100, 110, 100));
        assertEquals("the start is already the best fixed setting on the rest: nothing to recover;"
                + " the tuned choice's imbalance +0.0% against it", TuneCommand.verdict(100, 100, 100));
    }
}
