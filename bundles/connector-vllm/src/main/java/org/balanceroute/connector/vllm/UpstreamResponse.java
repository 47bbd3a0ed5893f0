package org.balanceroute.connector.vllm;

/** A whole upstream answer: status, content type (may be null) and body bytes. */
public record UpstreamResponse(int status, String contentType, byte[] body) {
}
