package org.balanceroute.router.internal;

import java.nio.BufferUnderflowException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * The wire format of the routers' cluster protocol: what followers tell the dispatcher and what
 * the dispatcher answers, as {@code byte[]} (nothing crosses bundle class loaders, no class is
 * looked up by name). Big-endian, versioned by the first byte.
 *
 * <p>Every frame: {@code version:byte type:byte session:int seq:long sentAtNanos:long
 * oldestSeenNanos:long}, then its body:
 * <ul>
 *   <li>{@link #EVENTS} (follower to dispatcher): {@code flags:byte}, then records until the end,
 *       each {@code kind:byte} and its fields (see the {@code K_*} constants);</li>
 *   <li>{@link #SYNC} (follower to dispatcher, the whole state of its requests, replacing what the
 *       dispatcher held for it): {@code flags:byte hasLayout:byte}, its layout if it has one
 *       ({@link WorkerLayout#write}), {@code downCount:int down:string*} (its health marks),
 *       {@code drainCount:int} and per drain {@code worker:string draining:byte} (the drains asked
 *       of it that no view has shown yet), {@code count:int} and per request {@code id:long
 *       prompt:int key:long bytes:int ageNanos:long worker:string decoded:int} (worker "": waiting
 *       for a placement). Workers go by identity: the dispatcher finds them in its own layout;</li>
 *   <li>{@link #PLACEMENTS} (dispatcher to one follower): {@code stepsRun:int step:long poolDepth:int
 *       count:int} and per placement {@code id:long worker:int workerId:string} (worker
 *       {@link #REFUSED}: the id was already in flight); stepsRun answers that many
 *       {@link #F_STEP_ANSWER} requests;</li>
 *   <li>{@link #RESYNC} (dispatcher to one follower: send a SYNC): no body;</li>
 *   <li>{@link #VIEW} (dispatcher to all): {@link SharedView}'s fields, see its {@code write}.</li>
 * </ul>
 * {@code session} numbers a follower's stream to its dispatcher (a new one with each SYNC), and
 * {@code seq} its frames within it, so a lost frame is seen and repaired with a SYNC; a
 * dispatcher's answer carries the session it answers. Times are the sender's
 * {@link System#nanoTime()}; only differences ({@code ageNanos}) cross hosts, except
 * {@code oldestSeenNanos}, which the staleness figure compares on one host only.
 */
final class Frames {

    static final byte VERSION = 2;

    static final byte EVENTS = 1;
    static final byte SYNC = 2;
    static final byte PLACEMENTS = 3;
    static final byte RESYNC = 4;
    static final byte VIEW = 5;

    /** EVENTS / SYNC flag: the follower asks for a dispatch step. */
    static final byte F_STEP = 1;
    /** EVENTS / SYNC flag: run a dispatch step and answer it (RouterService.dispatchStep on a follower). */
    static final byte F_STEP_ANSWER = 2;

    /** {@code id:long prompt:int key:long bytes:int ageNanos:long}: a request finished prefill. */
    static final byte K_SUBMIT = 1;
    /** {@code id:long count:int ageNanos:long}: tokens decoded, the last of them seen ageNanos ago. */
    static final byte K_TOKENS = 2;
    /** {@code id:long}: the request finished normally. */
    static final byte K_COMPLETE = 3;
    /** {@code id:long}: the request ended abnormally. */
    static final byte K_ABORT = 4;
    /** {@code worker:string available:byte}: this replica's health checks marked the worker (by identity). */
    static final byte K_MARK = 5;
    /** {@code worker:string draining:byte}: an operator started or ended the worker's drain on this replica. */
    static final byte K_DRAIN = 6;

    /** Worker of a placement the dispatcher refused. */
    static final int REFUSED = -2;

    static final int HEADER_BYTES = 1 + 1 + 4 + 8 + 8 + 8;

    private Frames() {
    }

    /** A frame that cannot be read: dropped by the receiver, which repairs the stream as after a lost one. */
    static final class MalformedFrameException extends RuntimeException {
        MalformedFrameException(String message) {
            super(message);
        }
    }

    /** Builds frames in one growable array, reused frame after frame by its single (dispatch) thread. */
    static final class Writer {
        private byte[] buf = new byte[256];
        private int pos;

        /** Starts a frame; whatever was written before is dropped. */
        Writer begin(byte type, int session, long seq, long sentAtNanos, long oldestSeenNanos) {
            pos = 0;
            putByte(VERSION).putByte(type).putInt(session).putLong(seq).putLong(sentAtNanos).putLong(oldestSeenNanos);
            return this;
        }

        int size() {
            return pos;
        }

        /** Overwrites the header's oldestSeenNanos (known only once the body is written). */
        void oldestSeen(long nanos) {
            long v = nanos;
            for (int i = 7; i >= 0; i--) {
                buf[HEADER_BYTES - 8 + i] = (byte) v;
                v >>>= 8;
            }
        }

        Writer putByte(int b) {
            ensure(1);
            buf[pos++] = (byte) b;
            return this;
        }

        Writer putInt(int v) {
            ensure(4);
            buf[pos++] = (byte) (v >>> 24);
            buf[pos++] = (byte) (v >>> 16);
            buf[pos++] = (byte) (v >>> 8);
            buf[pos++] = (byte) v;
            return this;
        }

        Writer putLong(long v) {
            ensure(8);
            for (int i = 56; i >= 0; i -= 8) {
                buf[pos++] = (byte) (v >>> i);
            }
            return this;
        }

        Writer putString(String s) {
            byte[] b = s.getBytes(StandardCharsets.UTF_8);
            putInt(b.length);
            ensure(b.length);
            System.arraycopy(b, 0, buf, pos, b.length);
            pos += b.length;
            return this;
        }

        /** Appends what another writer holds (a body built apart from its header). */
        Writer putBytes(Writer other) {
            ensure(other.pos);
            System.arraycopy(other.buf, 0, buf, pos, other.pos);
            pos += other.pos;
            return this;
        }

        /** Drops what was written (a body writer between frames). */
        void clear() {
            pos = 0;
        }

        /** A copy of the frame: the store may keep it after the writer moves on. */
        byte[] toBytes() {
            return Arrays.copyOf(buf, pos);
        }

        private void ensure(int n) {
            if (pos + n > buf.length) {
                buf = Arrays.copyOf(buf, Math.max(buf.length * 2, pos + n));
            }
        }
    }

    /** Reads one frame; every getter throws {@link MalformedFrameException} past the end. */
    static final class Reader {
        private final ByteBuffer in;
        final byte type;
        final int session;
        final long seq;
        final long sentAtNanos;
        final long oldestSeenNanos;

        Reader(byte[] frame) {
            in = ByteBuffer.wrap(frame);
            if (frame.length < HEADER_BYTES) {
                throw new MalformedFrameException("a frame of " + frame.length + " bytes is shorter than its header");
            }
            byte version = in.get();
            if (version != VERSION) {
                throw new MalformedFrameException("frame version " + version + ", this router speaks " + VERSION);
            }
            type = in.get();
            session = in.getInt();
            seq = in.getLong();
            sentAtNanos = in.getLong();
            oldestSeenNanos = in.getLong();
        }

        boolean hasMore() {
            return in.hasRemaining();
        }

        byte getByte() {
            try {
                return in.get();
            } catch (BufferUnderflowException e) {
                throw truncated();
            }
        }

        int getInt() {
            try {
                return in.getInt();
            } catch (BufferUnderflowException e) {
                throw truncated();
            }
        }

        long getLong() {
            try {
                return in.getLong();
            } catch (BufferUnderflowException e) {
                throw truncated();
            }
        }

        /** A count of items that each take at least {@code minBytes}: never more than what is left. */
        int getCount(int minBytes) {
            int n = getInt();
            if (n < 0 || (long) n * minBytes > in.remaining()) {
                throw new MalformedFrameException("a count of " + n + " with " + in.remaining() + " bytes left");
            }
            return n;
        }

        String getString() {
            int n = getCount(1);
            String s = new String(in.array(), in.position(), n, StandardCharsets.UTF_8);
            in.position(in.position() + n);
            return s;
        }

        private MalformedFrameException truncated() {
            return new MalformedFrameException("a frame of type " + type + " ends early");
        }
    }
}
