package org.balanceroute.core;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.balanceroute.api.PoolSnapshot;
import org.junit.jupiter.api.Test;

class GroupsAndDrainTest {

    @Test
    void aLayoutNumbersWorkersInstanceByInstance() {
        DecodeLayout layout = DecodeLayout.of(new int[] {8, 4, 1}, new int[] {64, 128, 32});
        assertEquals(13, layout.workers());
        assertEquals(3, layout.groups());
        assertEquals(0, layout.groupOf(0));
        assertEquals(0, layout.groupOf(7));
        assertEquals(1, layout.groupOf(8));
        assertEquals(1, layout.groupOf(11));
        assertEquals(2, layout.groupOf(12));
        assertEquals(12, layout.start(2));
        assertEquals(128, layout.maxCapacity());
        assertEquals("8x64,4x128,1x32", layout.toString());
        assertThrows(IllegalArgumentException.class, () -> DecodeLayout.of(new int[] {8, 0}, 64));
        assertThrows(IllegalArgumentException.class, () -> DecodeLayout.of(new int[0], new int[0]));
        assertThrows(IllegalArgumentException.class, () -> DecodeLayout.of(new int[] {2}, new int[] {0}));
    }

    @Test
    void theStateAnswersPerGroupAndPerWorkerCapacity() {
        PoolState state = new PoolState(DecodeLayout.of(new int[] {2, 3}, new int[] {1, 2}));
        assertEquals(5, state.workers());
        assertEquals(2, state.groups());
        assertEquals(1, state.group(4));
        assertEquals(2, state.groupStart(1));
        assertEquals(3, state.groupSize(1));
        assertEquals(1, state.freeSlots(0));
        assertEquals(2, state.freeSlots(3));
        Router router = new Router(state, new RouterTest.Fixed(0), List.of());
        router.submit(new TrackedRequest(1, 100, 0, 0, 0));
        TrackedRequest second = new TrackedRequest(2, 50, 0, 0, 0);
        router.submit(second);
        assertEquals(TrackedRequest.Phase.QUEUED, second.phase());
        assertEquals(100, state.groupMaxLoad(0));
        assertEquals(0, state.groupMaxLoad(1));
        assertEquals(100, state.groupImbalance(0));
        assertEquals(0, state.groupImbalance(1));
    }

    @Test
    void aDrainingWorkerTakesNothingNewAndItsRequestsRunToTheirEnd() {
        PoolState state = new PoolState(2, 4);
        Router router = new Router(state, new RouterTest.Fixed(1), List.of());
        TrackedRequest running = new TrackedRequest(1, 100, 0, 0, 0);
        router.submit(running);
        assertTrue(router.setWorkerDraining(1, true));
        assertFalse(router.setWorkerDraining(1, true));
        assertFalse(state.available(1));
        assertTrue(state.draining(1));
        assertFalse(state.drained(1));
        assertEquals(0, state.freeSlots(1));
        assertEquals(1, state.availableWorkers());
        // a policy that still names the drained worker is overruled
        TrackedRequest next = new TrackedRequest(2, 10, 0, 0, 0);
        router.submit(next);
        assertEquals(0, next.worker());
        // the running request keeps its tokens and ends there
        router.onTokens(running, 5);
        assertEquals(105, state.load(1));
        router.complete(running);
        assertTrue(state.drained(1));
        // a drained worker's empty KV is not imbalance
        assertEquals(0, state.groupImbalance(0));
        PoolSnapshot s = state.snapshot("t", 0, 0);
        assertTrue(s.drained(1));
        assertArrayEquals(new boolean[] {true, true}, s.available());
        assertTrue(router.setWorkerDraining(1, false));
        assertEquals(2, state.availableWorkers());
        TrackedRequest after = new TrackedRequest(3, 10, 0, 0, 0);
        router.submit(after);
        assertEquals(1, after.worker());
    }

    @Test
    void drainAndDownAreSeparateMarks() {
        PoolState state = new PoolState(3, 4);
        Router router = new Router(state, new RouterTest.Fixed(0), List.of());
        router.setWorkerDraining(2, true);
        router.setWorkerAvailable(2, false);
        assertEquals(2, state.availableWorkers());
        router.setWorkerDraining(2, false);
        assertFalse(state.available(2));
        assertTrue(state.down(2));
        assertEquals(2, state.availableWorkers());
        router.setWorkerAvailable(2, true);
        assertEquals(3, state.availableWorkers());
    }

    @Test
    void theSnapshotCarriesGroupsCapacitiesAndDrains() {
        PoolState state = new PoolState(DecodeLayout.of(new int[] {1, 2}, new int[] {8, 16}));
        state.setDraining(2, true);
        PoolSnapshot s = state.snapshot("t", 0, 0);
        assertArrayEquals(new int[] {0, 1, 1}, s.groups());
        assertArrayEquals(new int[] {8, 16, 16}, s.capacities());
        assertArrayEquals(new boolean[] {false, false, true}, s.draining());
        assertEquals(2, s.groupCount());
        assertEquals(16, s.capacity());
    }
}
