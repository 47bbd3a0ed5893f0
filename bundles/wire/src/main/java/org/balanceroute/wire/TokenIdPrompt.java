package org.balanceroute.wire;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.databind.JsonSerializable;
import com.fasterxml.jackson.databind.SerializerProvider;
import com.fasterxml.jackson.databind.jsontype.TypeSerializer;
import java.io.IOException;

/**
 * A {@code prompt} of token ids as the client sent it: the ids counted and the prompt's JSON kept
 * verbatim, so the two hops write it back as it came instead of reading 100k ids into 100k
 * nodes and writing each of them out twice. It sits in the request body's tree as a
 * {@code POJONode} and serialises as its raw JSON.
 *
 * @param json the prompt's JSON text, {@code [1,2,...]}, as received (ASCII)
 * @param count how many ids it holds
 * @param key the prompt's identity ({@link PromptKey}), computed while it was read
 */
public record TokenIdPrompt(String json, int count, long key) implements JsonSerializable {

    /** The ids of a {@link #cycling} prompt run 1, 2, ..., ID_CYCLE, 1, 2, ... */
    public static final int ID_CYCLE = 1000;

    /**
     * One cycle of ids as JSON, {@code "1,2,...,1000,"}, and where each id ends in it: a cycling
     * prompt is copied from it in blocks, not written id by id (a replay of thousands of
     * 10k-token prompts otherwise spends most of its CPU formatting numbers).
     */
    private static final String CYCLE_JSON;
    private static final int[] CYCLE_END = new int[ID_CYCLE + 1];

    static {
        StringBuilder sb = new StringBuilder(ID_CYCLE * 4);
        for (int i = 1; i <= ID_CYCLE; i++) {
            sb.append(i);
            CYCLE_END[i] = sb.length();
            sb.append(',');
        }
        CYCLE_JSON = sb.toString();
    }

    /**
     * The synthetic prompt the replayer and the benchmarks send: {@code count} ids cycling
     * through 1..{@value #ID_CYCLE}, keyed as the proxy keys it when it reads it.
     */
    public static TokenIdPrompt cycling(int count) {
        StringBuilder sb = new StringBuilder(count * 4 + 2).append('[');
        for (int left = count; left > 0; left -= ID_CYCLE) {
            int ids = Math.min(left, ID_CYCLE);
            sb.append(CYCLE_JSON, 0, CYCLE_END[ids]);
            if (left > ID_CYCLE) {
                sb.append(',');
            }
        }
        PromptKey.Ids key = new PromptKey.Ids();
        for (int i = 0; i < count; i++) {
            key.add(i % ID_CYCLE + 1);
        }
        return new TokenIdPrompt(sb.append(']').toString(), count, key.key(count));
    }

    @Override
    public void serialize(JsonGenerator gen, SerializerProvider serializers) throws IOException {
        gen.writeRawValue(json);
    }

    @Override
    public void serializeWithType(JsonGenerator gen, SerializerProvider serializers, TypeSerializer typeSer)
            throws IOException {
        serialize(gen, serializers);
    }
}
