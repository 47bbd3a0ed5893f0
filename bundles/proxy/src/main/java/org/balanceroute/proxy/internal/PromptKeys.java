package org.balanceroute.proxy.internal;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeType;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.databind.node.POJONode;
import org.balanceroute.connector.vllm.TokenIdPrompt;

/**
 * Prompt identity for the exact-match predictor: FNV-1a over the prompt (completions) or the
 * messages (chat) as a JSON tree, never 0. The tree is walked, not serialised: a prompt of 100k
 * ids would otherwise be written out once more per request only to be hashed. A token-id prompt
 * the validator kept verbatim ({@link TokenIdPrompt}) was hashed while it was read, by the same
 * rule ({@link #ids}), so a prompt has one key whichever way it was read.
 */
final class PromptKeys {

    private static final long OFFSET = 0xcbf29ce484222325L;
    private static final long PRIME = 0x100000001b3L;

    private PromptKeys() {
    }

    static long of(Endpoint endpoint, ObjectNode body) {
        JsonNode n = body.path(endpoint == Endpoint.COMPLETIONS ? "prompt" : "messages");
        if (n instanceof POJONode pojo && pojo.getPojo() instanceof TokenIdPrompt ids) {
            return ids.key();
        }
        return nonZero(hash(OFFSET, n));
    }

    /** The key of a flat token-id list, fed id by id while it is read. */
    static final class Ids {
        private long h = mix(OFFSET, JsonNodeType.ARRAY.ordinal() + 1);

        void add(long id) {
            h = mix(mix(h, JsonNodeType.NUMBER.ordinal() + 1), id);
        }

        long key(int count) {
            return nonZero(mix(h, count));
        }
    }

    private static long nonZero(long h) {
        return h == 0 ? 1 : h;
    }

    private static long mix(long h, long v) {
        return (h ^ v) * PRIME;
    }

    private static long text(long h, String t) {
        for (int i = 0; i < t.length(); i++) {
            h = mix(h, t.charAt(i));
        }
        return h;
    }

    private static long hash(long h, JsonNode n) {
        h = mix(h, n.getNodeType().ordinal() + 1); // the type is part of the identity: "1" is not 1
        if (n.isTextual()) {
            h = text(h, n.textValue());
        } else if (n.isIntegralNumber() && n.canConvertToLong()) {
            h = mix(h, n.longValue());
        } else if (n.isArray()) {
            for (int i = 0, size = n.size(); i < size; i++) {
                h = hash(h, n.get(i));
            }
            h = mix(h, n.size());
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
