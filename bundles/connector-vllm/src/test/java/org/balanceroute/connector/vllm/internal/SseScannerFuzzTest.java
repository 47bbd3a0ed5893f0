package org.balanceroute.connector.vllm.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import com.code_intelligence.jazzer.junit.FuzzTest;
import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import org.balanceroute.connector.vllm.SseScanner;

/**
 * The decode relay's SSE reader against a plain reference reader written from its contract
 * (lines end in LF, CRLF or CR; {@code data:} lines, one space dropped, joined by newlines; a
 * blank line or the end dispatches an event that has data; every other line is skipped), over any
 * bytes, cut into any buffers (heap with an offset, or direct), the way the HTTP client hands them
 * over. The events must be the same, byte for byte, and nothing may throw. The committed inputs
 * ({@code SseScannerFuzzTestInputs/}) replay in every build; {@code JAZZER_FUZZ=1} fuzzes.
 */
class SseScannerFuzzTest {

    @FuzzTest(maxDuration = "3m")
    void eventsDoNotDependOnHowTheStreamIsCut(FuzzedDataProvider data) {
        int pieces = data.consumeInt(1, 16);
        int[] cuts = new int[pieces - 1];
        for (int i = 0; i < cuts.length; i++) {
            cuts[i] = data.consumeInt(0, 1 << 12);
        }
        boolean direct = data.consumeBoolean();
        byte[] stream = data.consumeRemainingAsBytes();

        List<String> expected = reference(stream);
        List<String> got = new ArrayList<>();
        SseScanner scanner = new SseScanner((b, off, len) -> {
            byte[] copy = new byte[len];
            b.get(off, copy, 0, len);
            got.add(new String(copy, java.nio.charset.StandardCharsets.ISO_8859_1));
        });
        int at = 0;
        for (int i = 0; i <= cuts.length; i++) {
            int end = i < cuts.length ? Math.min(stream.length, at + cuts[i]) : stream.length;
            scanner.feed(buffer(stream, at, end, direct));
            at = end;
        }
        scanner.finish();
        assertEquals(expected, got);
    }

    /** {@code stream[from, to)} in a buffer whose position is not 0 (or a direct one). */
    private static ByteBuffer buffer(byte[] stream, int from, int to, boolean direct) {
        int n = to - from;
        if (direct) {
            ByteBuffer b = ByteBuffer.allocateDirect(n + 3);
            b.position(3);
            b.put(stream, from, n);
            b.position(3);
            return b;
        }
        byte[] a = new byte[n + 7];
        System.arraycopy(stream, from, a, 5, n);
        return ByteBuffer.wrap(a, 5, n).slice(); // an array offset of 5
    }

    /** The contract, read slowly. */
    static List<String> reference(byte[] s) {
        List<String> events = new ArrayList<>();
        ByteArrayOutputStream data = new ByteArrayOutputStream();
        boolean has = false;
        int i = 0;
        while (i <= s.length) {
            int j = i;
            while (j < s.length && s[j] != '\n' && s[j] != '\r') {
                j++;
            }
            boolean ended = j < s.length;
            String line = new String(s, i, j - i, java.nio.charset.StandardCharsets.ISO_8859_1);
            if (!ended && line.isEmpty()) {
                break;
            }
            if (line.isEmpty()) {
                if (has) {
                    events.add(data.toString(java.nio.charset.StandardCharsets.ISO_8859_1));
                    data.reset();
                    has = false;
                }
            } else if (line.startsWith("data:")) {
                String v = line.substring(5);
                if (v.startsWith(" ")) {
                    v = v.substring(1);
                }
                if (has) {
                    data.write('\n');
                }
                data.writeBytes(v.getBytes(java.nio.charset.StandardCharsets.ISO_8859_1));
                has = true;
            }
            if (!ended) {
                break;
            }
            i = j + (s[j] == '\r' && j + 1 < s.length && s[j + 1] == '\n' ? 2 : 1);
        }
        if (has) {
            events.add(data.toString(java.nio.charset.StandardCharsets.ISO_8859_1));
        }
        return events;
    }
}
