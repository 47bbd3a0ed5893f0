package org.balanceroute.proxy.internal;

/**
 * What the router and the relay need from one streamed chunk, found in one pass over its JSON
 * bytes where they lie, with no tree and no {@code String}: whether it is an in-band error (a
 * top-level {@code error}), {@code usage.completion_tokens}, whether some choice carries
 * generated content ({@code text}, {@code delta.content}, {@code delta.reasoning_content} or a
 * non-empty {@code delta.tool_calls}: {@link TokenCounter}'s rule), and of the first choice the
 * generated text (as raw JSON string bytes), whether its {@code stop_reason} is
 * {@code "recomputed"}, and the chunk's {@code id}.
 *
 * <p>The scan validates as it goes (strings, escapes, numbers, literals, nesting) and answers
 * {@code false} for anything it does not take exactly as Jackson's tree would: malformed JSON, a
 * key or a {@code stop_reason} written with escapes, a key we read given twice,
 * {@code completion_tokens} that is not a plain integer, {@code choices} that is neither an array
 * nor null, nesting deeper than {@value #MAX_DEPTH}, bytes after the top-level value. The caller
 * then parses the chunk whole, as before; so the scan only ever adds speed, never a second
 * reading of the contract. Not thread-safe: one per stream, reused chunk after chunk.
 */
final class ChunkScan {

    static final int MAX_DEPTH = 64;

    private static final byte[] ID = bytes("id");
    private static final byte[] ERROR = bytes("error");
    private static final byte[] CHOICES = bytes("choices");
    private static final byte[] USAGE = bytes("usage");
    private static final byte[] COMPLETION_TOKENS = bytes("completion_tokens");
    private static final byte[] TEXT = bytes("text");
    private static final byte[] DELTA = bytes("delta");
    private static final byte[] CONTENT = bytes("content");
    private static final byte[] REASONING_CONTENT = bytes("reasoning_content");
    private static final byte[] TOOL_CALLS = bytes("tool_calls");
    private static final byte[] STOP_REASON = bytes("stop_reason");
    private static final byte[] RECOMPUTED = bytes(CompletionFlow.STOP_RECOMPUTED);
    private static final byte[] TRUE = bytes("true");
    private static final byte[] FALSE = bytes("false");
    private static final byte[] NULL = bytes("null");

    /** Not a JSON object of the kind the scan reads; the caller parses the chunk whole. */
    private static final class Unusual extends RuntimeException {
        private static final long serialVersionUID = 1L;
        static final Unusual INSTANCE = new Unusual();

        private Unusual() {
            super(null, null, false, false);
        }
    }

    // ---- what the last scan found
    /** The chunk is a JSON object (else nothing below applies: not counted, relayed as it came). */
    boolean object;
    /** A top-level {@code error}: an in-band error. */
    boolean error;
    /** {@code usage.completion_tokens} is there as an integer: {@link #completionTokens}. */
    boolean hasCompletionTokens;
    long completionTokens;
    /** Some choice carries generated content. */
    boolean content;
    /** The first choice's {@code stop_reason} is {@code "recomputed"}. */
    boolean recomputed;
    /** The chunk's {@code id} string, raw bytes {@code [idFrom, idTo)}; idFrom -1 if none. */
    int idFrom;
    int idTo;
    boolean idEscaped;
    /** The first choice's generated text ({@code text}, else {@code delta.content}), raw bytes; textFrom -1 if none. */
    int textFrom;
    int textTo;
    boolean textEscaped;

    private byte[] b;
    private int p;
    private int end;
    // the first choice's text and delta.content, kept apart: text wins when present (even as a non-string)
    private int firstTextFrom;
    private int firstTextTo;
    private boolean firstTextEscaped;
    private boolean firstHasTextKey;
    private int deltaFrom;
    private int deltaTo;
    private boolean deltaEscaped;
    // the last string read
    private int strFrom;
    private int strTo;
    private boolean strEscaped;

    /**
     * Scans {@code [from, to)} of {@code bytes}.
     *
     * @return false when the chunk must be parsed whole instead (see the class comment)
     */
    boolean scan(byte[] bytes, int from, int to) {
        b = bytes;
        p = from;
        end = to;
        object = false;
        error = false;
        hasCompletionTokens = false;
        completionTokens = 0;
        content = false;
        recomputed = false;
        idFrom = -1;
        textFrom = -1;
        firstTextFrom = -1;
        firstHasTextKey = false;
        deltaFrom = -1;
        try {
            ws();
            if (p < end && b[p] == '{') {
                object = true;
                top();
            } else {
                value(0);
            }
            ws();
            if (p != end) {
                return false; // bytes after the value
            }
        } catch (Unusual | ArrayIndexOutOfBoundsException e) {
            return false;
        } finally {
            b = null;
        }
        if (firstHasTextKey) {
            if (firstTextFrom >= 0) {
                textFrom = firstTextFrom;
                textTo = firstTextTo;
                textEscaped = firstTextEscaped;
            }
        } else if (deltaFrom >= 0) {
            textFrom = deltaFrom;
            textTo = deltaTo;
            textEscaped = deltaEscaped;
        }
        return true;
    }

