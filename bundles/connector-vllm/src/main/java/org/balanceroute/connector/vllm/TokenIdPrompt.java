package org.balanceroute.connector.vllm;

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
 * @param count how many ids it holds, at least 1
 * @param key the prompt's identity for the exact-match predictor, computed while it was read
 */
public record TokenIdPrompt(String json, int count, long key) implements JsonSerializable {

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
