package org.balanceroute.wire;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.databind.node.POJONode;

/**
 * s_i, a prompt's length in tokens, where no tokenizer runs (the proxy in co-located mode, the
 * simulated engine): a token-id prompt counts its ids; text counts {@code ceil(characters / 4)};
 * chat the same over the concatenated contents of every message (string contents and the
 * {@code text} of content parts); at least 1. An estimate: a real tokenizer differs by a few tens
 * of percent on prose.
 */
public final class PromptTokens {

    private PromptTokens() {
    }

    /**
     * The estimate for a whole request body, as the router needs it before the engine has
     * counted: chat {@link #ofMessages}; a completions prompt as above, where a list of prompts
     * adds up its entries.
     */
    public static int estimate(ObjectNode body) {
        JsonNode messages = body.get("messages");
        if (messages != null && messages.isArray()) {
            return ofMessages(messages);
        }
        return atLeastOne(promptTokens(body.get("prompt")));
    }

    /** The tokens of a text of {@code chars} characters. */
    public static int ofText(long chars) {
        return atLeastOne(ceilQuarter(chars));
    }

    /** The tokens of chat {@code messages}: their text contents concatenated. */
    public static int ofMessages(JsonNode messages) {
        long chars = 0;
        for (JsonNode m : messages) {
            chars += textLength(m.get("content"));
        }
        return ofText(chars);
    }

    private static long promptTokens(JsonNode prompt) {
        if (prompt == null) {
            return 0;
        }
        if (prompt.isTextual()) {
            return ceilQuarter(prompt.asText().length());
        }
        if (prompt instanceof POJONode pojo && pojo.getPojo() instanceof TokenIdPrompt ids) {
            return ids.count();
        }
        if (prompt.isIntegralNumber()) {
            return 1;
        }
        long tokens = 0;
        if (prompt.isArray()) {
            for (JsonNode p : prompt) {
                tokens += promptTokens(p); // token ids count 1 each; a list of prompts adds up
            }
        }
        return tokens;
    }

    private static long textLength(JsonNode content) {
        if (content == null) {
            return 0;
        }
        if (content.isTextual()) {
            return content.asText().length();
        }
        long n = 0;
        if (content.isArray()) {
            for (JsonNode part : content) {
                JsonNode text = part.get("text");
                n += text != null && text.isTextual() ? text.asText().length() : 0;
            }
        }
        return n;
    }

    private static long ceilQuarter(long chars) {
        return (chars + 3) / 4;
    }

    private static int atLeastOne(long tokens) {
        return (int) Math.max(1, Math.min(Integer.MAX_VALUE, tokens));
    }
}
