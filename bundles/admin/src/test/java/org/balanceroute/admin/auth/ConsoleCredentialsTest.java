package org.balanceroute.admin.auth;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.Test;

class ConsoleCredentialsTest {

    private static final UnaryOperator<String> NO_FRAMEWORK_PROPERTIES = k -> null;
    /** The console's built-in default password: the unsalted SHA-256 of "admin". */
    static final String CONSOLE_DEFAULT_HASH = "{sha-256}jGl25bVBBBW96Qi9Te4V37Fnqchz/Eu4qB9vKrRIqRg=";
    /** What webconsole 5.0.18 wrote for the plain password "s3cr:et" (salt, 1000 rounds). */
    static final String CONSOLE_SALTED_HASH = "{sha-256}a886c3d1f16a4fc5-1000-5Nb/D7u8ZQXLRYNFZEs1MA2BORT8oslK5TSmtECQmO8=";

    private static ConsoleCredentials of(Map<String, ?> config) {
        return ConsoleCredentials.of(config, NO_FRAMEWORK_PROPERTIES);
    }

    @Test
    void withoutConfigurationTheConsoleDefaultsApply() {
        ConsoleCredentials c = of(Map.of());
        assertNull(c.problem());
        assertTrue(c.matches("admin", "admin"));
        assertTrue(c.isDefault());
        assertFalse(c.matches("admin", "admin2"));
        assertFalse(c.matches("root", "admin"));
    }

    @Test
    void aPlainPasswordAsAnOperatorWritesIt() {
        ConsoleCredentials c = of(Map.of("username", "ops", "password", "s3cret"));
        assertTrue(c.matches("ops", "s3cret"));
        assertFalse(c.matches("ops", "s3cre"));
        assertFalse(c.matches("ops", "s3cret "));
        assertFalse(c.isDefault());
    }

    @Test
    void theConsolesOwnHashes() {
        ConsoleCredentials unsalted = of(Map.of("username", "admin", "password", CONSOLE_DEFAULT_HASH));
        assertTrue(unsalted.matches("admin", "admin"));
        assertTrue(unsalted.isDefault());
        assertFalse(unsalted.matches("admin", CONSOLE_DEFAULT_HASH));

        ConsoleCredentials salted = of(Map.of("username", "ops", "password", CONSOLE_SALTED_HASH));
        assertNull(salted.problem());
        assertTrue(salted.matches("ops", "s3cr:et"));
        assertFalse(salted.matches("ops", "s3cr:eT"));
        assertFalse(salted.matches("ops", CONSOLE_SALTED_HASH));
        assertFalse(salted.isDefault());
    }

    @Test
    void theAdminDefaultHashedWithSaltIsStillTheDefault() throws Exception {
        // what the console writes back for password=admin: salted, 1000 rounds
        String salt = "0123456789abcdef";
        byte[] b = (salt + "admin").getBytes(StandardCharsets.UTF_8);
        java.security.MessageDigest md = java.security.MessageDigest.getInstance("SHA-256");
        for (int i = 0; i < 1000; i++) {
            md.reset();
            b = md.digest(b);
        }
        String hash = "{sha-256}" + salt + "-1000-" + Base64.getEncoder().encodeToString(b);
        assertTrue(of(Map.of("username", "admin", "password", hash)).isDefault());
        assertFalse(of(Map.of("username", "root", "password", hash)).isDefault());
    }

    @Test
    void frameworkPropertiesStandInForMissingValues() {
        ConsoleCredentials c = ConsoleCredentials.of(Map.of(),
                k -> k.equals(ConsoleCredentials.FRAMEWORK_USERNAME) ? "fw" : k.equals(ConsoleCredentials.FRAMEWORK_PASSWORD) ? "pw" : null);
        assertTrue(c.matches("fw", "pw"));
        assertFalse(c.isDefault());
        // the configuration wins over them
        assertTrue(ConsoleCredentials.of(Map.of("password", "cfg"), k -> "fw").matches("fw", "cfg"));
    }

