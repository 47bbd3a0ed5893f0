package org.balanceroute.router.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.HashMap;
import java.util.Map;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class LongMapTest {

    @Test
    void behavesLikeAHashMapUnderRandomOperations() {
        SplittableRandom random = new SplittableRandom(7);
        LongMap<String> map = new LongMap<>();
        Map<Long, String> expected = new HashMap<>();
        for (int i = 0; i < 200_000; i++) {
            long key = random.nextInt(2000) - 1000; // collisions, negatives and 0
            switch (random.nextInt(3)) {
                case 0 -> assertEquals(expected.putIfAbsent(key, "v" + i) == null, map.putIfAbsent(key, "v" + i));
                case 1 -> assertEquals(expected.remove(key), map.remove(key));
                default -> assertEquals(expected.get(key), map.get(key));
            }
            assertEquals(expected.size(), map.size());
        }
        for (Map.Entry<Long, String> e : expected.entrySet()) {
            assertEquals(e.getValue(), map.get(e.getKey()));
        }
    }
}
