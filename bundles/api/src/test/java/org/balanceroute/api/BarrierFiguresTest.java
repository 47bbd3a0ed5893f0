package org.balanceroute.api;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;

import org.junit.jupiter.api.Test;

class BarrierFiguresTest {

    private static BarrierFigures one(long[] loads, boolean[] draining) {
        BarrierFigures f = new BarrierFigures();
        f.reset(1);
        f.measure(0, loads, draining, 0, loads.length);
        return f;
    }

    @Test
    void theIdleCapacityIsGTimesTheHeaviestMinusTheSumAndTheWasteItsShare() {
        BarrierFigures f = one(new long[] {10, 40, 20, 30}, new boolean[4]);
        assertEquals(4 * 40 - 100, f.idle(0), "G*M - sum L");
        assertEquals(160, f.full(0));
        assertEquals(1 - 25.0 / 40, f.wasteFraction(0), 1e-12, "1 - mean L / M");
        assertEquals(1, f.straggler(0), "the heaviest, alone at the top");
        assertEquals(30, f.imbalance(0), "max - min, the imbalance rule");
    }

    @Test
    void aDrainingRankCountsInNothing() {
        BarrierFigures f = one(new long[] {10, 400, 20, 30}, new boolean[] {false, true, false, false});
        assertEquals(3 * 30 - 60, f.idle(0));
        assertEquals(3, f.straggler(0), "the draining 400 is not the straggler");
        assertEquals(20, f.imbalance(0));
    }

    @Test
    void aTieAtTheTopOneRankOrNothingRunningHasNoStragglerAndAnIdleInstanceWastesNothing() {
        BarrierFigures tie = one(new long[] {40, 10, 40}, new boolean[3]);
        assertEquals(-1, tie.straggler(0));
        assertEquals(3 * 40 - 90, tie.idle(0), "the idle capacity whoever the heaviest");
        BarrierFigures alone = one(new long[] {70, 5}, new boolean[] {false, true});
        assertEquals(-1, alone.straggler(0), "one rank counted: it waits for no one");
        assertEquals(0, alone.idle(0));
        BarrierFigures empty = one(new long[] {0, 0, 0}, new boolean[3]);
        assertEquals(0, empty.idle(0));
        assertEquals(0.0, empty.wasteFraction(0));
        assertEquals(-1, empty.straggler(0));
        BarrierFigures drained = one(new long[] {9, 9}, new boolean[] {true, true});
        assertEquals(0, drained.idle(0));
        assertEquals(0, drained.imbalance(0));
    }

    @Test
    void instancesAreMeasuredApartAndThePoolsImbalanceIsTheirSumStepAfterStep() {
        long[] loads = {10, 50, 5, 5, 100, 0};
        boolean[] draining = new boolean[6];
        BarrierFigures f = new BarrierFigures();
        f.reset(2);
        f.measure(0, loads, draining, 0, 2);
        f.measure(1, loads, draining, 2, 6);
        assertEquals(40 + 100, f.imbalance());
        assertEquals(1, f.straggler(0));
        assertEquals(4, f.straggler(1), "the pool's index, not the instance's");
        assertEquals(2 * 50 - 60, f.idle(0));
        assertEquals(4 * 100 - 110, f.idle(1));
        long[] array = f.imbalances();

        loads[1] = 10;
        f.reset(2);
        f.measure(0, loads, draining, 0, 2);
        f.measure(1, loads, draining, 2, 6);
        assertEquals(100, f.imbalance(), "a new step starts from 0");
        assertEquals(-1, f.straggler(0));
        assertSame(array, f.imbalances(), "reused while the instances stay");
        f.reset(3);
        assertEquals(3, f.imbalances().length, "one entry per instance");
    }

    @Test
    void aSnapshotMeasuresEachOfItsGroups() {
        PoolSnapshot s = new PoolSnapshot("test", 9, 0, 64,
                new long[] {5000, 100, 300, 0, 700}, new int[] {2, 1, 1, 0, 2}, new int[5], 3,
                new boolean[] {true, true, true, true, true}, new int[] {0, 0, 0, 1, 1}, new int[] {64, 64, 64, 32, 32},
                new boolean[] {true, false, false, true, false});
        BarrierFigures f = s.barrier();
        assertEquals(2, f.instances());
        assertEquals(2 * 300 - 400, f.idle(0), "worker 0 drains: left out");
        assertEquals(2, f.straggler(0));
        assertEquals(0, f.idle(1), "one worker left in b");
        assertEquals(s.imbalance(), f.imbalance());
    }
}
