package org.balanceroute.connector.vllm;

/**
 * An upstream hop failed: {@link #status()} is the engine's HTTP status and {@link #body()} its
 * body (an OpenAI error body from vLLM), or status 0 and a null body when no answer came
 * (connection refused, timeout, cut), the cause attached. Not final: {@link PrefillQueueFullException}
 * is one that never reached an upstream.
 */
public class UpstreamException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    private final int status;
    private final transient byte[] body;

    public UpstreamException(int status, byte[] body, String message, Throwable cause) {
        super(message, cause);
        this.status = status;
        this.body = body;
    }

    /** The upstream HTTP status, 0 when none came. */
    public int status() {
        return status;
    }

    /** The upstream body, null when none came. */
    public byte[] body() {
        return body;
    }
}
