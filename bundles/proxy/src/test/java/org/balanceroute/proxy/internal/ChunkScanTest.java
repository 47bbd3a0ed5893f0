package org.balanceroute.proxy.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** The byte scan against the whole parse it stands in for: same tokens, same errors, same text; anything else left to Jackson. */
class ChunkScanTest {

    private static final ObjectMapper JSON = new ObjectMapper();

    private static ChunkScan scan(String chunk) {
        ChunkScan s = new ChunkScan();
        byte[] b = ("xx" + chunk + "yy").getBytes(StandardCharsets.UTF_8);
        assertTrue(s.scan(b, 2, b.length - 2), "scanned: " + chunk);
        return s;
    }

    private static String text(String chunk) {
        ChunkScan s = new ChunkScan();
        byte[] b = chunk.getBytes(StandardCharsets.UTF_8);
        assertTrue(s.scan(b, 0, b.length));
        if (s.textFrom < 0) {
            return null;
        }
        GeneratedText g = new GeneratedText();
        g.appendRaw(b, s.textFrom, s.textTo);
        return g.text();
    }

    @Test
    void everyChunkShapeOfTheContract() {
        // /v1/completions, continuous usage: a multi-token chunk
        ChunkScan c = scan("{\"id\":\"cmpl-7\",\"object\":\"text_completion\",\"created\":1,\"model\":\"m\",\"choices\":"
                + "[{\"index\":0,\"text\":\" a b c\",\"logprobs\":null,\"finish_reason\":null,\"stop_reason\":null}],"
                + "\"usage\":{\"prompt_tokens\":9,\"total_tokens\":12,\"completion_tokens\":3}}");
        assertTrue(c.object);
        assertFalse(c.error);
        assertTrue(c.hasCompletionTokens);
        assertEquals(3, c.completionTokens);
        assertTrue(c.content);
        assertFalse(c.recomputed);
        // chat: the role chunk carries no token
        c = scan("{\"id\":\"chatcmpl-7\",\"object\":\"chat.completion.chunk\",\"choices\":[{\"index\":0,"
                + "\"delta\":{\"role\":\"assistant\",\"content\":\"\"},\"logprobs\":null,\"finish_reason\":null}]}");
        assertFalse(c.content);
        assertFalse(c.hasCompletionTokens);
        // usage only at the end: choices []
        c = scan("{\"id\":\"x\",\"choices\":[],\"usage\":{\"prompt_tokens\":3,\"completion_tokens\":6,\"total_tokens\":9}}");
        assertEquals(6, c.completionTokens);
        assertFalse(c.content);
        // usage null on the others
        c = scan("{\"choices\":[{\"index\":0,\"text\":\"hi\"}],\"usage\":null}");
        assertFalse(c.hasCompletionTokens);
        assertTrue(c.content);
        // an in-band error
        c = scan("{\"error\": {\"message\": \"cut after 5 tokens\", \"type\": \"server_error\", \"param\": null, \"code\": 500}}");
        assertTrue(c.error);
        // reasoning, tool calls
        assertTrue(scan("{\"choices\":[{\"delta\":{\"reasoning_content\":\"hm\"}}]}").content);
        assertTrue(scan("{\"choices\":[{\"delta\":{\"tool_calls\":[{\"index\":0}]}}]}").content);
        assertFalse(scan("{\"choices\":[{\"delta\":{\"tool_calls\":[ ]}}]}").content);
        // recomputed, on the first choice only
        assertTrue(scan("{\"choices\":[{\"index\":0,\"text\":\"\",\"stop_reason\":\"recomputed\"}]}").recomputed);
        assertFalse(scan("{\"choices\":[{\"text\":\"\"},{\"stop_reason\":\"recomputed\"}]}").recomputed);
        // not an object: nothing to count
        assertFalse(scan("[1, 2]").object);
        assertFalse(scan(" \"text\" ").object);
    }

