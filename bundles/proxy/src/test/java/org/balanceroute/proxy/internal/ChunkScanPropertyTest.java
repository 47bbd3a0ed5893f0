package org.balanceroute.proxy.internal;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeSet;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.From;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.Size;
import org.balanceroute.connector.vllm.SseScanner;

/**
 * The relay's reading of an engine stream against Jackson's: generated chunks, written by Jackson
 * (compact or pretty, so some events span several {@code data:} lines), framed as SSE with
 * comments, other fields and any line ending, the stream cut at arbitrary byte boundaries into
 * heap (offset) and direct buffers, read by {@link SseScanner} and {@link ChunkScan} in place as
 * the hop reads them. Every event's data arrives whole and unchanged, and what the scan finds
 * (object, error, tokens, content, the first choice's text and stop reason, the id) is what the
 * whole parse reads. Seeds are fixed: no run is red by chance.
 */
class ChunkScanPropertyTest {

    private static final JsonNodeFactory NODES = JsonNodeFactory.instance;

    /** Pieces of generated strings: quotes, backslashes, control characters, line separators, non-BMP. */
    private static final List<String> PIECES = List.of("a", "Z", " ", "0", "\"", "\\", "/", "\n", "\r", "\t", "\u0001",
            "\u001f", "\u007f", "\u00e9", "\u2028", "\u2603", "\ud83d\ude00", "recomputed", "data: ", ":", "{}", "[]");

    @Provide
    Arbitrary<String> texts() {
        return Arbitraries.of(PIECES).list().ofMaxSize(6).map(l -> String.join("", l));
    }

    @Provide
    Arbitrary<ObjectNode> chunks() {
        Arbitrary<JsonNode> stopReason = Arbitraries.oneOf(Arbitraries.just(NODES.nullNode()),
                Arbitraries.of("recomputed", "stop", "length").map(NODES::textNode), Arbitraries.just(NODES.numberNode(7)),
                texts().map(NODES::textNode));
        Arbitrary<ObjectNode> choice = Combinators.combine(Arbitraries.integers().between(0, 6), texts(), stopReason,
                Arbitraries.integers().between(0, 2)).as((kind, text, stop, calls) -> {
                    ObjectNode c = NODES.objectNode();
                    c.put("index", 0);
                    ObjectNode delta = NODES.objectNode();
                    switch (kind) {
                        case 0 -> c.put("text", text);
                        case 1 -> c.set("delta", delta.put("role", "assistant").put("content", text));
                        case 2 -> c.set("delta", delta.put("content", text));
                        case 3 -> {
                            ArrayNode toolCalls = delta.put("reasoning_content", text).putArray("tool_calls");
                            for (int i = 0; i < calls; i++) {
                                toolCalls.addObject().put("index", i);
                            }
                            c.set("delta", delta);
                        }
                        case 4 -> c.putNull("text").set("delta", delta.put("content", text));
                        case 5 -> c.put("text", 7).set("delta", delta.put("content", text));
                        default -> c.set("delta", delta);
                    }
                    c.putNull("logprobs");
                    c.set("stop_reason", stop);
                    return c;
                });
        Arbitrary<JsonNode> usage = Arbitraries.oneOf(Arbitraries.just(NODES.nullNode()),
                Arbitraries.longs().between(0, Long.MAX_VALUE).map(n -> NODES.objectNode().put("prompt_tokens", 9)
                        .put("completion_tokens", n)),
                Arbitraries.just(NODES.objectNode().put("completion_tokens", "5")),
                Arbitraries.just(NODES.objectNode().putNull("completion_tokens")));
        return Combinators.combine(texts().injectNull(0.1), choice.list().ofMaxSize(3).injectNull(0.1),
                usage.injectNull(0.3), Arbitraries.integers().between(0, 19), Arbitraries.randomValue(r -> r.nextLong()))
                .as((id, choices, u, errorDie, order) -> {
                    List<String> keys = new ArrayList<>(List.of("id", "object", "created", "choices", "usage", "error"));
                    java.util.Collections.shuffle(keys, new java.util.Random(order)); // key order is the engine's choice
                    ObjectNode o = NODES.objectNode();
                    for (String k : keys) {
                        switch (k) {
                            case "id" -> {
                                if (id != null) {
                                    o.put("id", id);
                                }
                            }
                            case "object" -> o.put("object", "text_completion");
                            case "created" -> o.put("created", 1);
                            case "choices" -> {
                                if (choices == null) {
                                    o.putNull("choices");
                                } else {
                                    o.putArray("choices").addAll(choices);
                                }
                            }
                            case "usage" -> {
                                if (u != null) {
                                    o.set("usage", u);
                                }
                            }
                            default -> {
                                if (errorDie == 0) {
                                    o.putObject("error").put("message", "m").put("code", 500);
                                }
                            }
                        }
                    }
                    return o;
                });
    }

