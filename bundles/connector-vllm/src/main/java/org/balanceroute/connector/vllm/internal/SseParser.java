package org.balanceroute.connector.vllm.internal;

import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.function.Consumer;

/**
 * Incremental Server-Sent Events parser: fed the body in arbitrary byte chunks, hands each
 * event's data (its {@code data:} lines joined by newlines) to the consumer as soon as the blank
 * line ending it arrives. Lines end in LF, CRLF or CR; comments ({@code :}) and other fields
 * ({@code event:}, {@code id:}, {@code retry:}) are ignored. Not thread-safe: one per stream,
 * fed in order.
 */
public final class SseParser {

    private final Consumer<String> events;
    private final ByteArrayOutputStream line = new ByteArrayOutputStream(256);
    private final StringBuilder data = new StringBuilder();
    private boolean hasData;
    private boolean lastWasCr;

    public SseParser(Consumer<String> events) {
        this.events = events;
    }

    public void feed(ByteBuffer chunk) {
        while (chunk.hasRemaining()) {
            byte b = chunk.get();
            if (b == '\n' && lastWasCr) {
                lastWasCr = false;
                continue;
            }
            lastWasCr = b == '\r';
            if (b == '\n' || b == '\r') {
                endLine();
            } else {
                line.write(b);
            }
        }
    }

    /** The body ended: an event not yet terminated by a blank line is dispatched. */
    public void finish() {
        if (line.size() > 0) {
            endLine();
        }
        endLine();
    }

    private void endLine() {
        if (line.size() == 0) {
            if (hasData) {
                String d = data.toString();
                data.setLength(0);
                hasData = false;
                events.accept(d);
            }
            return;
        }
        String l = line.toString(StandardCharsets.UTF_8);
        line.reset();
        if (l.startsWith("data:")) {
            String v = l.substring(5);
            if (v.startsWith(" ")) {
                v = v.substring(1);
            }
            if (hasData) {
                data.append('\n');
            }
            data.append(v);
            hasData = true;
        }
    }
}
