package org.balanceroute.console.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

class PoolHistoriesTest {

    @Test
    void eachPoolHasItsOwnRingOfTheSameSize() {
        PoolHistories h = new PoolHistories(2);
        for (int i = 1; i <= 3; i++) {
            h.add("default", 1000L * i, LoadHistoryTest.snapshot(i, 10 * i, 20));
        }
        h.add("chat", 3000, LoadHistoryTest.snapshot(1, 900));
        assertEquals(Set.of("chat", "default"), h.pools());
        assertEquals(List.of(2L, 3L), h.get("default").since(0).stream().map(LoadHistory.Sample::seq).toList());
        assertEquals(2, h.get("chat").capacity());
        assertEquals(List.of(1L), h.get("chat").since(0).stream().map(LoadHistory.Sample::seq).toList(),
                "its own numbering");
        assertEquals(900, h.latest().get("chat").loads()[0]);
        assertEquals(30, h.latest().get("default").loads()[0]);
    }

    @Test
    void aPoolNoLongerRoutedDropsItsHistoryAndStartsAfreshIfItComesBack() {
        PoolHistories h = new PoolHistories(5);
        h.add("default", 0, LoadHistoryTest.snapshot(1, 1));
        h.add("chat", 0, LoadHistoryTest.snapshot(1, 2));
        h.add("chat", 0, LoadHistoryTest.snapshot(2, 3));
        h.retain(List.of("default"));
        assertNull(h.get("chat"));
        assertEquals(Set.of("default"), h.pools());
        assertEquals(Set.of("default"), h.latest().keySet());
        assertEquals(1, h.add("chat", 0, LoadHistoryTest.snapshot(3, 4)).seq());
    }

    @Test
    void aCapacityBelowOneIsRefused() {
        assertThrows(IllegalArgumentException.class, () -> new PoolHistories(0));
    }
}