    /** One event as the engine might frame it: a comment or an {@code event:} field first, any line ending. */
    private static void frame(ByteArrayOutputStream out, byte[] json, String eol, int extra) {
        if (extra == 1) {
            out.writeBytes((": ping" + eol).getBytes(StandardCharsets.UTF_8));
        } else if (extra == 2) {
            out.writeBytes(("event: message" + eol + "id: 1" + eol).getBytes(StandardCharsets.UTF_8));
        }
        // a pretty-printed chunk spans lines: one data: line each, joined again by '\n' when read
        for (String line : new String(json, StandardCharsets.UTF_8).split("\n", -1)) {
            out.writeBytes(("data: " + line + eol).getBytes(StandardCharsets.UTF_8));
        }
        out.writeBytes(eol.getBytes(StandardCharsets.UTF_8));
    }

    @Property(seed = "20261203", tries = 400)
    void whatTheRelayReadsFromAnyCutOfTheStreamIsWhatJacksonParses(
            @ForAll @Size(min = 1, max = 8) List<@From("chunks") ObjectNode> chunks,
            @ForAll @IntRange(max = 2) int eolKind, @ForAll boolean pretty, @ForAll @IntRange(max = 2) int extra,
            @ForAll @Size(max = 40) List<@IntRange(min = 0, max = 100_000) Integer> cuts,
            @ForAll @IntRange(max = 7) int offset, @ForAll boolean direct) throws Exception {
        String eol = List.of("\n", "\r\n", "\r").get(eolKind);
        List<byte[]> sent = new ArrayList<>();
        ByteArrayOutputStream stream = new ByteArrayOutputStream();
        for (ObjectNode c : chunks) {
            byte[] json = pretty ? Chunks.MAPPER.writerWithDefaultPrettyPrinter().writeValueAsBytes(c)
                    : Chunks.MAPPER.writeValueAsBytes(c);
            if (pretty && eolKind == 0) {
                json = new String(json, StandardCharsets.UTF_8).replace("\r\n", "\n").getBytes(StandardCharsets.UTF_8);
            }
            sent.add(json);
            frame(stream, json, eol, extra);
        }
        byte[] bytes = stream.toByteArray();

        List<byte[]> received = new ArrayList<>();
        List<Found> found = new ArrayList<>();
        SseScanner sse = new SseScanner((buffer, at, length) -> {
            byte[] data = new byte[length];
            buffer.get(at, data, 0, length);
            received.add(data);
            // in place, as the hop scans: the buffer's own array where it has one (valid during this call only)
            byte[] a = buffer.hasArray() ? buffer.array() : data;
            int from = buffer.hasArray() ? buffer.arrayOffset() + at : 0;
            ChunkScan s = new ChunkScan();
            found.add(new Found(s.scan(a, from, from + length), s, s.textFrom < 0 ? null : text(a, s), s.idFrom < 0 ? null : id(a, s)));
        });
        TreeSet<Integer> at = new TreeSet<>();
        for (int c : cuts) {
            at.add(c % (bytes.length + 1));
        }
        at.add(bytes.length);
        int from = 0;
        for (int to : at) {
            sse.feed(buffer(bytes, from, to, offset, direct));
            from = to;
        }

        assertEquals(chunks.size(), received.size(), "one event per chunk");
        TokenCounter byTree = new TokenCounter();
        TokenCounter byScan = new TokenCounter();
        for (int i = 0; i < chunks.size(); i++) {
            byte[] json = sent.get(i);
            assertArrayEquals(json, received.get(i), "event " + i + " arrives whole and unchanged");
            JsonNode tree = Chunks.MAPPER.readTree(json);
            ChunkScan s = found.get(i).scan();
            if (!found.get(i).answered()) {
                assertTrue(leftToTheWholeParse(tree), "the scan refused a plain chunk: " + new String(json, StandardCharsets.UTF_8));
                if (!tree.has("error")) {
                    byTree.onChunk(tree);
                    byScan.onChunk(tree); // the flow parses it whole: both counters see it alike
                }
                continue;
            }
            String where = new String(json, StandardCharsets.UTF_8);
            assertTrue(s.object, where);
            assertEquals(tree.has("error"), s.error, where);
            JsonNode completion = tree.path("usage").get("completion_tokens");
            boolean counted = completion != null && completion.isIntegralNumber() && completion.canConvertToLong();
            assertEquals(counted, s.hasCompletionTokens, where);
            if (counted) {
                assertEquals(completion.longValue(), s.completionTokens, where);
            }
            if (s.error) {
                continue;
            }
            assertEquals(byTree.onChunk(tree), byScan.onScan(s), where);
            assertEquals(Chunks.recomputed(tree), s.recomputed, where);
            assertEquals(Chunks.generatedText(tree), found.get(i).text(), where);
            assertEquals(tree.path("id").isTextual() ? tree.get("id").textValue() : null, found.get(i).id(), where);
        }
        assertEquals(byTree.total(), byScan.total());
    }

