package org.balanceroute.proxy.internal;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;

import jakarta.servlet.ReadListener;
import jakarta.servlet.ServletInputStream;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

class BodyReaderTest {

    /**
     * An input that has {@code parts} arrive one by one ({@link #arrive()}), as a socket does, and
     * calls the listener as a container does: when data is available, and once all is read.
     */
    private static final class Arriving extends ServletInputStream {
        private final List<byte[]> parts;
        private int next;
        private byte[] current = new byte[0];
        private int at;
        private boolean eof;
        private ReadListener listener;

        Arriving(byte[]... parts) {
            this.parts = new ArrayList<>(List.of(parts));
        }

        @Override
        public void setReadListener(ReadListener l) {
            listener = l;
        }

        /** The next part arrives (or, after the last, the end): the container calls the listener. */
        void arrive() throws IOException {
            if (next < parts.size()) {
                current = parts.get(next++);
                at = 0;
                listener.onDataAvailable();
            } else {
                eof = true;
                listener.onAllDataRead();
            }
        }

        @Override
        public boolean isReady() {
            return at < current.length || (next == parts.size() && eof);
        }

        @Override
        public boolean isFinished() {
            return eof;
        }

        @Override
        public int read() {
            throw new UnsupportedOperationException();
        }

        @Override
        public int read(byte[] b, int off, int len) {
            if (at == current.length) {
                if (eof) {
                    return -1;
                }
                throw new IllegalStateException("read while not ready");
            }
            int n = Math.min(len, current.length - at);
            System.arraycopy(current, at, b, off, n);
            at += n;
            return n;
        }
    }

    private byte[] body;
    private Throwable failure;
    private int calls;

    private void read(Arriving in, long declared, int limit) {
        BodyReader.read(in, declared, limit, b -> {
            body = b;
            calls++;
        }, t -> {
            failure = t;
            calls++;
        });
    }

    private static byte[] bytes(int n, char c) {
        byte[] b = new byte[n];
        Arrays.fill(b, (byte) c);
        return b;
    }

    @Test
    void aBodyArrivingInPartsIsWholeOnceTheLastIsInWithOrWithoutItsLength() throws IOException {
        for (long declared : new long[] {30_000, -1}) {
            body = null;
            calls = 0;
            Arriving in = new Arriving(bytes(10_000, 'a'), bytes(10_000, 'b'), bytes(10_000, 'c'));
            read(in, declared, 1 << 20);
            in.arrive();
            in.arrive();
            assertNull(body, "nothing before the end");
            in.arrive();
            in.arrive(); // the end
            assertEquals(1, calls);
            byte[] expected = new byte[30_000];
            System.arraycopy(bytes(10_000, 'a'), 0, expected, 0, 10_000);
            System.arraycopy(bytes(10_000, 'b'), 0, expected, 10_000, 10_000);
            System.arraycopy(bytes(10_000, 'c'), 0, expected, 20_000, 10_000);
            assertArrayEquals(expected, body);
        }
    }

    @Test
    void aBodyOfItsDeclaredLengthIsWholeWithoutWaitingForTheEnd() throws IOException {
        Arriving in = new Arriving(bytes(300, 'a'), bytes(300, 'b'));
        read(in, 600, 1 << 20);
        in.arrive();
        assertNull(body);
        in.arrive();
        assertEquals(1, calls, "whole at its declared length");
        assertEquals(600, body.length);
        assertEquals('b', body[599]);
        in.arrive(); // the end, once the container sees it
        assertEquals(1, calls);
    }

    @Test
    void anEmptyBodyIsNoBytes() throws IOException {
        Arriving in = new Arriving();
        read(in, 0, 1024);
        in.arrive();
        assertEquals(0, body.length);
        assertEquals(1, calls);
    }

    @Test
    void noMoreThanOneBytePastTheLimitIsReadAndTheRestIsNotWaitedFor() throws IOException {
        for (long declared : new long[] {50_000, -1}) {
            body = null;
            calls = 0;
            Arriving in = new Arriving(bytes(6_000, 'x'), bytes(6_000, 'y'), bytes(38_000, 'z'));
            read(in, declared, 10_000);
            in.arrive();
            in.arrive();
            assertEquals(1, calls, "done as soon as the limit is passed");
            assertEquals(10_001, body.length);
        }
        Arriving exact = new Arriving(bytes(10_000, 'x'));
        body = null;
        read(exact, -1, 10_000);
        exact.arrive();
        exact.arrive();
        assertEquals(10_000, body.length);
    }

    @Test
    void aConnectionThatFailsMidBodyIsReportedOnceAndNeverAsABody() throws IOException {
        Arriving in = new Arriving(bytes(100, 'a'), bytes(100, 'b'));
        read(in, 1_000, 10_000);
        in.arrive();
        IOException gone = new IOException("idle timeout");
        in.listener.onError(gone);
        in.listener.onError(new IOException("again"));
        assertSame(gone, failure);
        assertNull(body);
        assertEquals(1, calls);
    }
}
