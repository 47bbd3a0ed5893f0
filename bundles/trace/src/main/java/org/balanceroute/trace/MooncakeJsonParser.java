package org.balanceroute.trace;

import org.balanceroute.wire.PromptKey;

/**
 * Mooncake JSON lines, one flat object per line:
 * {@code {"timestamp": 27482, "input_length": 6955, "output_length": 52, "hash_ids": [46, 47]}}.
 * Keys may come in any order with any JSON whitespace; all four are required, others and
 * duplicates are rejected. A hand-written scanner rather than a JSON library keeps the
 * bundle free of one, and reads the 3 MB trace in well under a second on a cold JVM.
 */
final class MooncakeJsonParser implements RowParser {

    private static final String TIMESTAMP = "timestamp";
    private static final String INPUT = "input_length";
    private static final String OUTPUT = "output_length";
    private static final String HASH_IDS = "hash_ids";
    private static final String[] KEYS = {TIMESTAMP, INPUT, OUTPUT, HASH_IDS};

    private final int promptPrefixBlocks;

    // Scanner state for the line being parsed.
    private String line;
    private int pos;

    /** @param promptPrefixBlocks leading hash ids that make up the prompt key; 0 = all */
    MooncakeJsonParser(int promptPrefixBlocks) {
        this.promptPrefixBlocks = promptPrefixBlocks;
    }

    @Override
    public TraceFormat format() {
        return TraceFormat.MOONCAKE;
    }

    @Override
    public Row parse(String text) throws LineException {
        line = text;
        pos = 0;
        long timestampMs = 0;
        int input = 0;
        int output = 0;
        long promptKey = TraceRequest.NO_PROMPT_KEY;
        boolean[] seen = new boolean[KEYS.length];

        skipWhitespace();
        expect('{');
        skipWhitespace();
        if (peek() == '}') {
            pos++;
        } else {
            while (true) {
                String key = key();
                skipWhitespace();
                expect(':');
                skipWhitespace();
                int index = indexOfKey(key);
                if (seen[index]) {
                    throw new LineException(key, "duplicate key");
                }
                seen[index] = true;
                switch (key) {
                    case TIMESTAMP -> timestampMs = Fields.nonNegativeLong(valueText(key), key);
                    case INPUT -> input = Fields.tokens(valueText(key), key);
                    case OUTPUT -> output = Fields.tokens(valueText(key), key);
                    case HASH_IDS -> promptKey = hashIds();
                }
                skipWhitespace();
                char c = next();
                if (c == '}') {
                    break;
                }
                if (c != ',') {
                    throw unexpected("',' or '}'", pos - 1);
                }
                skipWhitespace();
            }
        }
        skipWhitespace();
        if (pos < line.length()) {
            throw new LineException(null, "unexpected text after the JSON object at column "
                    + (pos + 1) + ": " + Fields.quote(line.substring(pos)));
        }
        for (int i = 0; i < KEYS.length; i++) {
            if (!seen[i]) {
                throw new LineException(KEYS[i], "missing");
            }
        }
        return new Row(timestampMs / 1000.0, input, output, promptKey);
    }

    private int indexOfKey(String key) throws LineException {
        for (int i = 0; i < KEYS.length; i++) {
            if (KEYS[i].equals(key)) {
                return i;
            }
        }
        throw new LineException(key, "unexpected key (expected timestamp, input_length, output_length, hash_ids)");
    }

    /**
     * A prompt's key is the key of its (leading) block ids as a list, by the one rule the proxy
     * keys a token-id prompt by ({@link PromptKey}); no ids, no key.
     */
    private static long keyOf(PromptKey.Ids key, int hashed) {
        return hashed == 0 ? TraceRequest.NO_PROMPT_KEY : key.key(hashed);
    }

