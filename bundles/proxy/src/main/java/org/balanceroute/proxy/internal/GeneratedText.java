package org.balanceroute.proxy.internal;

import com.fasterxml.jackson.core.io.JsonStringEncoder;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * The text streamed to a client so far, kept to continue from after a recomputation. Kept as it
 * came on the wire (the JSON string contents, escapes and all, appended chunk after chunk) and
 * decoded only when a continuation needs it, so that keeping it costs a small copy per chunk
 * and no {@code String}.
 */
final class GeneratedText {

    private static final ObjectMapper MAPPER = new ObjectMapper();

    private byte[] raw = new byte[256];
    private int length;

    /** Appends raw JSON string contents, bytes {@code [from, to)} of {@code bytes} (between the quotes, escapes kept). */
    void appendRaw(byte[] bytes, int from, int to) {
        int n = to - from;
        if (length + n > raw.length) {
            raw = Arrays.copyOf(raw, Math.max(length + n, raw.length * 2));
        }
        System.arraycopy(bytes, from, raw, length, n);
        length += n;
    }

    /** Appends decoded text (a chunk parsed whole). */
    void append(String text) {
        byte[] escaped = JsonStringEncoder.getInstance().quoteAsUTF8(text);
        appendRaw(escaped, 0, escaped.length);
    }

    /** The text, decoded. */
    String text() {
        byte[] quoted = new byte[length + 2];
        quoted[0] = '"';
        System.arraycopy(raw, 0, quoted, 1, length);
        quoted[length + 1] = '"';
        try {
            return MAPPER.readValue(quoted, String.class);
        } catch (IOException cannotHappen) {
            // the contents of valid JSON strings, or Jackson's own escaping
            return new String(raw, 0, length, StandardCharsets.UTF_8);
        }
    }
}
