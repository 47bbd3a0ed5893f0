package org.balanceroute.proxy.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Test;

class TokenCounterTest {

    private static final ObjectMapper JSON = new ObjectMapper();

    private static int feed(TokenCounter c, String chunk) throws Exception {
        return c.onChunk(JSON.readTree(chunk));
    }

    @Test
    void oneTokenPerContentChunkWithoutUsage() throws Exception {
        TokenCounter c = new TokenCounter();
        assertEquals(0, feed(c, "{\"object\":\"chat.completion.chunk\",\"choices\":[{\"index\":0,"
                + "\"delta\":{\"role\":\"assistant\",\"content\":\"\"}}]}"), "the role chunk carries no token");
        assertEquals(1, feed(c, "{\"choices\":[{\"index\":0,\"delta\":{\"content\":\"Hello\"}}]}"));
        assertEquals(1, feed(c, "{\"choices\":[{\"index\":0,\"text\":\" world\",\"finish_reason\":null}]}"));
        assertEquals(1, feed(c, "{\"choices\":[{\"index\":0,\"delta\":{\"reasoning_content\":\"hm\"}}]}"));
        assertEquals(0, feed(c, "{\"choices\":[{\"index\":0,\"text\":\"\",\"finish_reason\":\"length\"}]}"));
        assertEquals(3, c.total());
    }

    @Test
    void continuousUsageCountsMultiTokenChunks() throws Exception {
        TokenCounter c = new TokenCounter();
        // --stream-interval 4 / MTP: several tokens per chunk, cumulative usage on each
        assertEquals(4, feed(c, "{\"choices\":[{\"text\":\"a b c d\"}],\"usage\":{\"prompt_tokens\":9,"
                + "\"completion_tokens\":4,\"total_tokens\":13}}"));
        assertEquals(4, feed(c, "{\"choices\":[{\"text\":\"e f g h\"}],\"usage\":{\"completion_tokens\":8}}"));
        assertEquals(2, feed(c, "{\"choices\":[{\"text\":\"i j\",\"finish_reason\":\"length\"}],"
                + "\"usage\":{\"completion_tokens\":10}}"));
        assertEquals(0, feed(c, "{\"choices\":[],\"usage\":{\"completion_tokens\":10}}"), "a repeated total adds nothing");
        assertEquals(10, c.total());
    }

    @Test
    void aFinalUsageChunkCorrectsTheCountOfMultiTokenChunks() throws Exception {
        TokenCounter c = new TokenCounter();
        assertEquals(1, feed(c, "{\"choices\":[{\"text\":\"a b c\"}]}"));
        assertEquals(1, feed(c, "{\"choices\":[{\"text\":\"d e f\"}]}"));
        // include_usage: the last chunk has choices [] and the true total
        assertEquals(4, feed(c, "{\"choices\":[],\"usage\":{\"prompt_tokens\":3,\"completion_tokens\":6,"
                + "\"total_tokens\":9}}"));
        assertEquals(6, c.total());
    }
}