    /** Parses {@code [id, ...]} and returns the prompt key of its leading ids. */
    private long hashIds() throws LineException {
        if (peek() != '[') {
            throw new LineException(HASH_IDS, "expected an array of non-negative integers, got "
                    + Fields.quote(line.substring(pos)));
        }
        pos++;
        skipWhitespace();
        PromptKey.Ids key = new PromptKey.Ids();
        int hashed = 0;
        if (peek() == ']') {
            pos++;
            return keyOf(key, hashed);
        }
        for (int index = 0; ; index++) {
            long id = hashId(index);
            if (promptPrefixBlocks == 0 || index < promptPrefixBlocks) {
                key.add(id);
                hashed++;
            }
            skipWhitespace();
            char c = next();
            if (c == ']') {
                return keyOf(key, hashed);
            }
            if (c != ',') {
                throw unexpected("',' or ']' in hash_ids", pos - 1);
            }
            skipWhitespace();
        }
    }

    /**
     * One block id. Hash ids are nearly all the numbers in the file, so plain digits are read
     * in place; anything else takes the general path, which also builds the error message.
     */
    private long hashId(int index) throws LineException {
        int start = pos;
        long value = 0;
        while (pos < line.length() && line.charAt(pos) >= '0' && line.charAt(pos) <= '9') {
            value = value * 10 + (line.charAt(pos++) - '0');
        }
        int length = pos - start;
        // 18 digits cannot overflow a long; a leading zero or a non-delimiter needs a message.
        boolean plain = length > 0 && length <= 18 && (length == 1 || line.charAt(start) != '0')
                && (pos == line.length() || endsNumber(line.charAt(pos)));
        if (plain) {
            return value;
        }
        pos = start;
        String field = HASH_IDS + "[" + index + "]";
        return Fields.nonNegativeLong(valueText(field), field);
    }

    /** A quoted key; JSON escapes are not supported, since no Mooncake key needs one. */
    private String key() throws LineException {
        int start = pos;
        if (next() != '"') {
            throw unexpected("a quoted key", start);
        }
        int end = line.indexOf('"', pos);
        if (end < 0) {
            throw new LineException(null, "unterminated key at column " + (start + 1));
        }
        String key = line.substring(pos, end);
        if (key.indexOf('\\') >= 0) {
            throw new LineException(null, "escaped characters in key at column " + (start + 1));
        }
        pos = end + 1;
        return key;
    }

    /**
     * The text of a value up to the next delimiter, for the field parsers to judge. JSON
     * forbids leading zeros, so they are rejected here rather than read as decimal.
     */
    private String valueText(String field) throws LineException {
        int start = pos;
        while (pos < line.length() && !endsNumber(line.charAt(pos))) {
            pos++;
        }
        String token = line.substring(start, pos);
        if (token.length() > 1 && token.charAt(0) == '0') {
            throw new LineException(field, "JSON numbers have no leading zeros, got " + Fields.quote(token));
        }
        return token;
    }

    private void skipWhitespace() {
        while (pos < line.length() && isWhitespace(line.charAt(pos))) {
            pos++;
        }
    }

    /** JSON whitespace, which is narrower than Java's. */
    private static boolean isWhitespace(char c) {
        return c == ' ' || c == '\t' || c == '\r' || c == '\n';
    }

    /** What ends a number: the next member or element, the end of a container, whitespace. */
    private static boolean endsNumber(char c) {
        return c == ',' || c == '}' || c == ']' || isWhitespace(c);
    }

    /** The next character without consuming it; NUL at the end of the line. */
    private char peek() {
        return pos < line.length() ? line.charAt(pos) : '\0';
    }

    private char next() throws LineException {
        if (pos >= line.length()) {
            throw new LineException(null, "line ends in the middle of the JSON object");
        }
        return line.charAt(pos++);
    }

    private void expect(char c) throws LineException {
        int at = pos;
        if (next() != c) {
            throw unexpected("'" + c + "'", at);
        }
    }

    private LineException unexpected(String expected, int at) {
        return new LineException(null, "expected " + expected + " at column " + (at + 1) + ", got "
                + Fields.quote(line.substring(at)));
    }
}
