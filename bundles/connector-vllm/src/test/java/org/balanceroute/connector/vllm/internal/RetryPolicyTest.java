package org.balanceroute.connector.vllm.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class RetryPolicyTest {

    private final RetryPolicy policy = new RetryPolicy(3, 100, 1000);

    @Test
    void neverRetriesA400NorAnyOtherClientError() {
        for (int attempt = 1; attempt <= 3; attempt++) {
            assertFalse(policy.retryAfter(attempt, 400));
            assertFalse(policy.retryAfter(attempt, 404));
            assertFalse(policy.retryAfter(attempt, 413));
            assertFalse(policy.retryAfter(attempt, 422));
        }
    }

    @Test
    void retriesNoAnswerTimeoutsOverloadAndServerErrorsWhileAttemptsRemain() {
        for (int status : new int[] {0, 408, 429, 500, 502, 503, 504}) {
            assertTrue(policy.retryAfter(1, status), "status " + status);
            assertTrue(policy.retryAfter(3, status), "status " + status);
            assertFalse(policy.retryAfter(4, status), "after the last retry, status " + status);
        }
        assertFalse(new RetryPolicy(0, 100, 100).retryAfter(1, 503), "no retries configured");
    }

    @Test
    void backoffDoublesUpToTheCap() {
        assertEquals(100, policy.backoffMillis(1));
        assertEquals(200, policy.backoffMillis(2));
        assertEquals(400, policy.backoffMillis(3));
        assertEquals(800, policy.backoffMillis(4));
        assertEquals(1000, policy.backoffMillis(5));
        assertEquals(1000, policy.backoffMillis(60));
    }
}
