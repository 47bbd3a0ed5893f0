package org.balanceroute.connector.vllm.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.util.concurrent.atomic.AtomicBoolean;
import org.eclipse.jetty.io.Content;
import org.junit.jupiter.api.Test;

class OneShotBytesContentTest {

    @Test
    void givesItsBytesOnceThenEofAndKeepsNoCopy() {
        byte[] body = "{\"prompt\": [1, 2, 3]}".getBytes(StandardCharsets.UTF_8);
        OneShotBytesContent c = new OneShotBytesContent("application/json", body);
        assertEquals(body.length, c.getLength());
        assertEquals("application/json", c.getContentType());
        AtomicBoolean called = new AtomicBoolean();
        c.demand(() -> called.set(true));
        assertTrue(called.get(), "always readable");
        Content.Chunk first = c.read();
        assertTrue(first.isLast());
        byte[] got = new byte[first.getByteBuffer().remaining()];
        first.getByteBuffer().get(got);
        assertEquals(new String(body, StandardCharsets.UTF_8), new String(got, StandardCharsets.UTF_8));
        assertSame(Content.Chunk.EOF, c.read(), "the bytes are handed over once");
        assertFalse(c.rewind(), "cannot be sent again: the connector builds a new request instead");
    }

    @Test
    void aFailureLetsGoOfTheBytes() {
        OneShotBytesContent c = new OneShotBytesContent("application/json", new byte[] {'{', '}'});
        c.fail(new RuntimeException("connect failed"));
        assertSame(Content.Chunk.EOF, c.read());
    }
}
