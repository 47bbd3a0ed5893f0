package org.balanceroute.proxy.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;

import org.junit.jupiter.api.Test;

class ByteArrayPoolTest {

    @Test
    void takesArePowersOfTwoFromOneKibUpToSixtyFourKibAndExactBeyond() {
        ByteArrayPool pool = new ByteArrayPool(1 << 20);
        assertEquals(1024, pool.take(1).length);
        assertEquals(1024, pool.take(1024).length);
        assertEquals(2048, pool.take(1025).length);
        assertEquals(65_536, pool.take(40_000).length);
        assertEquals(65_537, pool.take(65_537).length);
    }

    @Test
    void anArrayHandedBackIsTheNextTakeOfItsSizeAndOnlyOfItsSize() {
        ByteArrayPool pool = new ByteArrayPool(1 << 20);
        byte[] a = pool.take(3000);
        pool.give(a);
        assertEquals(4096, pool.keptBytes());
        assertNotSame(a, pool.take(2048));
        assertSame(a, pool.take(4096));
        assertEquals(0, pool.keptBytes());
        assertNotSame(a, pool.take(4096), "taken once only");
    }

    @Test
    void itKeepsNoMoreThanItsBoundAndNoOddSizes() {
        ByteArrayPool pool = new ByteArrayPool(8192);
        pool.give(new byte[4096]);
        pool.give(new byte[4096]);
        pool.give(new byte[4096]);
        assertEquals(8192, pool.keptBytes(), "the third was left to the collector");
        pool.give(new byte[3000]);
        pool.give(new byte[512]);
        pool.give(new byte[131_072]);
        pool.give(new byte[0]);
        assertEquals(8192, pool.keptBytes());
        ByteArrayPool none = new ByteArrayPool(0);
        byte[] a = none.take(1024);
        none.give(a);
        assertNotSame(a, none.take(1024));
    }
}
