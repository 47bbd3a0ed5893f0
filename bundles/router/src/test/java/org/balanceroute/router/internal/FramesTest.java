package org.balanceroute.router.internal;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Arrays;
import java.util.List;
import java.util.Random;
import org.balanceroute.api.PoolSnapshot;
import org.balanceroute.router.ReplicaShare;
import org.junit.jupiter.api.Test;

/** Round trips of the cluster protocol's frames, and what a damaged frame does. */
class FramesTest {

    @Test
    void headerAndFieldsRoundTrip() {
        Frames.Writer w = new Frames.Writer();
        w.begin(Frames.EVENTS, 7, 42L, -5L, 0).putByte(Frames.F_STEP).putInt(-1).putLong(Long.MIN_VALUE)
                .putString("réplica-ü").putString("");
        w.oldestSeen(123456789L);
        Frames.Reader r = new Frames.Reader(w.toBytes());
        assertEquals(Frames.EVENTS, r.type);
        assertEquals(7, r.session);
        assertEquals(42L, r.seq);
        assertEquals(-5L, r.sentAtNanos);
        assertEquals(123456789L, r.oldestSeenNanos);
        assertEquals(Frames.F_STEP, r.getByte());
        assertEquals(-1, r.getInt());
        assertEquals(Long.MIN_VALUE, r.getLong());
        assertEquals("réplica-ü", r.getString());
        assertEquals("", r.getString());
        assertFalse(r.hasMore());
    }

    @Test
    void anOutboxFrameCarriesTokensBeforeEventsAndATokensRecordBeforeItsCompletion() {
        FollowerOutbox out = new FollowerOutbox();
        InFlight a = new InFlight(1, 100, 9, 50, 0, null);
        InFlight b = new InFlight(2, 200, 0, 60, 0, null);
        out.tokens(a, 3, 10);
        out.tokens(a, 2, 20);
        out.tokens(b, 4, 15);
        out.complete(b, 30);
        out.submit(new InFlight(3, 300, 7, 70, 25, null), 30);
        assertTrue(out.urgent());
        Frames.Writer w = new Frames.Writer();
        out.writeFrame(w, 1, 0, 40);
        assertTrue(out.isEmpty());
        Frames.Reader r = new Frames.Reader(w.toBytes());
        assertEquals(10, r.oldestSeenNanos, "the oldest token of the frame");
        assertEquals(0, r.getByte(), "no flag");
        assertEquals(Frames.K_TOKENS, r.getByte(), "a's pending tokens first");
        assertEquals(1, r.getLong());
        assertEquals(5, r.getInt());
        assertEquals(20, r.getLong(), "its last chunk was seen 20 ns before the frame");
        assertEquals(Frames.K_TOKENS, r.getByte(), "b's tokens went with its completion, just before it");
        assertEquals(2, r.getLong());
        assertEquals(4, r.getInt());
        assertEquals(15, r.getLong());
        assertEquals(Frames.K_COMPLETE, r.getByte());
        assertEquals(2, r.getLong());
        assertEquals(Frames.K_SUBMIT, r.getByte());
        assertEquals(3, r.getLong());
        assertEquals(300, r.getInt());
        assertEquals(7, r.getLong());
        assertEquals(70, r.getInt());
        assertEquals(5, r.getLong(), "its age when it was written");
        assertFalse(r.hasMore());
    }

    @Test
    void pendingTokensOfARequestAreOneRecordSummed() {
        FollowerOutbox out = new FollowerOutbox();
        InFlight a = new InFlight(1, 100, 9, 50, 0, null);
        out.tokens(a, 3, 10);
        out.tokens(a, 2, 20);
        assertFalse(out.urgent(), "tokens alone wait for the flush interval");
        Frames.Writer w = new Frames.Writer();
        out.writeFrame(w, 1, 0, 40);
        Frames.Reader r = new Frames.Reader(w.toBytes());
        r.getByte();
        assertEquals(Frames.K_TOKENS, r.getByte());
        assertEquals(1, r.getLong());
        assertEquals(5, r.getInt());
        assertEquals(20, r.getLong(), "age of the last chunk");
        assertFalse(r.hasMore());
    }

