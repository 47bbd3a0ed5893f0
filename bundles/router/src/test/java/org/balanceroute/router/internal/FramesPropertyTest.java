package org.balanceroute.router.internal;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashSet;
import java.util.List;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.From;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.Size;
import org.balanceroute.api.PoolSnapshot;
import org.balanceroute.router.ReplicaShare;

/**
 * The cluster protocol's frames as properties: whatever is written reads back the same, and a
 * frame cut anywhere is refused ({@link Frames.MalformedFrameException}, what the receiver repairs
 * from), never misread and never another exception. Seeds are fixed.
 */
class FramesPropertyTest {

    /** Any valid UTF-16 text (every code point but lone surrogates): identities, addresses, policy names. */
    @Provide
    Arbitrary<String> texts() {
        return Arbitraries.integers().between(0, 0x10FFFF).filter(cp -> cp < 0xD800 || cp > 0xDFFF)
                .list().ofMaxSize(10).map(cps -> new String(cps.stream().mapToInt(Integer::intValue).toArray(), 0, cps.size()));
    }

    /** One field of a frame body, as one of the writer's primitives puts it (Java 17: no switch over records). */
    record Field(char kind, long number, String text) {

        void write(Frames.Writer w) {
            switch (kind) {
                case 'b' -> w.putByte((byte) number);
                case 'i' -> w.putInt((int) number);
                case 'l' -> w.putLong(number);
                default -> w.putString(text);
            }
        }

        Field read(Frames.Reader r) {
            return switch (kind) {
                case 'b' -> new Field(kind, r.getByte(), null);
                case 'i' -> new Field(kind, r.getInt(), null);
                case 'l' -> new Field(kind, r.getLong(), null);
                default -> new Field(kind, 0, r.getString());
            };
        }
    }

    @Provide
    Arbitrary<Field> fields() {
        return Arbitraries.oneOf(Arbitraries.bytes().map(v -> new Field('b', v, null)),
                Arbitraries.integers().map(v -> new Field('i', v, null)), Arbitraries.longs().map(v -> new Field('l', v, null)),
                texts().map(v -> new Field('s', 0, v)));
    }

    @Property(seed = "20261203")
    void aHeaderAndAnyFieldsReadBackAsWritten(@ForAll byte type, @ForAll int session, @ForAll long seq,
            @ForAll long sentAt, @ForAll long oldestSeen, @ForAll @Size(max = 20) List<@From("fields") Field> body) {
        Frames.Writer w = new Frames.Writer();
        w.begin((byte) 99, 1, 1, 1, 1).putString("dropped by begin");
        w.begin(type, session, seq, sentAt, 0);
        for (Field f : body) {
            f.write(w);
        }
        w.oldestSeen(oldestSeen); // known only once the body is written
        Frames.Reader r = new Frames.Reader(w.toBytes());
        assertEquals(type, r.type);
        assertEquals(session, r.session);
        assertEquals(seq, r.seq);
        assertEquals(sentAt, r.sentAtNanos);
        assertEquals(oldestSeen, r.oldestSeenNanos);
        for (Field f : body) {
            assertEquals(f, f.read(r));
        }
        assertFalse(r.hasMore());
    }

    @Provide
    Arbitrary<WorkerLayout> layouts() {
        Arbitrary<List<Integer>> sizes = Arbitraries.integers().between(1, 6).list().ofMinSize(1).ofMaxSize(4);
        return sizes.flatMap(groups -> {
            int n = groups.stream().mapToInt(Integer::intValue).sum();
            return Combinators.combine(texts().filter(s -> !s.isEmpty()).set().ofSize(n),
                    Arbitraries.integers().between(1, org.balanceroute.api.PoolView.MAX_CAPACITY).list().ofSize(groups.size()))
                    .as((ids, capacities) -> WorkerLayout.of(new ArrayList<>(new LinkedHashSet<>(ids)),
                            groups.stream().mapToInt(Integer::intValue).toArray(),
                            capacities.stream().mapToInt(Integer::intValue).toArray()));
        });
    }

    @Property(seed = "20261204", tries = 300)
    void aLayoutReadsBackEqualWithItsFingerprint(@ForAll("layouts") WorkerLayout layout) {
        Frames.Writer w = new Frames.Writer();
        w.begin(Frames.SYNC, 1, 0, 0, 0);
        layout.write(w);
        Frames.Reader r = new Frames.Reader(w.toBytes());
        WorkerLayout read = WorkerLayout.read(r);
        assertFalse(r.hasMore());
        assertEquals(layout, read);
        assertEquals(layout.fingerprint(), read.fingerprint(), "the replicas compare layouts by it");
        for (int g = 0; g < layout.workers(); g++) {
            assertEquals(g, read.indexOf(layout.id(g)));
        }
    }

