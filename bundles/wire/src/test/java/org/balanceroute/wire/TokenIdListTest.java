package org.balanceroute.wire;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.charset.StandardCharsets;
import java.util.SplittableRandom;
import java.util.stream.LongStream;
import org.junit.jupiter.api.Test;

class TokenIdListTest {

    private static long scan(String s, LongStream.Builder ids) {
        return TokenIdList.scan(s.getBytes(StandardCharsets.US_ASCII), s.indexOf('['), ids == null ? null : ids::add);
    }

    @Test
    void aListOfIdsGivesItsCountItsEndAndItsIds() {
        LongStream.Builder ids = LongStream.builder();
        String body = "{\"prompt\" : [\n\t5 ,\r\n -6,0,9223372036854775807 ], \"n\": 1}";
        long r = scan(body, ids);
        assertEquals(4, TokenIdList.count(r));
        assertEquals(body.indexOf(']'), TokenIdList.close(r));
        assertArrayEquals(new long[] {5, -6, 0, Long.MAX_VALUE}, ids.build().toArray());
        long empty = scan("[ ]", null);
        assertEquals(0, TokenIdList.count(empty));
        assertEquals(2, TokenIdList.close(empty));
    }

    @Test
    void theBodyWithoutTheListKeepsEverythingElse() {
        String body = "{\"a\": [1], \"prompt\": [ 7, 8 ,9 ], \"b\": 2}";
        byte[] bytes = body.getBytes(StandardCharsets.US_ASCII);
        int open = body.indexOf("[ 7");
        long r = TokenIdList.scan(bytes, open, null);
        assertEquals("{\"a\": [1], \"prompt\": [], \"b\": 2}",
                new String(TokenIdList.withoutList(bytes, open, r), StandardCharsets.US_ASCII));
    }

    @Test
    void anythingButPlainIntegersIsRefused() {
        for (String s : new String[] {"[1, 2.5]", "[1, 2e3]", "[1, null]", "[1, \"a\"]", "[[1]]", "[01, 2]",
                "[1, -]", "[1 2]", "[1, 2,]", "[1, 2", "[", "[,1]", "[9223372036854775808]"}) {
            assertEquals(TokenIdList.NOT_IDS, scan(s, null), s);
        }
        assertEquals(TokenIdList.NOT_IDS, TokenIdList.scan(new byte[] {'1'}, 0, null));
    }

    @Test
    void randomListsInEveryLayoutAreReadExactly() {
        SplittableRandom r = new SplittableRandom(11);
        String[] commas = {",", ", ", " ,", "\n,\t"};
        for (int round = 0; round < 500; round++) {
            int n = 1 + r.nextInt(200);
            long[] expected = new long[n];
            StringBuilder s = new StringBuilder("[");
            for (int k = 0; k < n; k++) {
                expected[k] = r.nextInt(5) == 0 ? -r.nextLong(1_000_000) : r.nextLong(Long.MAX_VALUE);
                s.append(k == 0 ? "" : commas[r.nextInt(commas.length)]).append(expected[k]);
            }
            s.append(" ]");
            LongStream.Builder ids = LongStream.builder();
            long got = scan(s.toString(), ids);
            assertEquals(n, TokenIdList.count(got));
            assertEquals(s.length() - 1, TokenIdList.close(got));
            assertArrayEquals(expected, ids.build().toArray());
        }
    }
}
