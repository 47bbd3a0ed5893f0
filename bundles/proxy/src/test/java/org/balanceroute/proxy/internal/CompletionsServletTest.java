package org.balanceroute.proxy.internal;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import jakarta.servlet.ReadListener;
import jakarta.servlet.ServletInputStream;
import jakarta.servlet.http.HttpServletRequest;
import java.io.ByteArrayInputStream;
import java.lang.reflect.Proxy;
import java.util.Arrays;
import org.junit.jupiter.api.Test;

class CompletionsServletTest {

    @Test
    void anEmptyBodyIsReadAsNoBytes() throws Exception {
        assertEquals(0, CompletionsServlet.read(request(new byte[0], 0), 1024).length);
        assertEquals(0, CompletionsServlet.read(request(new byte[0], -1), 1024).length);
    }

    @Test
    void aBodyIsReadWholeWithOrWithoutItsLength() throws Exception {
        byte[] body = new byte[20_000];
        Arrays.fill(body, (byte) 'x');
        assertArrayEquals(body, CompletionsServlet.read(request(body, body.length), 1 << 20));
        assertArrayEquals(body, CompletionsServlet.read(request(body, -1), 1 << 20));
    }

    @Test
    void noMoreThanOneBytePastTheLimitIsRead() throws Exception {
        byte[] body = new byte[50_000];
        assertEquals(10_001, CompletionsServlet.read(request(body, -1), 10_000).length);
        assertEquals(10_001, CompletionsServlet.read(request(body, body.length), 10_000).length);
        assertEquals(10_000, CompletionsServlet.read(request(new byte[10_000], -1), 10_000).length);
    }

    private static HttpServletRequest request(byte[] body, long declaredLength) {
        ByteArrayInputStream in = new ByteArrayInputStream(body);
        ServletInputStream stream = new ServletInputStream() {
            @Override
            public int read() {
                return in.read();
            }

            @Override
            public int read(byte[] b, int off, int len) {
                int n = in.read(b, off, Math.min(len, 4096)); // as a socket does: a part at a time
                return len == 0 ? 0 : n;
            }

            @Override
            public boolean isFinished() {
                return in.available() == 0;
            }

            @Override
            public boolean isReady() {
                return true;
            }

            @Override
            public void setReadListener(ReadListener l) {
            }
        };
        return (HttpServletRequest) Proxy.newProxyInstance(CompletionsServletTest.class.getClassLoader(),
                new Class<?>[] {HttpServletRequest.class}, (p, m, a) -> switch (m.getName()) {
                    case "getContentLengthLong" -> declaredLength;
                    case "getInputStream" -> stream;
                    default -> throw new UnsupportedOperationException(m.getName());
                });
    }
}