    // ---------------------------------------------------------------- the fields read

    private void top() {
        boolean seenId = false;
        boolean seenError = false;
        boolean seenChoices = false;
        boolean seenUsage = false;
        p++; // {
        ws();
        if (peek() == '}') {
            p++;
            return;
        }
        while (true) {
            int k = key();
            if (is(k, ID)) {
                seenId = once(seenId);
                if (peek() == '"') {
                    string();
                    idFrom = strFrom;
                    idTo = strTo;
                    idEscaped = strEscaped;
                } else {
                    value(1);
                }
            } else if (is(k, ERROR)) {
                seenError = once(seenError);
                error = true;
                value(1);
            } else if (is(k, CHOICES)) {
                seenChoices = once(seenChoices);
                choices();
            } else if (is(k, USAGE)) {
                seenUsage = once(seenUsage);
                if (peek() == '{') {
                    usage();
                } else {
                    value(1);
                }
            } else {
                value(1);
            }
            if (!next('}')) {
                return;
            }
        }
    }

    private void choices() {
        byte c = peek();
        if (c == 'n') {
            literal();
            return;
        }
        if (c != '[') {
            throw Unusual.INSTANCE; // the tree would iterate an object's values, a string's none: not ours to guess
        }
        p++;
        ws();
        if (peek() == ']') {
            p++;
            return;
        }
        for (int index = 0; ; index++) {
            if (peek() == '{') {
                choice(index == 0);
            } else {
                value(2);
            }
            if (!next(']')) {
                return;
            }
        }
    }

    private void choice(boolean first) {
        boolean seenText = false;
        boolean seenDelta = false;
        boolean seenStop = false;
        p++; // {
        ws();
        if (peek() == '}') {
            p++;
            return;
        }
        while (true) {
            int k = key();
            if (is(k, TEXT)) {
                seenText = once(seenText);
                if (first) {
                    firstHasTextKey = true;
                }
                if (peek() == '"') {
                    string();
                    content |= strTo > strFrom;
                    if (first) {
                        firstTextFrom = strFrom;
                        firstTextTo = strTo;
                        firstTextEscaped = strEscaped;
                    }
                } else {
                    value(3);
                }
            } else if (is(k, DELTA)) {
                seenDelta = once(seenDelta);
                if (peek() == '{') {
                    delta(first);
                } else {
                    value(3);
                }
            } else if (is(k, STOP_REASON)) {
                seenStop = once(seenStop);
                if (peek() == '"') {
                    string();
                    if (first && strEscaped) {
                        throw Unusual.INSTANCE;
                    }
                    recomputed |= first && equal(strFrom, strTo, RECOMPUTED);
                } else {
                    value(3);
                }
            } else {
                value(3);
            }
            if (!next('}')) {
                return;
            }
        }
    }

    private void delta(boolean first) {
        boolean seenContent = false;
        boolean seenReasoning = false;
        boolean seenTools = false;
        p++; // {
        ws();
        if (peek() == '}') {
            p++;
            return;
        }
        while (true) {
            int k = key();
            if (is(k, CONTENT)) {
                seenContent = once(seenContent);
                if (peek() == '"') {
                    string();
                    content |= strTo > strFrom;
                    if (first) {
                        deltaFrom = strFrom;
                        deltaTo = strTo;
                        deltaEscaped = strEscaped;
                    }
                } else {
                    value(4);
                }
            } else if (is(k, REASONING_CONTENT)) {
                seenReasoning = once(seenReasoning);
                if (peek() == '"') {
                    string();
                    content |= strTo > strFrom;
                } else {
                    value(4);
                }
            } else if (is(k, TOOL_CALLS)) {
                seenTools = once(seenTools);
                byte c = peek();
                if (c == '[' || c == '{') {
                    int open = p;
                    p++;
                    ws();
                    boolean empty = peek() == (c == '[' ? ']' : '}');
                    p = open;
                    content |= !empty;
                }
                value(4);
            } else {
                value(4);
            }
            if (!next('}')) {
                return;
            }
        }
    }

    private void usage() {
        boolean seenCompletion = false;
        p++; // {
        ws();
        if (peek() == '}') {
            p++;
            return;
        }
        while (true) {
            int k = key();
            if (is(k, COMPLETION_TOKENS)) {
                seenCompletion = once(seenCompletion);
                byte c = peek();
                if (c == '-' || (c >= '0' && c <= '9')) {
                    completionTokens = integer();
                    hasCompletionTokens = true;
                } else {
                    value(2); // null (absent for the counter) or a string, which the tree does not count as a number either
                }
            } else {
                value(2);
            }
            if (!next('}')) {
                return;
            }
        }
    }

    /** A key we read seen a second time: the tree keeps the last, we do not guess. */
    private static boolean once(boolean seen) {
        if (seen) {
            throw Unusual.INSTANCE;
        }
        return true;
    }

    // ---------------------------------------------------------------- JSON, validated

