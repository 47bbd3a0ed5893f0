package org.balanceroute.wire;

import com.fasterxml.jackson.databind.JsonNode;
import java.math.BigDecimal;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * The types vLLM's OpenAI server declares for the fields of a completions and a chat completions
 * body (the pydantic models {@code CompletionRequest} and {@code ChatCompletionRequest} of
 * vllm/entrypoints/openai/protocol.py), checked the way pydantic checks them in its default (lax)
 * mode: a number may come as a numeric string, an integer as a float without a fraction, a
 * boolean as 0/1 or "true"/"no"/...; {@code null} is "not given". A field that does not validate
 * is vLLM's 400 with pydantic's words ({@code temperature: Input should be a valid number}).
 * Fields not listed here are not checked (vLLM ignores what it does not know), and neither are
 * values' ranges, which vLLM checks later, each with its own message.
 */
public final class VllmRequestSchema {

    /** The first field that does not validate: the body's top-level key and the message naming the path. */
    public record Violation(String field, String message) {
    }

    private enum Kind { STRING, NUMBER, INTEGER, BOOLEAN, STOP, STREAM_OPTIONS, OBJECT, MESSAGES, PROMPT }

    private static final Map<String, Kind> COMMON = Map.ofEntries(
            Map.entry("model", Kind.STRING), Map.entry("user", Kind.STRING),
            Map.entry("max_tokens", Kind.INTEGER), Map.entry("min_tokens", Kind.INTEGER), Map.entry("n", Kind.INTEGER),
            Map.entry("seed", Kind.INTEGER), Map.entry("top_k", Kind.INTEGER),
            Map.entry("temperature", Kind.NUMBER), Map.entry("top_p", Kind.NUMBER), Map.entry("min_p", Kind.NUMBER),
            Map.entry("presence_penalty", Kind.NUMBER), Map.entry("frequency_penalty", Kind.NUMBER),
            Map.entry("repetition_penalty", Kind.NUMBER),
            Map.entry("stream", Kind.BOOLEAN), Map.entry("ignore_eos", Kind.BOOLEAN),
            Map.entry("stop", Kind.STOP), Map.entry("stream_options", Kind.STREAM_OPTIONS),
            Map.entry(KvHandle.FIELD, Kind.OBJECT));
    /** Chat: {@code logprobs} is a flag (the count is {@code top_logprobs}). */
    private static final Map<String, Kind> CHAT = Map.of("messages", Kind.MESSAGES,
            "max_completion_tokens", Kind.INTEGER, "logprobs", Kind.BOOLEAN, "top_logprobs", Kind.INTEGER);
    /** Completions: {@code logprobs} is a count. */
    private static final Map<String, Kind> COMPLETIONS = Map.of("prompt", Kind.PROMPT, "logprobs", Kind.INTEGER,
            "echo", Kind.BOOLEAN, "suffix", Kind.STRING);
    private static final Set<String> TRUE = Set.of("1", "on", "t", "true", "y", "yes");
    private static final Set<String> FALSE = Set.of("0", "off", "f", "false", "n", "no");
    /** Strings Python's float() takes that are not decimals. */
    private static final Set<String> NON_FINITE = Set.of("inf", "+inf", "-inf", "infinity", "+infinity", "-infinity",
            "nan", "+nan", "-nan");

    private VllmRequestSchema() {
    }

    /** The body's first field, in its own order, whose type vLLM refuses; null when every field passes. */
    public static Violation check(JsonNode body, boolean chat) {
        for (Map.Entry<String, JsonNode> e : body.properties()) {
            String field = e.getKey();
            Kind kind = (chat ? CHAT : COMPLETIONS).getOrDefault(field, COMMON.get(field));
            String problem = kind == null ? null : problem(kind, field, e.getValue());
            if (problem != null) {
                return new Violation(field, problem);
            }
        }
        return null;
    }

    /** A boolean as pydantic reads one (true, 1, "yes", ...); null when it is none. */
    public static Boolean bool(JsonNode v) {
        if (v.isBoolean()) {
            return v.booleanValue();
        }
        if (v.isNumber()) {
            double d = v.doubleValue();
            return d == 1 ? Boolean.TRUE : d == 0 ? Boolean.FALSE : null;
        }
        if (v.isTextual()) {
            String s = v.textValue().trim().toLowerCase(Locale.ROOT);
            return TRUE.contains(s) ? Boolean.TRUE : FALSE.contains(s) ? Boolean.FALSE : null;
        }
        return null;
    }

    /** An integer as pydantic reads one (5, 5.0, "5", true); null when it is none, or one beyond a long. */
    public static Long integer(JsonNode v) {
        BigDecimal d = decimal(v);
        try {
            return d == null ? null : d.longValueExact();
        } catch (ArithmeticException fractionalOrTooLarge) {
            return null;
        }
    }

    private static BigDecimal decimal(JsonNode v) {
        if (v.isBoolean()) {
            return v.booleanValue() ? BigDecimal.ONE : BigDecimal.ZERO;
        }
        if (v.isNumber()) {
            return v.isFloatingPointNumber() && !Double.isFinite(v.doubleValue()) ? null : v.decimalValue();
        }
        if (v.isTextual()) {
            try {
                return new BigDecimal(v.textValue().trim());
            } catch (NumberFormatException e) {
                return null;
            }
        }
        return null;
    }

