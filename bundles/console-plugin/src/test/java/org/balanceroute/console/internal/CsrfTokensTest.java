package org.balanceroute.console.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;

import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class CsrfTokensTest {

    private final AtomicLong now = new AtomicLong(1_800_000_000L);
    private final CsrfTokens tokens = new CsrfTokens("0123456789abcdef0123456789abcdef".getBytes(), now::get);

    @Test
    void aTokenIsValidForItsUserOnly() {
        String t = tokens.issue("admin");
        assertEquals(CsrfTokens.Verdict.VALID, tokens.check(t, "admin"));
        assertEquals(CsrfTokens.Verdict.INVALID, tokens.check(t, "ops"));
        assertEquals(CsrfTokens.Verdict.INVALID, tokens.check(t, ""));
    }

    @Test
    void missingMalformedAndForged() {
        assertEquals(CsrfTokens.Verdict.MISSING, tokens.check(null, "admin"));
        assertEquals(CsrfTokens.Verdict.MISSING, tokens.check("", "admin"));
        assertEquals(CsrfTokens.Verdict.MALFORMED, tokens.check("abc", "admin"));
        assertEquals(CsrfTokens.Verdict.MALFORMED, tokens.check("v2.1.x", "admin"));
        assertEquals(CsrfTokens.Verdict.MALFORMED, tokens.check("v1.notanumber.x", "admin"));
        String t = tokens.issue("admin");
        String[] parts = t.split("\\.");
        // the issue time cannot be moved without the MAC
        assertEquals(CsrfTokens.Verdict.INVALID, tokens.check(parts[0] + "." + (Long.parseLong(parts[1]) + 1) + "." + parts[2], "admin"));
        assertEquals(CsrfTokens.Verdict.INVALID, tokens.check(t.substring(0, t.length() - 1) + (t.endsWith("A") ? "B" : "A"), "admin"));
    }

    @Test
    void anotherKeyMeansARestartAndInvalidatesTokens() {
        CsrfTokens restarted = new CsrfTokens("fedcba9876543210fedcba9876543210".getBytes(), now::get);
        assertEquals(CsrfTokens.Verdict.INVALID, restarted.check(tokens.issue("admin"), "admin"));
        assertNotEquals(CsrfTokens.random().issue("admin"), CsrfTokens.random().issue("admin"));
    }

    @Test
    void tokensExpire() {
        String t = tokens.issue("admin");
        now.addAndGet(CsrfTokens.VALIDITY_SECONDS);
        assertEquals(CsrfTokens.Verdict.VALID, tokens.check(t, "admin"));
        now.incrementAndGet();
        assertEquals(CsrfTokens.Verdict.EXPIRED, tokens.check(t, "admin"));
    }
}
