package org.balanceroute.console.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.util.List;
import org.balanceroute.api.PoolSnapshot;
import org.junit.jupiter.api.Test;

class LoadHistoryTest {

    static PoolSnapshot snapshot(long step, long... loads) {
        return new PoolSnapshot("test", step, 0, 64, loads, new int[loads.length], new int[loads.length], 0);
    }

    @Test
    void theRingIsBoundedAndAnsweresWhatCameAfter() {
        LoadHistory h = new LoadHistory(3);
        assertNull(h.latest());
        assertEquals(List.of(), h.since(0));
        for (int i = 1; i <= 5; i++) {
            h.add(1000L * i, snapshot(i, i, 2 * i));
        }
        List<LoadHistory.Sample> all = h.since(0);
        assertEquals(List.of(3L, 4L, 5L), all.stream().map(LoadHistory.Sample::seq).toList());
        assertEquals(List.of(5L), h.since(4).stream().map(LoadHistory.Sample::seq).toList());
        assertEquals(List.of(), h.since(5));
        assertEquals(List.of(), h.since(99));
        assertEquals(List.of(), h.since(Long.MAX_VALUE));
        assertEquals(List.of(3L, 4L, 5L), h.since(1).stream().map(LoadHistory.Sample::seq).toList());
        assertEquals(5, h.latest().seq());
        assertEquals(5000L, h.latest().timeMillis());
    }

    @Test
    void imbalanceIsMaxMinusMin() {
        LoadHistory h = new LoadHistory(10);
        assertEquals(700, h.add(0, snapshot(1, 100, 800, 300)).imbalance());
        assertEquals(0, h.add(0, snapshot(2)).imbalance());
    }
}