    private static String problem(Kind kind, String path, JsonNode v) {
        if (v.isNull()) {
            return null;
        }
        String wrong = switch (kind) {
            case STRING -> v.isTextual() ? null : "Input should be a valid string";
            case NUMBER -> number(v);
            case INTEGER -> integerProblem(path, v);
            case BOOLEAN -> bool(v) != null ? null : v.isTextual() || v.isNumber()
                    ? "Input should be a valid boolean, unable to interpret input" : "Input should be a valid boolean";
            case STOP -> v.isTextual() || (v.isArray() && every(v, JsonNode::isTextual)) ? null
                    : "Input should be a valid string or a list of strings";
            case OBJECT -> v.isObject() ? null : "Input should be a valid dictionary";
            case STREAM_OPTIONS -> v.isObject() ? null : "Input should be a valid dictionary or instance of StreamOptions";
            case MESSAGES -> v.isArray() ? null : "Input should be a valid list";
            case PROMPT -> prompt(v) ? null
                    : "Input should be a valid string, a list of strings, a list of token ids or a list of such lists";
        };
        if (wrong != null) {
            return path + ": " + wrong;
        }
        if (kind == Kind.STREAM_OPTIONS) {
            return nested(v, path, Map.of("include_usage", Kind.BOOLEAN, "continuous_usage_stats", Kind.BOOLEAN));
        }
        if (kind == Kind.MESSAGES) {
            for (int i = 0; i < v.size(); i++) {
                String p = message(v.get(i), path + "." + i);
                if (p != null) {
                    return p;
                }
            }
        }
        return null;
    }

    private static String nested(JsonNode object, String path, Map<String, Kind> kinds) {
        for (Map.Entry<String, Kind> k : kinds.entrySet()) {
            JsonNode v = object.get(k.getKey());
            String p = v == null ? null : problem(k.getValue(), path + "." + k.getKey(), v);
            if (p != null) {
                return p;
            }
        }
        return null;
    }

    /** One chat message: an object with a string {@code role}; {@code content} text or a list of parts. */
    private static String message(JsonNode m, String path) {
        if (!m.isObject()) {
            return path + ": Input should be a valid dictionary";
        }
        JsonNode role = m.get("role");
        if (role == null) {
            return path + ".role: Field required";
        }
        if (!role.isTextual()) {
            return path + ".role: Input should be a valid string";
        }
        JsonNode content = m.get("content");
        if (content == null || content.isNull() || content.isTextual()) {
            return null;
        }
        if (!content.isArray()) {
            return path + ".content: Input should be a valid string or a list of content parts";
        }
        for (int i = 0; i < content.size(); i++) {
            JsonNode part = content.get(i);
            if (!part.isObject() || !part.path("type").isTextual()) {
                return path + ".content." + i + ": Input should be a content part (an object with a string 'type')";
            }
        }
        return null;
    }

    private static String number(JsonNode v) {
        if (v.isNumber() || v.isBoolean() || decimal(v) != null || v.isTextual() && NON_FINITE.contains(
                v.textValue().trim().toLowerCase(Locale.ROOT))) {
            return null;
        }
        return v.isTextual() ? "Input should be a valid number, unable to parse string as a number"
                : "Input should be a valid number";
    }

    /** Python's int has no bounds: only {@code seed} declares a range (a 64-bit integer). */
    private static String integerProblem(String path, JsonNode v) {
        BigDecimal d = decimal(v);
        if (d == null) {
            return v.isTextual() ? "Input should be a valid integer, unable to parse string as an integer"
                    : "Input should be a valid integer";
        }
        if (!whole(d)) {
            return "Input should be a valid integer, got a number with a fractional part";
        }
        if (path.equals("seed") && integer(v) == null) {
            return "Input should be " + (d.signum() < 0 ? "greater than or equal to " + Long.MIN_VALUE
                    : "less than or equal to " + Long.MAX_VALUE);
        }
        return null;
    }

    private static boolean whole(BigDecimal d) {
        return d.signum() == 0 || d.stripTrailingZeros().scale() <= 0;
    }

    /** {@code str | list[str] | list[int] | list[list[int]]}; a token-id list read ahead of the tree is one. */
    private static boolean prompt(JsonNode v) {
        if (v.isTextual() || v.isPojo()) {
            return true;
        }
        if (!v.isArray()) {
            return false;
        }
        return every(v, JsonNode::isTextual) || every(v, VllmRequestSchema::tokenId)
                || every(v, p -> p.isArray() && every(p, VllmRequestSchema::tokenId));
    }

    private static boolean tokenId(JsonNode v) {
        BigDecimal d = v.isTextual() ? null : decimal(v);
        return d != null && whole(d);
    }

    private static boolean every(JsonNode array, java.util.function.Predicate<JsonNode> test) {
        for (JsonNode v : array) {
            if (!test.test(v)) {
                return false;
            }
        }
        return true;
    }
}
