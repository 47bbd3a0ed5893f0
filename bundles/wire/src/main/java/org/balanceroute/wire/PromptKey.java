package org.balanceroute.wire;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.POJONode;

/**
 * A prompt's identity, the key the exact-match predictor learns output lengths under: FNV-1a
 * over the prompt's JSON tree (the completions {@code prompt}, or the chat {@code messages}),
 * node type included ({@code "1"} is not {@code 1}), never 0 (0 means "no key"). One rule for
 * every reader: a list of token ids hashed id by id while it is scanned ({@link Ids}), the same
 * list read as a tree ({@link #of}), or a trace's list of block ids, all get the same key.
 * Deterministic across runs and JVMs, unlike {@code hashCode} of boxed collections.
 */
public final class PromptKey {

    private PromptKey() {
    }

    /**
     * The key of a prompt tree; a {@link TokenIdPrompt} kept verbatim brings the key it was
     * given when it was read. The tree is walked, not serialised: a prompt of 100k ids would
     * otherwise be written out once more per request only to be hashed.
     */
    public static long of(JsonNode prompt) {
        if (prompt instanceof POJONode pojo && pojo.getPojo() instanceof TokenIdPrompt ids) {
            return ids.key();
        }
        return Ids.nonZero(hash(Ids.OFFSET, prompt));
    }

    /**
     * The key of a flat list of ids, fed id by id as it is read; the key {@link #of} gives that
     * list. Needs no JSON library (the trace reader has none, and loading this class loads none):
     * the two node types it mixes in are written as the numbers {@link #hash} mixes for them.
     */
    public static final class Ids {
        static final long OFFSET = 0xcbf29ce484222325L; // FNV-1a 64-bit offset basis
        static final long PRIME = 0x100000001b3L;
        /** {@code JsonNodeType.ARRAY.ordinal() + 1}. */
        static final int ARRAY = 1;
        /** {@code JsonNodeType.NUMBER.ordinal() + 1}. */
        static final int NUMBER = 6;

        private long h = mix(OFFSET, ARRAY);

        public void add(long id) {
            h = mix(mix(h, NUMBER), id);
        }

        /** @param count the ids added */
        public long key(int count) {
            return nonZero(mix(h, count));
        }

        static long mix(long h, long v) {
            return (h ^ v) * PRIME;
        }

        static long nonZero(long h) {
            return h == 0 ? 1 : h;
        }
    }

    private static long text(long h, String t) {
        for (int i = 0; i < t.length(); i++) {
            h = Ids.mix(h, t.charAt(i));
        }
        return h;
    }

    private static long hash(long h, JsonNode n) {
        h = Ids.mix(h, n.getNodeType().ordinal() + 1); // the type is part of the identity: "1" is not 1
        if (n.isTextual()) {
            h = text(h, n.textValue());
        } else if (n.isIntegralNumber() && n.canConvertToLong()) {
            h = Ids.mix(h, n.longValue());
        } else if (n.isArray()) {
            for (int i = 0, size = n.size(); i < size; i++) {
                h = hash(h, n.get(i));
            }
            h = Ids.mix(h, n.size());
        } else if (n.isObject()) {
            for (var it = n.fields(); it.hasNext(); ) {
                var e = it.next();
                h = hash(text(h, e.getKey()), e.getValue());
            }
        } else if (!n.isMissingNode() && !n.isNull()) {
            h = text(h, n.asText());
        }
        return h;
    }
}
