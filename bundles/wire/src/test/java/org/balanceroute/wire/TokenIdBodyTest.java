package org.balanceroute.wire;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.ObjectReader;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.stream.LongStream;
import org.junit.jupiter.api.Test;

class TokenIdBodyTest {

    private static final ObjectReader STRICT = new ObjectMapper().readerFor(JsonNode.class)
            .with(DeserializationFeature.FAIL_ON_TRAILING_TOKENS);

    private static TokenIdBody read(String body, LongStream.Builder ids) throws IOException {
        return TokenIdBody.read(STRICT, body.getBytes(StandardCharsets.UTF_8), ids == null ? null : ids::add);
    }

    @Test
    void theListIsScannedAndTheRestReadAsATree() throws IOException {
        LongStream.Builder ids = LongStream.builder();
        TokenIdBody b = read("{\"model\": \"m\", \"prompt\": [ 5,6 , 7], \"kv\": {\"a\": [1]}}", ids);
        assertEquals(3, b.count());
        assertEquals("[ 5,6 , 7]", b.listJson());
        assertArrayEquals(new long[] {5, 6, 7}, ids.build().toArray());
        assertEquals("{\"model\":\"m\",\"prompt\":[],\"kv\":{\"a\":[1]}}", b.rest().toString());
    }

    @Test
    void otherBodiesAreLeftToTheCaller() throws IOException {
        assertNull(read("{\"prompt\": \"text\"}", null));
        assertNull(read("{\"prompt\": [[1], [2]]}", null));
        assertNull(read("{\"messages\": []}", null));
        assertNull(read("[1, 2]", null));
        assertThrows(IOException.class, () -> read("{\"prompt\": [1, 2]} trailing", null));
    }
}