    @Test
    void whatCannotBeCheckedRefusesEveryone() {
        for (Map<String, ?> bad : java.util.List.<Map<String, ?>>of(
                Map.of("username", "", "password", "x"),
                Map.of("username", "ops", "password", ""),
                Map.of("username", "a:b", "password", "x"),
                Map.of("password", "{nosuchdigest}abc="),
                Map.of("password", "{sha-256}"),
                Map.of("password", "{sha-256}salt-notanumber-abc="),
                Map.of("password", "{sha-256}salt-0-abc="),
                Map.of("password", "{sha-256}a-1-b-c"),
                Map.of("password", "{sha-256}!!!"))) {
            ConsoleCredentials c = of(bad);
            assertNotNull(c.problem(), bad.toString());
            assertFalse(c.matches("ops", "x"), bad.toString());
            assertFalse(c.matches("admin", "admin"), bad.toString());
            assertFalse(c.isDefault(), bad.toString());
        }
    }

    @Test
    void aPasswordInBracesThatIsNoHashIsPlain() {
        assertTrue(of(Map.of("password", "{x")).matches("admin", "{x"));
    }

    @Test
    void basicHeaders() {
        String h = "Basic " + Base64.getEncoder().encodeToString("ops:pa:ss".getBytes(StandardCharsets.UTF_8));
        assertArrayEquals(new String[] {"ops", "pa:ss"}, ConsoleCredentials.basic(h));
        assertArrayEquals(new String[] {"ops", "pa:ss"}, ConsoleCredentials.basic(h.replace("Basic", "basic")));
        assertNull(ConsoleCredentials.basic(null));
        assertNull(ConsoleCredentials.basic("Bearer abc"));
        assertNull(ConsoleCredentials.basic("Basic !!!"));
        assertNull(ConsoleCredentials.basic("Basic " + Base64.getEncoder().encodeToString("nocolon".getBytes())));
    }

    @Test
    void charArrayPasswordsAsConfigAdminMayHoldThem() {
        assertTrue(of(Map.of("password", "pw".toCharArray())).matches("admin", "pw"));
    }

    /**
     * The constant-time property, checked structurally: whatever is wrong (the first byte, the
     * last, the length, the user name, both, nothing), matches makes the same two comparisons, of
     * whole arrays of the same lengths. A naive {@code String.equals}, an early return after the
     * user name, or a comparison of the raw given bytes (whose length follows the input) fails it.
     */
    @Test
    void everyAttemptMakesTheSameTwoWholeComparisons() {
        for (String stored : List.of("s3cr:et", CONSOLE_DEFAULT_HASH, CONSOLE_SALTED_HASH)) {
            String password = stored.equals(CONSOLE_DEFAULT_HASH) ? "admin" : "s3cr:et";
            ConsoleCredentials c = of(Map.of("username", "ops", "password", stored));
            List<String> expected = null;
            for (String[] attempt : new String[][] {
                    {"ops", password}, {"ops", "X" + password.substring(1)},
                    {"ops", password.substring(0, password.length() - 1) + "X"}, {"ops", password + "X"},
                    {"ops", ""}, {"ops", password.repeat(200)}, {"Xps", password}, {"opX", password},
                    {"", password}, {"ops".repeat(500), "X"}}) {
                List<String> calls = new ArrayList<>();
                boolean ok = c.comparingWith((a, b) -> {
                    calls.add(a.length + "/" + b.length);
                    return MessageDigest.isEqual(a, b);
                }).matches(attempt[0], attempt[1]);
                assertEquals(attempt[0].equals("ops") && attempt[1].equals(password), ok, stored + " " + List.of(attempt));
                assertEquals(2, calls.size(), stored + " " + List.of(attempt) + ": " + calls);
                if (expected == null) {
                    expected = calls;
                    assertEquals("32/32", calls.get(0), "the user names as SHA-256 digests");
                }
                assertEquals(expected, calls, stored + " " + List.of(attempt) + ": the same comparisons as the right one");
            }
        }
    }
}