    /** A view the dispatcher might broadcast: per-worker totals, groups, drains, and each member's share. */
    record View(PoolSnapshot totals, String policy, long stepNanos, long fingerprint, List<ReplicaShare> shares) {
    }

    @Provide
    Arbitrary<View> views() {
        return Arbitraries.integers().between(1, 12).flatMap(g -> {
            Arbitrary<long[]> longs = Arbitraries.longs().list().ofSize(g).map(l -> l.stream().mapToLong(Long::longValue).toArray());
            Arbitrary<int[]> ints = Arbitraries.integers().list().ofSize(g).map(l -> l.stream().mapToInt(Integer::intValue).toArray());
            Arbitrary<boolean[]> flags = Arbitraries.of(true, false).list().ofSize(g).map(l -> {
                boolean[] a = new boolean[g];
                for (int i = 0; i < g; i++) {
                    a[i] = l.get(i);
                }
                return a;
            });
            Arbitrary<PoolSnapshot> totals = Combinators.combine(Arbitraries.longs(), Arbitraries.integers(), longs, ints, ints,
                    Arbitraries.integers(), flags, ints).as((step, capacity, l, r, q, depth, available, groups) ->
                            Combinators.combine(ints, flags).as((capacities, draining) -> new PoolSnapshot("d", step, 0,
                                    capacity, l, r, q, depth, available, groups, capacities, draining)))
                    .flatMap(a -> a);
            Arbitrary<ReplicaShare> share = Combinators.combine(texts(), texts(), Arbitraries.integers(), longs, ints, ints)
                    .as((member, address, pooled, l, r, q) -> new ReplicaShare(member, address, false, pooled, l, r, q));
            return Combinators.combine(totals, texts(), Arbitraries.longs(), Arbitraries.longs(), share.list().ofMaxSize(4))
                    .as(View::new);
        });
    }

    @Property(seed = "20261205", tries = 300)
    void aViewReadsBackAsWritten(@ForAll("views") View v) {
        Frames.Writer w = new Frames.Writer();
        w.begin(Frames.VIEW, 0, 1, 1, 2);
        SharedView.write(w, v.totals(), v.policy(), v.stepNanos(), v.fingerprint(), v.shares());
        Frames.Reader r = new Frames.Reader(w.toBytes());
        String dispatcher = v.shares().isEmpty() ? "d" : v.shares().get(0).member();
        SharedView read = SharedView.read(r, dispatcher, 99);
        assertFalse(r.hasMore());
        PoolSnapshot t = v.totals(), u = read.totals();
        assertEquals(t.step(), u.step());
        assertEquals(t.capacity(), u.capacity());
        assertEquals(t.poolDepth(), u.poolDepth());
        assertArrayEquals(t.loads(), u.loads());
        assertArrayEquals(t.running(), u.running());
        assertArrayEquals(t.queued(), u.queued());
        assertArrayEquals(t.available(), u.available());
        assertArrayEquals(t.groups(), u.groups());
        assertArrayEquals(t.capacities(), u.capacities());
        assertArrayEquals(t.draining(), u.draining());
        assertEquals(v.policy(), read.activePolicy());
        assertEquals(v.stepNanos(), read.observedStepNanos());
        assertEquals(v.fingerprint(), read.layoutFingerprint());
        List<ReplicaShare> expected = v.shares().stream().map(s -> new ReplicaShare(s.member(), s.address(),
                s.member().equals(dispatcher), s.pooled(), s.loads(), s.running(), s.queued())).toList();
        assertEquals(expected, read.shares(), "every share, the dispatcher's flagged by the reader");
    }

    /** Every strict prefix of a frame is refused as malformed; nothing else escapes the reader. */
    @Property(seed = "20261206", tries = 200)
    void aFrameCutAnywhereIsRefusedNotMisread(@ForAll("views") View v, @ForAll("layouts") WorkerLayout layout,
            @ForAll @IntRange(max = 1_000_000) int at) {
        Frames.Writer w = new Frames.Writer();
        w.begin(Frames.VIEW, 0, 1, 1, 2);
        SharedView.write(w, v.totals(), v.policy(), v.stepNanos(), v.fingerprint(), v.shares());
        byte[] view = w.toBytes();
        w.begin(Frames.SYNC, 1, 0, 0, 0);
        layout.write(w);
        byte[] sync = w.toBytes();
        byte[] viewCut = Arrays.copyOf(view, at % view.length);
        byte[] syncCut = Arrays.copyOf(sync, at % sync.length);
        assertThrows(Frames.MalformedFrameException.class, () -> SharedView.read(new Frames.Reader(viewCut), "d", 0),
                "a view cut at " + viewCut.length + " of " + view.length);
        assertThrows(Frames.MalformedFrameException.class, () -> WorkerLayout.read(new Frames.Reader(syncCut)),
                "a layout cut at " + syncCut.length + " of " + sync.length);
    }
}