    /**
     * What Jackson writes that the scan leaves to the whole parse by design (ChunkScan's class
     * comment): a stop_reason written with escapes, completion_tokens of more than 18 digits.
     * Anything else refused would make the scan a no-op that passes by falling back.
     */
    private static boolean leftToTheWholeParse(JsonNode tree) throws Exception {
        JsonNode stop = tree.path("choices").path(0).path("stop_reason");
        JsonNode tokens = tree.path("usage").path("completion_tokens");
        // as bytes, the way the chunk was written: Jackson's UTF-8 writer escapes a non-BMP character too
        return stop.isTextual() && new String(Chunks.MAPPER.writeValueAsBytes(stop), StandardCharsets.UTF_8).indexOf('\\') >= 0
                || tokens.isIntegralNumber() && Math.abs(tokens.longValue()) >= 1_000_000_000_000_000_000L;
    }

    /**
     * The bytes [from, to) as a buffer handed over by the HTTP client: a heap buffer whose data
     * starts {@code offset} bytes into its array (a slice), or a direct one.
     */
    private static ByteBuffer buffer(byte[] bytes, int from, int to, int offset, boolean direct) {
        if (direct) {
            ByteBuffer b = ByteBuffer.allocateDirect(to - from);
            b.put(bytes, from, to - from).flip();
            return b;
        }
        byte[] room = new byte[offset + (to - from) + 3];
        System.arraycopy(bytes, from, room, offset, to - from);
        return ByteBuffer.wrap(room, offset, to - from).slice();
    }

    /** What the scan answered for one event, its text and id read while the bytes were there. */
    private record Found(boolean answered, ChunkScan scan, String text, String id) {
    }

    private static String text(byte[] scanned, ChunkScan s) {
        GeneratedText g = new GeneratedText();
        g.appendRaw(scanned, s.textFrom, s.textTo);
        return g.text();
    }

    private static String id(byte[] scanned, ChunkScan s) {
        String raw = new String(scanned, s.idFrom, s.idTo - s.idFrom, StandardCharsets.UTF_8);
        return s.idEscaped ? Chunks.unescape(raw) : raw;
    }
}
