package org.balanceroute.proxy.internal;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * The body that continues a decode the engine ended with {@code stop_reason: "recomputed"}
 * (vllm-ascend: the decode ran out of KV): the client's body with the text generated so far
 * appended to the prompt and the token budget reduced by the tokens already produced. It goes
 * through a new prefill and a new placement, as vllm-ascend's own proxy does.
 *
 * <ul>
 *   <li>{@code /v1/completions}, text prompt (or an array of one string): the generated text is
 *       appended to the prompt; {@code echo} is turned off (the client saw its prompt already).
 *   <li>{@code /v1/chat/completions}: an assistant message with the generated text is appended
 *       and sent with vLLM's {@code continue_final_message: true, add_generation_prompt: false},
 *       so the chat template leaves that message open and the model continues it (rather than
 *       starting a new turn). When the client itself sent an open assistant message
 *       ({@code continue_final_message: true}), the text is appended to that message instead.
 *       Engine-specific: an engine without {@code continue_final_message} would answer a new
 *       turn.
 *   <li>Refused with an {@link OpenAiError}: a prompt of token ids (the generated text cannot be
 *       appended as ids the proxy does not have), several prompts, or {@code n > 1}.
 * </ul>
 *
 * <p>{@code max_tokens}, {@code max_completion_tokens} and {@code min_tokens}, when present, are
 * reduced by the tokens produced; without a limit the engine's own applies.
 */
final class Resubmission {

    private Resubmission() {
    }

    /**
     * @param original the client's validated body; not modified
     * @param generated the text the client has received so far
     * @param produced the output tokens of that text
     * @return the body to re-submit, or null when no token of the client's budget is left
     * @throws OpenAiError (502) when the request cannot be continued
     */
    static ObjectNode body(Endpoint endpoint, ObjectNode original, String generated, long produced) {
        JsonNode n = original.get("n");
        if (n != null && n.canConvertToInt() && n.intValue() > 1) {
            throw cannot("n > 1: several choices cannot be continued as one");
        }
        ObjectNode next = original.deepCopy();
        if (!reduce(next, "max_tokens", produced, 1) || !reduce(next, "max_completion_tokens", produced, 1)) {
            return null;
        }
        reduce(next, "min_tokens", produced, 0);
        if (endpoint == Endpoint.COMPLETIONS) {
            JsonNode prompt = next.get("prompt");
            if (prompt.isArray() && prompt.size() == 1 && prompt.get(0).isTextual()) {
                prompt = prompt.get(0);
            }
            if (!prompt.isTextual()) {
                throw cannot("the prompt is token ids (or several prompts): the text generated so far cannot be"
                        + " appended to it");
            }
            next.put("prompt", prompt.textValue() + generated);
            next.put("echo", false);
        } else {
            ArrayNode messages = (ArrayNode) next.get("messages");
            JsonNode last = messages.get(messages.size() - 1);
            boolean open = next.path("continue_final_message").asBoolean(false);
            if (open && last instanceof ObjectNode m && "assistant".equals(m.path("role").asText())
                    && m.path("content").isTextual()) {
                m.put("content", m.get("content").textValue() + generated);
            } else {
                messages.addObject().put("role", "assistant").put("content", generated);
            }
            next.put("continue_final_message", true);
            next.put("add_generation_prompt", false);
        }
        return next;
    }

    /** Lowers a limit by the tokens produced; false when it is present and nothing of it is left. */
    private static boolean reduce(ObjectNode body, String field, long produced, long min) {
        JsonNode v = body.get(field);
        if (v == null || !v.canConvertToLong()) {
            return true;
        }
        long left = v.longValue() - produced;
        if (left < min) {
            if (min > 0) {
                return false;
            }
            left = min;
        }
        body.put(field, left);
        return true;
    }

    private static OpenAiError cannot(String why) {
        return new OpenAiError(502, OpenAiError.SERVER, "the decode worker ran out of KV cache (stop_reason"
                + " 'recomputed') and the request cannot be re-submitted: " + why, null);
    }
}