    @Test
    void theFirstChoicesTextAndTheChunkIdAreFoundRawAndDecodeAsTheTreeReadsThem() {
        assertEquals(" w\u00e9\"rd\n\u2603", text("{\"choices\":[{\"text\":\" w\u00e9\\\"rd\\n\\u2603\"}]}"));
        assertEquals("hi", text("{\"choices\":[{\"delta\":{\"content\":\"hi\"}}]}"));
        assertEquals(null, text("{\"choices\":[{\"text\":null,\"delta\":{\"content\":\"hi\"}}]}"), "text wins, even null");
        assertEquals("a", text("{\"choices\":[{\"text\":\"a\"},{\"text\":\"b\"}]}"));
        ChunkScan c = scan("{\"id\":\"cmpl-\\u0041\",\"choices\":[]}");
        assertTrue(c.idEscaped);
        assertEquals("cmpl-A", Chunks.unescape("cmpl-\\u0041"));
    }

    @Test
    void whatTheScanDoesNotTakeExactlyIsLeftToTheWholeParse() {
        for (String unusual : List.of(
                "{\"choices\":[{\"text\":\"a\"}]", // cut
                "{\"choices\":[{\"text\":\"a\"}]} trailing",
                "{\"usage\":{\"completion_tokens\":5.0}}",
                "{\"usage\":{\"completion_tokens\":5e0}}",
                "{\"usage\":{\"completion_tokens\":12345678901234567890}}",
                "{\"choices\":{\"0\":{\"text\":\"a\"}}}",
                "{\"choices\":[],\"choices\":[]}",
                "{\"\\u0075sage\":{}}",
                "{\"choices\":[{\"stop_reason\":\"recompute\\u0064\"}]}",
                "{\"a\":01}",
                "{\"a\":\"raw\ttab\"}",
                "{\"a\":\"bad \\q escape\"}",
                "{\"a\":tru}",
                "{'a':1}",
                "[".repeat(100) + "]".repeat(100),
                "")) {
            ChunkScan s = new ChunkScan();
            byte[] b = unusual.getBytes(StandardCharsets.UTF_8);
            assertFalse(s.scan(b, 0, b.length), unusual);
        }
    }

    /**
     * Seeded random chunks, well-formed and damaged: wherever the scan answers, it answers what
     * the tree and {@link TokenCounter#onChunk} answer, over whole streams of chunks.
     */
    @Test
    void onRandomChunksTheScanAgreesWithTheTreeWheneverItAnswers() throws Exception {
        Random random = new Random(11);
        int scanned = 0;
        for (int stream = 0; stream < 400; stream++) {
            TokenCounter byTree = new TokenCounter();
            TokenCounter byScan = new TokenCounter();
            for (int k = 0; k < 30; k++) {
                String chunk = randomChunk(random);
                if (random.nextInt(8) == 0) {
                    chunk = damage(chunk, random);
                }
                byte[] b = chunk.getBytes(StandardCharsets.UTF_8);
                ChunkScan s = new ChunkScan();
                JsonNode tree;
                try {
                    tree = JSON.readTree(chunk);
                } catch (Exception notJson) {
                    tree = null;
                }
                if (!s.scan(b, 0, b.length)) {
                    if (tree instanceof ObjectNode o && !o.has("error")) {
                        byScan.onChunk(o); // the flow parses it whole: both counters see it alike
                        byTree.onChunk(o);
                    }
                    continue;
                }
                scanned++;
                assertTrue(tree != null && !tree.isMissingNode(), "scanned what Jackson rejects: " + chunk);
                assertEquals(tree instanceof ObjectNode, s.object, chunk);
                if (!(tree instanceof ObjectNode o)) {
                    continue;
                }
                assertEquals(o.has("error"), s.error, chunk);
                if (s.error) {
                    continue;
                }
                assertEquals(byTree.onChunk(o), byScan.onScan(s), chunk);
                assertEquals(Chunks.recomputed(o), s.recomputed, chunk);
                String expected = Chunks.generatedText(o);
                String got = null;
                if (s.textFrom >= 0) {
                    GeneratedText g = new GeneratedText();
                    g.appendRaw(b, s.textFrom, s.textTo);
                    got = g.text();
                }
                assertEquals(expected, got, chunk);
                String id = o.path("id").isTextual() ? o.get("id").textValue() : null;
                String scannedId = s.idFrom < 0 ? null : new String(b, s.idFrom, s.idTo - s.idFrom, StandardCharsets.UTF_8);
                if (scannedId != null && s.idEscaped) {
                    scannedId = Chunks.unescape(scannedId);
                }
                assertEquals(id, scannedId, chunk);
            }
            assertEquals(byTree.total(), byScan.total());
        }
        assertTrue(scanned > 5000, "most chunks are scanned: " + scanned);
    }

