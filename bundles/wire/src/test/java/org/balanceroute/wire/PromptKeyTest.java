package org.balanceroute.wire;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.JsonNodeType;
import org.junit.jupiter.api.Test;

/** One rule: a list of ids keyed as it is read, the same list read as a tree, and a cycling prompt agree. */
class PromptKeyTest {

    private static final ObjectMapper JSON = new ObjectMapper();

    @Test
    void theIdRuleMixesTheNodeTypesTheTreeRuleMixes() {
        assertEquals(JsonNodeType.ARRAY.ordinal() + 1, PromptKey.Ids.ARRAY);
        assertEquals(JsonNodeType.NUMBER.ordinal() + 1, PromptKey.Ids.NUMBER);
    }

    @Test
    void idsReadOneByOneHaveTheKeyOfTheirTree() throws Exception {
        PromptKey.Ids ids = new PromptKey.Ids();
        for (long id : new long[] {7, 8, 9, -1, 9007199254740993L}) {
            ids.add(id);
        }
        assertEquals(PromptKey.of(JSON.readTree("[7, 8, 9, -1, 9007199254740993]")), ids.key(5));
    }

    @Test
    void aCyclingPromptIsTheListItWritesAndHasItsKey() throws Exception {
        for (int n : new int[] {1, 999, 1000, 1001, 2001}) {
            TokenIdPrompt p = TokenIdPrompt.cycling(n);
            var tree = JSON.readTree(p.json());
            assertEquals(n, tree.size());
            assertEquals(n, p.count());
            for (int i = 0; i < n; i++) {
                assertEquals(i % TokenIdPrompt.ID_CYCLE + 1, tree.get(i).asInt());
            }
            assertEquals(PromptKey.of(tree), p.key(), "the key of " + n + " ids");
        }
    }
}
