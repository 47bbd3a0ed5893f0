package org.balanceroute.enginesim.internal;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.eclipse.jetty.io.content.AsyncContent;
import org.eclipse.jetty.util.Callback;
import org.eclipse.jetty.util.Promise;
import org.junit.jupiter.api.Test;

/** The asynchronous body read: the body as it arrives, its limit, a client gone mid-body. */
class BodyReaderTest {

    final AsyncContent source = new AsyncContent();
    final AtomicReference<byte[]> body = new AtomicReference<>();
    final AtomicReference<Throwable> failure = new AtomicReference<>();
    final Promise<byte[]> promise = new Promise<>() {
        @Override
        public void succeeded(byte[] result) {
            body.set(result);
        }

        @Override
        public void failed(Throwable x) {
            failure.set(x);
        }
    };

    static ByteBuffer bytes(String s) {
        return ByteBuffer.wrap(s.getBytes(StandardCharsets.UTF_8));
    }

    @Test
    void aBodyInPiecesIsReadAsTheyArriveWithoutWaiting() {
        BodyReader.read(source, -1, 1024, promise);
        assertNull(body.get(), "nothing yet: the reader returned, it did not wait");
        source.write(false, bytes("{\"prompt\": "), Callback.NOOP);
        assertNull(body.get());
        source.write(false, bytes("\"hi\""), Callback.NOOP);
        source.write(true, bytes("}"), Callback.NOOP);
        assertEquals("{\"prompt\": \"hi\"}", new String(body.get(), StandardCharsets.UTF_8));
        assertNull(failure.get());
    }

    @Test
    void aBodyAlreadyThereIsReadOnTheCallersThread() {
        source.write(true, bytes("{}"), Callback.NOOP);
        BodyReader.read(source, 2, 1024, promise);
        assertArrayEquals("{}".getBytes(StandardCharsets.UTF_8), body.get());
    }

    @Test
    void aBodyOfItsDeclaredLengthIsWholeWithoutWaitingForTheEnd() {
        BodyReader.read(source, 600, 1024, promise);
        source.write(false, bytes("a".repeat(300)), Callback.NOOP);
        assertNull(body.get());
        source.write(false, bytes("b".repeat(300)), Callback.NOOP);
        assertEquals(600, body.get().length, "whole at its declared length, before the end of the content");
        assertEquals('b', body.get()[599]);
        assertNull(failure.get());
    }

    @Test
    void anEmptyBodyIsZeroBytes() {
        source.close();
        BodyReader.read(source, 0, 1024, promise);
        assertEquals(0, body.get().length);
    }

    @Test
    void aDeclaredLengthOverTheLimitFailsBeforeAnythingIsRead() {
        AtomicBoolean consumed = new AtomicBoolean();
        source.write(false, bytes("x"), Callback.from(() -> consumed.set(true)));
        BodyReader.read(source, 1025, 1024, promise);
        assertInstanceOf(BodyReader.TooLarge.class, failure.get());
        assertTrue(failure.get().getMessage().contains("1024 bytes"), failure.get().getMessage());
        assertFalse(consumed.get(), "not read");
        assertNull(body.get());
    }

    @Test
    void aChunkedBodyFailsAsSoonAsItPassesTheLimit() {
        BodyReader.read(source, -1, 10, promise);
        source.write(false, bytes("0123456789"), Callback.NOOP);
        assertNull(failure.get(), "exactly the limit is fine");
        AtomicBoolean released = new AtomicBoolean();
        source.write(false, bytes("a"), Callback.from(() -> released.set(true)));
        assertInstanceOf(BodyReader.TooLarge.class, failure.get());
        assertTrue(released.get(), "the chunk over the limit is released");
        assertNull(body.get());
    }

    @Test
    void aBodyOfExactlyTheLimitIsRead() {
        BodyReader.read(source, 10, 10, promise);
        source.write(true, bytes("0123456789"), Callback.NOOP);
        assertEquals("0123456789", new String(body.get(), StandardCharsets.UTF_8));
    }

    @Test
    void aClientGoneMidBodyFailsTheRead() {
        BodyReader.read(source, 100, 1024, promise);
        source.write(false, bytes("{\"pro"), Callback.NOOP);
        IOException gone = new IOException("early EOF");
        source.fail(gone);
        assertEquals(gone, failure.get());
        assertNull(body.get());
    }
}
