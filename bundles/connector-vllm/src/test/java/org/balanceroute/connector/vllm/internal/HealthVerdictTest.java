package org.balanceroute.connector.vllm.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.util.concurrent.atomic.AtomicIntegerArray;
import org.junit.jupiter.api.Test;

/** When health checks mark an endpoint down or up ({@code healthFailureThreshold}). */
class HealthVerdictTest {

    private static final HealthMonitor.Check OK = new HealthMonitor.Check(true, false, "status 200");
    private static final HealthMonitor.Check SLOW = new HealthMonitor.Check(false, false, "TimeoutException");
    private static final HealthMonitor.Check REFUSED = new HealthMonitor.Check(false, true, "ConnectException");

    private final AtomicIntegerArray failures = new AtomicIntegerArray(2);

    @Test
    void downOnlyAfterThresholdFailuresInARowAndAnAnswerForgetsThem() {
        assertNull(HealthMonitor.verdict(failures, 0, SLOW, 3), "one slow answer: no change");
        assertNull(HealthMonitor.verdict(failures, 0, SLOW, 3));
        assertEquals(Boolean.TRUE, HealthMonitor.verdict(failures, 0, OK, 3), "a 200 in between: up, count reset");
        assertNull(HealthMonitor.verdict(failures, 0, SLOW, 3));
        assertNull(HealthMonitor.verdict(failures, 0, SLOW, 3));
        assertNull(HealthMonitor.verdict(failures, 1, SLOW, 3), "counted per endpoint");
        assertEquals(Boolean.FALSE, HealthMonitor.verdict(failures, 0, SLOW, 3), "the third in a row: down");
        assertEquals(Boolean.FALSE, HealthMonitor.verdict(failures, 0, SLOW, 3), "and stays down");
        assertEquals(Boolean.TRUE, HealthMonitor.verdict(failures, 0, OK, 3), "one 200 brings it back");
    }

    @Test
    void aRefusedConnectionIsDownAtOnceAndAThresholdOfOneIsTheFirstFailure() {
        assertEquals(Boolean.FALSE, HealthMonitor.verdict(failures, 0, REFUSED, 3), "nothing listens: no reason to wait");
        assertEquals(Boolean.FALSE, HealthMonitor.verdict(failures, 1, SLOW, 1));
    }
}