    private void ws() {
        while (p < end) {
            byte c = b[p];
            if (c == ' ' || c == '\n' || c == '\r' || c == '\t') {
                p++;
            } else {
                return;
            }
        }
    }

    private byte peek() {
        if (p >= end) {
            throw Unusual.INSTANCE;
        }
        return b[p];
    }

    /** After a member or element: true at a comma (more follow), false at {@code close}. */
    private boolean next(char close) {
        ws();
        byte c = peek();
        p++;
        if (c == ',') {
            ws();
            return true;
        }
        if (c == close) {
            return false;
        }
        throw Unusual.INSTANCE;
    }

    /** A member's key and its colon; returns the key's length, its bytes at {@code [strFrom, strTo)}. */
    private int key() {
        if (peek() != '"') {
            throw Unusual.INSTANCE;
        }
        string();
        if (strEscaped) {
            throw Unusual.INSTANCE; // the key might spell one we read
        }
        ws();
        if (peek() != ':') {
            throw Unusual.INSTANCE;
        }
        p++;
        ws();
        return strTo - strFrom;
    }

    private boolean is(int keyLength, byte[] name) {
        return keyLength == name.length && equal(strFrom, strTo, name);
    }

    private boolean equal(int from, int to, byte[] name) {
        if (to - from != name.length) {
            return false;
        }
        for (int i = 0; i < name.length; i++) {
            if (b[from + i] != name[i]) {
                return false;
            }
        }
        return true;
    }

    /** A string at {@code p}; its raw content (escapes as written) at {@code [strFrom, strTo)}. */
    private void string() {
        p++; // "
        strFrom = p;
        strEscaped = false;
        while (true) {
            if (p >= end) {
                throw Unusual.INSTANCE;
            }
            byte c = b[p];
            if (c == '"') {
                strTo = p;
                p++;
                return;
            }
            if (c == '\\') {
                strEscaped = true;
                p++;
                byte e = peek();
                if (e == 'u') {
                    for (int i = 1; i <= 4; i++) {
                        if (p + i >= end || Character.digit(b[p + i], 16) < 0) {
                            throw Unusual.INSTANCE;
                        }
                    }
                    p += 5;
                } else if (e == '"' || e == '\\' || e == '/' || e == 'b' || e == 'f' || e == 'n' || e == 'r'
                        || e == 't') {
                    p++;
                } else {
                    throw Unusual.INSTANCE;
                }
            } else if (c >= 0 && c < 0x20) {
                throw Unusual.INSTANCE; // a raw control character: not JSON
            } else {
                p++;
            }
        }
    }

    /** Any value, skipped (validated); {@code depth} the nesting it sits at. */
    private void value(int depth) {
        if (depth > MAX_DEPTH) {
            throw Unusual.INSTANCE;
        }
        byte c = peek();
        switch (c) {
            case '"' -> string();
            case '{' -> {
                p++;
                ws();
                if (peek() == '}') {
                    p++;
                    return;
                }
                do {
                    key();
                    value(depth + 1);
                } while (next('}'));
            }
            case '[' -> {
                p++;
                ws();
                if (peek() == ']') {
                    p++;
                    return;
                }
                do {
                    value(depth + 1);
                } while (next(']'));
            }
            case 't', 'f', 'n' -> literal();
            default -> number();
        }
    }

    private void literal() {
        byte[] word = b[p] == 't' ? TRUE : b[p] == 'f' ? FALSE : NULL;
        if (p + word.length > end || !equal(p, p + word.length, word)) {
            throw Unusual.INSTANCE;
        }
        p += word.length;
    }

    /** A JSON number (grammar checked: no leading zeros, digits after a point or an exponent). */
    private void number() {
        if (peek() == '-') {
            p++;
        }
        int digits = digits();
        if (digits == 0 || (digits > 1 && b[p - digits] == '0')) {
            throw Unusual.INSTANCE;
        }
        if (p < end && b[p] == '.') {
            p++;
            if (digits() == 0) {
                throw Unusual.INSTANCE;
            }
        }
        if (p < end && (b[p] == 'e' || b[p] == 'E')) {
            p++;
            if (p < end && (b[p] == '+' || b[p] == '-')) {
                p++;
            }
            if (digits() == 0) {
                throw Unusual.INSTANCE;
            }
        }
    }

    private int digits() {
        int start = p;
        while (p < end && b[p] >= '0' && b[p] <= '9') {
            p++;
        }
        return p - start;
    }

    /** A plain integer that fits in a long; anything else (a fraction, an exponent, too long) is unusual. */
    private long integer() {
        int start = p;
        boolean negative = b[p] == '-';
        number();
        int from = negative ? start + 1 : start;
        int n = p - from;
        if (n > 18) {
            throw Unusual.INSTANCE;
        }
        long v = 0;
        for (int i = from; i < p; i++) {
            byte c = b[i];
            if (c < '0' || c > '9') {
                throw Unusual.INSTANCE;
            }
            v = v * 10 + (c - '0');
        }
        return negative ? -v : v;
    }

    private static byte[] bytes(String s) {
        return s.getBytes(java.nio.charset.StandardCharsets.US_ASCII);
    }
}
