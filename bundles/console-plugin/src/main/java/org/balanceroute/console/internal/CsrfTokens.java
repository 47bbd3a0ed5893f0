package org.balanceroute.console.internal;

import java.nio.charset.StandardCharsets;
import java.security.InvalidKeyException;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.SecureRandom;
import java.util.Base64;
import java.util.function.LongSupplier;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * CSRF tokens for the console page's POSTs (the web console has no CSRF protection of its own, and
 * a browser sends its cached Basic credentials with any cross-site request). Stateless, signed:
 * {@code v1.ISSUED.MAC} where ISSUED is the issue time in epoch seconds and MAC is
 * HMAC-SHA256(key, user NUL ISSUED), base64url. The key is 32 random bytes made when the plugin
 * starts, so a restart invalidates every token (the page then asks for a reload). A token is valid
 * for {@link #VALIDITY_SECONDS} and only for the user it was issued to; the page gets a fresh one
 * with every state poll.
 *
 * <p>Why this works: the token reaches only pages of the console's own origin (the page's HTML and
 * its JSON polls), which another site's script cannot read (same-origin policy), and a cross-site
 * form or fetch cannot set the request header it travels in. Why not a session-stored token: the
 * console authenticates with HTTP Basic and keeps no session; a signed token needs no server state
 * and survives any number of tabs. Thread-safe.
 */
final class CsrfTokens {

    /** The request header the page sends the token in. */
    static final String HEADER = "X-BalanceRoute-CSRF";
    static final long VALIDITY_SECONDS = 3600;
    private static final String VERSION = "v1";
    private static final String MAC = "HmacSHA256";

    /** What {@link #check} found. */
    enum Verdict {
        VALID("valid"),
        MISSING("no CSRF token (header " + HEADER + ")"),
        MALFORMED("a malformed CSRF token"),
        EXPIRED("an expired CSRF token"),
        INVALID("an invalid CSRF token (issued to another user or before a restart)");

        final String description;

        Verdict(String description) {
            this.description = description;
        }
    }

    private final SecretKeySpec key;
    private final LongSupplier nowSeconds;

    CsrfTokens(byte[] key, LongSupplier nowSeconds) {
        if (key.length < 16) {
            throw new IllegalArgumentException("a CSRF key needs at least 16 bytes");
        }
        this.key = new SecretKeySpec(key.clone(), MAC);
        this.nowSeconds = nowSeconds;
    }

    /** With a fresh random key and the system clock. */
    static CsrfTokens random() {
        byte[] key = new byte[32];
        new SecureRandom().nextBytes(key);
        return new CsrfTokens(key, () -> System.currentTimeMillis() / 1000);
    }

    /** A token for {@code user} (null: an unauthenticated request, as "" ). */
    String issue(String user) {
        long issued = nowSeconds.getAsLong();
        return VERSION + "." + issued + "." + mac(user, issued);
    }

    Verdict check(String token, String user) {
        if (token == null || token.isEmpty()) {
            return Verdict.MISSING;
        }
        String[] parts = token.split("\\.", -1);
        if (parts.length != 3 || !parts[0].equals(VERSION)) {
            return Verdict.MALFORMED;
        }
        long issued;
        try {
            issued = Long.parseLong(parts[1]);
        } catch (NumberFormatException e) {
            return Verdict.MALFORMED;
        }
        boolean macOk = MessageDigest.isEqual(mac(user, issued).getBytes(StandardCharsets.US_ASCII),
                parts[2].getBytes(StandardCharsets.US_ASCII));
        if (!macOk) {
            return Verdict.INVALID;
        }
        long age = nowSeconds.getAsLong() - issued;
        return age < -60 || age > VALIDITY_SECONDS ? Verdict.EXPIRED : Verdict.VALID;
    }

    private String mac(String user, long issued) {
        try {
            Mac mac = Mac.getInstance(MAC);
            mac.init(key);
            byte[] m = mac.doFinal(((user == null ? "" : user) + "\0" + issued).getBytes(StandardCharsets.UTF_8));
            return Base64.getUrlEncoder().withoutPadding().encodeToString(m);
        } catch (NoSuchAlgorithmException | InvalidKeyException e) {
            throw new IllegalStateException("HmacSHA256 is required of every Java platform", e);
        }
    }
}