    private static final String[] WORDS = {"", " the", " caf\u00e9", " \\\"q\\\"", "\\n", " \\u2603", "x"};

    private static String randomChunk(Random r) {
        List<String> fields = new ArrayList<>();
        if (r.nextInt(10) > 0) {
            fields.add("\"id\":\"" + (r.nextBoolean() ? "cmpl-" : "chatcmpl-\\u0041") + r.nextInt(100) + "\"");
        }
        fields.add("\"object\":\"" + (r.nextBoolean() ? "text_completion" : "chat.completion.chunk") + "\"");
        fields.add("\"created\":" + r.nextInt(1_000_000));
        if (r.nextInt(40) == 0) {
            fields.add("\"error\":{\"message\":\"m\",\"code\":500}");
        }
        int choices = r.nextInt(10) == 0 ? 0 : 1 + (r.nextInt(6) == 0 ? 1 : 0);
        if (r.nextInt(20) == 0) {
            fields.add("\"choices\":null");
        } else {
            List<String> cs = new ArrayList<>();
            for (int i = 0; i < choices; i++) {
                List<String> c = new ArrayList<>();
                c.add("\"index\":" + i);
                int kind = r.nextInt(6);
                String w = WORDS[r.nextInt(WORDS.length)];
                if (kind == 0) {
                    c.add("\"text\":\"" + w + "\"");
                } else if (kind == 1) {
                    c.add("\"delta\":{\"role\":\"assistant\",\"content\":\"" + w + "\"}");
                } else if (kind == 2) {
                    c.add("\"delta\":{\"content\":\"" + w + "\"}");
                } else if (kind == 3) {
                    c.add("\"delta\":{\"reasoning_content\":\"" + w + "\",\"tool_calls\":" + (r.nextBoolean() ? "[]" : "[{\"id\":1}]") + "}");
                } else if (kind == 4) {
                    c.add("\"text\":" + (r.nextBoolean() ? "null" : "7") + ",\"delta\":{\"content\":\"" + w + "\"}");
                } else {
                    c.add("\"delta\":{}");
                }
                c.add("\"logprobs\":null");
                c.add("\"finish_reason\":" + (r.nextInt(5) == 0 ? "\"length\"" : "null"));
                c.add("\"stop_reason\":" + (r.nextInt(8) == 0 ? "\"recomputed\"" : r.nextInt(4) == 0 ? "7" : "null"));
                java.util.Collections.shuffle(c, r);
                cs.add("{" + String.join(r.nextBoolean() ? "," : " , ", c) + "}");
            }
            fields.add("\"choices\":[" + String.join(",", cs) + "]");
        }
        int usage = r.nextInt(5);
        if (usage == 0) {
            fields.add("\"usage\":null");
        } else if (usage == 1 || usage == 2) {
            fields.add("\"usage\":{\"prompt_tokens\":9,\"total_tokens\":20,\"completion_tokens\":" + r.nextInt(40) + "}");
        } else if (usage == 3) {
            fields.add("\"usage\":{\"completion_tokens\":" + (r.nextBoolean() ? "\"5\"" : "null") + "}");
        }
        java.util.Collections.shuffle(fields, r);
        return (r.nextBoolean() ? " " : "") + "{" + String.join(",", fields) + "}";
    }

    private static String damage(String chunk, Random r) {
        StringBuilder b = new StringBuilder(chunk);
        int at = r.nextInt(b.length());
        switch (r.nextInt(3)) {
            case 0 -> b.deleteCharAt(at);
            case 1 -> b.insert(at, "{[\",:}]\\ 0".charAt(r.nextInt(10)));
            default -> b.setLength(at);
        }
        return b.toString();
    }
}
