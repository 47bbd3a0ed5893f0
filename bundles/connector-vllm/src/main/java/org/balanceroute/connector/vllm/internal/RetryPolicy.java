package org.balanceroute.connector.vllm.internal;

/**
 * When the prefill hop is tried again, and after how long. Retried: no answer at all
 * (connection refused or cut, timeout: status 0), 408, 429 and 5xx. Never retried: 400 (the
 * request itself is wrong; a new attempt would fail the same way, docs/vllm-contract.md "Retries") and every
 * other 4xx. Backoff: {@code baseMillis * 2^(attempt-1)}, capped at {@code maxMillis}.
 *
 * @param retries attempts after the first (0: no retry)
 */
public record RetryPolicy(int retries, long baseMillis, long maxMillis) {

    public RetryPolicy {
        if (retries < 0 || baseMillis < 0 || maxMillis < baseMillis) {
            throw new IllegalArgumentException("retries >= 0, 0 <= baseMillis <= maxMillis");
        }
    }

    /** Whether this upstream status (0: no answer) may be retried at all. */
    public static boolean retryable(int status) {
        return status == 0 || status == 408 || status == 429 || status >= 500;
    }

    /** Whether attempt number {@code attempt} (1 = the first) that ended with {@code status} is followed by another. */
    public boolean retryAfter(int attempt, int status) {
        return attempt <= retries && retryable(status);
    }

    /** Wait before attempt {@code attempt + 1}. */
    public long backoffMillis(int attempt) {
        long d = baseMillis << Math.min(30, Math.max(0, attempt - 1));
        return Math.min(maxMillis, d);
    }
}