    @Test
    void theViewRoundTripsWithEveryShare() {
        Random random = new Random(3);
        for (int trial = 0; trial < 50; trial++) {
            int g = 1 + random.nextInt(16);
            long[] loads = random.longs(g, 0, 1L << 40).toArray();
            int[] running = random.ints(g, 0, 512).toArray();
            int[] queued = random.ints(g, 0, 64).toArray();
            boolean[] up = new boolean[g];
            for (int i = 0; i < g; i++) {
                up[i] = random.nextBoolean();
            }
            PoolSnapshot totals = new PoolSnapshot("m1", random.nextInt(1 << 20), 0, 64, loads, running, queued,
                    random.nextInt(4096), up);
            List<ReplicaShare> shares = List.of(
                    new ReplicaShare("m1", "10.0.0.1:5701", true, 3, loads, running, queued),
                    new ReplicaShare("m2", "10.0.0.2:5701", false, 0, new long[g], new int[g], new int[g]));
            Frames.Writer w = new Frames.Writer();
            w.begin(Frames.VIEW, 0, trial, 1, 2);
            SharedView.write(w, totals, "brh-survival", 12345, trial + 1L, shares);
            Frames.Reader r = new Frames.Reader(w.toBytes());
            SharedView v = SharedView.read(r, "m1", 99);
            assertFalse(r.hasMore());
            assertArrayEquals(loads, v.totals().loads());
            assertArrayEquals(running, v.totals().running());
            assertArrayEquals(queued, v.totals().queued());
            assertArrayEquals(up, v.totals().available());
            assertEquals(totals.poolDepth(), v.totals().poolDepth());
            assertEquals(totals.step(), v.totals().step());
            assertEquals("brh-survival", v.activePolicy());
            assertEquals(12345, v.observedStepNanos());
            assertEquals(trial + 1L, v.layoutFingerprint());
            assertEquals(shares, v.shares());
        }
    }

    @Test
    void aDamagedFrameIsRefusedNotMisread() {
        Frames.Writer w = new Frames.Writer();
        w.begin(Frames.VIEW, 0, 1, 1, 2);
        SharedView.write(w, new PoolSnapshot("m1", 1, 0, 64, new long[4], new int[4], new int[4], 0),
                "br0", 0, 0, List.of());
        byte[] whole = w.toBytes();
        for (int cut = 0; cut < whole.length; cut++) {
            byte[] part = Arrays.copyOf(whole, cut);
            assertThrows(Frames.MalformedFrameException.class, () -> SharedView.read(new Frames.Reader(part), "m1", 0),
                    "a frame cut at " + cut);
        }
        byte[] version = whole.clone();
        version[0] = 9;
        assertThrows(Frames.MalformedFrameException.class, () -> new Frames.Reader(version));
        byte[] huge = whole.clone();
        huge[Frames.HEADER_BYTES + 8 + 4 + 3] = 0x7f; // the worker count
        assertThrows(Frames.MalformedFrameException.class, () -> SharedView.read(new Frames.Reader(huge), "m1", 0),
                "a count larger than the frame is refused before anything is allocated");
    }

    @Test
    void aLayoutRoundTripsAndOneThatDoesNotHoldIsAMalformedFrame() {
        WorkerLayout layout = WorkerLayout.of(List.of("http://a:1;rank=0", "http://a:1;rank=1", "http://b:2"),
                new int[] {2, 1}, new int[] {64, 128});
        Frames.Writer w = new Frames.Writer();
        w.begin(Frames.SYNC, 1, 0, 0, 0);
        layout.write(w);
        WorkerLayout read = WorkerLayout.read(new Frames.Reader(w.toBytes()));
        assertEquals(layout, read);
        assertEquals(layout.fingerprint(), read.fingerprint());
        assertEquals(1, read.indexOf("http://a:1;rank=1"));
        assertEquals(-1, read.indexOf("http://c:3"));
        assertFalse(layout.fingerprint() == WorkerLayout.of(List.of("http://a:1;rank=0", "http://a:1;rank=1",
                "http://b:2"), new int[] {3}, new int[] {64}).fingerprint(), "the instances count");

        w.begin(Frames.SYNC, 1, 0, 0, 0).putInt(2).putString("x").putString("x").putInt(1).putInt(2).putInt(64);
        byte[] repeated = w.toBytes();
        assertThrows(Frames.MalformedFrameException.class, () -> WorkerLayout.read(new Frames.Reader(repeated)));
    }

    @Test
    void aDrainIsAnUrgentEventByWorkerIdentity() {
        FollowerOutbox out = new FollowerOutbox();
        out.drain("http://d1", true, 5);
        out.mark("http://d2", false, 6);
        assertTrue(out.urgent());
        Frames.Writer w = new Frames.Writer();
        out.writeFrame(w, 1, 0, 10);
        Frames.Reader r = new Frames.Reader(w.toBytes());
        r.getByte();
        assertEquals(Frames.K_DRAIN, r.getByte());
        assertEquals("http://d1", r.getString());
        assertEquals(1, r.getByte());
        assertEquals(Frames.K_MARK, r.getByte());
        assertEquals("http://d2", r.getString());
        assertEquals(0, r.getByte());
        assertFalse(r.hasMore());
    }
}
