package org.balanceroute.enginesim.internal;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.Arrays;
import java.util.Iterator;
import java.util.Set;
import java.util.concurrent.atomic.AtomicIntegerArray;

/**
 * The fault knobs, per decode rank and per prefill server. Written by the admin endpoint (any
 * thread), read by the step loop and the HTTP handlers; every field is volatile or atomic.
 */
final class Faults {

    private final int ranks;
    private final int prefills;
    /** Per rank: its own step time is multiplied by this (>= 1); the barrier waits for it. */
    private final double[] slowFactor;
    private final AtomicIntegerArray failNext;
    private final AtomicIntegerArray cutAfterTokens;
    private final AtomicIntegerArray down;
    private final AtomicIntegerArray prefillFailNext;
    private final AtomicIntegerArray prefillDown;
    private volatile boolean anySlow;

    Faults(int ranks, int prefills) {
        this.ranks = ranks;
        this.prefills = prefills;
        slowFactor = new double[ranks];
        Arrays.fill(slowFactor, 1.0);
        failNext = new AtomicIntegerArray(ranks);
        cutAfterTokens = new AtomicIntegerArray(ranks);
        down = new AtomicIntegerArray(ranks);
        prefillFailNext = new AtomicIntegerArray(Math.max(prefills, 1));
        prefillDown = new AtomicIntegerArray(Math.max(prefills, 1));
    }

    synchronized double slowFactor(int rank) {
        return slowFactor[rank];
    }

    boolean anySlow() {
        return anySlow;
    }

    /** True (and one consumed) when the rank's next request must fail. */
    boolean takeFailure(int rank) {
        return takeOne(failNext, rank);
    }

    boolean takePrefillFailure(int prefill) {
        return takeOne(prefillFailNext, prefill);
    }

    private static boolean takeOne(AtomicIntegerArray a, int i) {
        while (true) {
            int n = a.get(i);
            if (n <= 0) {
                return false;
            }
            if (a.compareAndSet(i, n, n - 1)) {
                return true;
            }
        }
    }

    int cutAfterTokens(int rank) {
        return cutAfterTokens.get(rank);
    }

    boolean isDown(int rank) {
        return down.get(rank) != 0;
    }

    boolean isPrefillDown(int prefill) {
        return prefillDown.get(prefill) != 0;
    }

    /**
     * Applies {@code {"rank": g, "slowFactor": x, "failNext": n, "cutAfterTokens": k, "down": bool}}
     * or {@code {"prefill": i, "failNext": n, "down": bool}}; {@code {"clear": true}} clears all.
     * Every field is checked before any applies.
     *
     * @throws IllegalArgumentException naming the field and its range
     */
    synchronized void apply(JsonNode body, int defaultRank) {
        if (body == null || !body.isObject()) {
            throw new IllegalArgumentException("the body must be a JSON object");
        }
        if (body.path("clear").asBoolean(false)) {
            Arrays.fill(slowFactor, 1.0);
            for (int g = 0; g < ranks; g++) {
                failNext.set(g, 0);
                cutAfterTokens.set(g, 0);
                down.set(g, 0);
            }
            for (int i = 0; i < prefillDown.length(); i++) {
                prefillFailNext.set(i, 0);
                prefillDown.set(i, 0);
            }
            anySlow = false;
            return;
        }
        Iterator<String> names = body.fieldNames();
        while (names.hasNext()) {
            String name = names.next();
            if (!Set.of("rank", "prefill", "slowFactor", "failNext", "cutAfterTokens", "down", "clear")
                    .contains(name)) {
                throw new IllegalArgumentException("unknown field '" + name
                        + "' (known: rank, prefill, slowFactor, failNext, cutAfterTokens, down, clear)");
            }
        }
        if (body.has("prefill")) {
            int p = intIn(body, "prefill", 0, prefills - 1);
            if (body.has("slowFactor") || body.has("cutAfterTokens") || body.has("rank")) {
                throw new IllegalArgumentException("a prefill fault takes only 'failNext' and 'down'");
            }
            int fail = body.has("failNext") ? intIn(body, "failNext", 0, Integer.MAX_VALUE) : -1;
            Boolean d = body.has("down") ? bool(body, "down") : null;
            if (fail >= 0) {
                prefillFailNext.set(p, fail);
            }
            if (d != null) {
                prefillDown.set(p, d ? 1 : 0);
            }
            return;
        }
        int g;
        if (body.has("rank")) {
            g = intIn(body, "rank", 0, ranks - 1);
        } else if (defaultRank >= 0) {
            g = defaultRank;
        } else {
            throw new IllegalArgumentException("field 'rank' (0.." + (ranks - 1) + ") or 'prefill' is required");
        }
        double slow = -1;
        if (body.has("slowFactor")) {
            JsonNode v = body.get("slowFactor");
            if (!v.isNumber() || !Double.isFinite(v.asDouble()) || v.asDouble() < 1) {
                throw new IllegalArgumentException("field 'slowFactor' must be a number >= 1, got " + v);
            }
            slow = v.asDouble();
        }
        int fail = body.has("failNext") ? intIn(body, "failNext", 0, Integer.MAX_VALUE) : -1;
        int cut = body.has("cutAfterTokens") ? intIn(body, "cutAfterTokens", 0, Integer.MAX_VALUE) : -1;
        Boolean d = body.has("down") ? bool(body, "down") : null;
        if (slow >= 1) {
            slowFactor[g] = slow;
            boolean any = false;
            for (double f : slowFactor) {
                any |= f > 1;
            }
            anySlow = any;
        }
        if (fail >= 0) {
            failNext.set(g, fail);
        }
        if (cut >= 0) {
            cutAfterTokens.set(g, cut);
        }
        if (d != null) {
            down.set(g, d ? 1 : 0);
        }
    }

    private static int intIn(JsonNode body, String field, int min, int max) {
        JsonNode v = body.get(field);
        if (!v.canConvertToInt() || !v.isIntegralNumber() || v.asInt() < min || v.asInt() > max) {
            throw new IllegalArgumentException("field '" + field + "' must be an integer in " + min + ".."
                    + (max == Integer.MAX_VALUE ? "" : max) + ", got " + v);
        }
        return v.asInt();
    }

    private static boolean bool(JsonNode body, String field) {
        JsonNode v = body.get(field);
        if (!v.isBoolean()) {
            throw new IllegalArgumentException("field '" + field + "' must be true or false, got " + v);
        }
        return v.asBoolean();
    }

    synchronized ObjectNode toJson(ObjectMapper json) {
        ObjectNode out = json.createObjectNode();
        ArrayNode r = out.putArray("ranks");
        for (int g = 0; g < ranks; g++) {
            r.addObject().put("rank", g).put("slowFactor", slowFactor[g]).put("failNext", failNext.get(g))
                    .put("cutAfterTokens", cutAfterTokens.get(g)).put("down", down.get(g) != 0);
        }
        ArrayNode p = out.putArray("prefill");
        for (int i = 0; i < prefills; i++) {
            p.addObject().put("prefill", i).put("failNext", prefillFailNext.get(i)).put("down", prefillDown.get(i) != 0);
        }
        return out;
    }
}
