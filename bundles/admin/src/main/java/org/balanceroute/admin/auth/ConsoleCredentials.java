package org.balanceroute.admin.auth;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Base64;
import java.util.Map;
import java.util.function.BiPredicate;
import java.util.function.UnaryOperator;

/**
 * The web console's credentials, as its configuration (PID {@value #PID}) gives them, checked
 * the way the console checks them, so that one user name and password opens both the console and
 * the admin REST API: an operator changes one configuration.
 *
 * <p>The console keeps the password in one of two forms. Plain text is what an operator writes in
 * the {@code .cfg} file; the console then hashes it on first use and writes it back (FileInstall
 * writes it to the file) as {@code {sha-256}SALT-ITERATIONS-BASE64}: {@code ITERATIONS} rounds of
 * the digest over {@code SALT + password} (UTF-8; the salt is the hex text itself), Base64-encoded.
 * The older unsalted form {@code {sha-256}BASE64} (one round over the password alone) is the
 * console's built-in default for "admin". Both are accepted, with any digest the JVM provides.
 * Comparisons take a time independent of where the values differ and of the given values' lengths:
 * the user name and a plain password are compared as SHA-256 digests, so every comparison is of two
 * arrays of one fixed length, and both comparisons are always made.
 *
 * <p>Missing values take the console's own defaults: the framework properties
 * {@code felix.webconsole.username} / {@code felix.webconsole.password}, else admin / admin.
 *
 * <p><b>Fail closed.</b> A configuration that cannot be checked safely is {@link #problem() a
 * problem}, and then {@link #matches} refuses everyone: an empty user name or password (the
 * console would accept an empty password; the admin API does not), a user name containing
 * {@code ':'} (HTTP Basic cannot carry it), a hash whose digest the JVM lacks or whose text is not
 * well formed. Immutable and thread-safe.
 */
public final class ConsoleCredentials {

    /** The web console's configuration PID. */
    public static final String PID = "org.apache.felix.webconsole.internal.servlet.OsgiManager";
    public static final String USERNAME = "username";
    public static final String PASSWORD = "password";
    /** Framework properties the console falls back to when its configuration has no value. */
    public static final String FRAMEWORK_USERNAME = "felix.webconsole.username";
    public static final String FRAMEWORK_PASSWORD = "felix.webconsole.password";
    /** The console's defaults (its password default is the unsalted SHA-256 hash of "admin"). */
    public static final String DEFAULT_USERNAME = "admin";
    public static final String DEFAULT_PASSWORD = "admin";

    private static final String PLAIN_DIGEST = "SHA-256";

    private final String user;
    private final byte[] expectedUser; // its SHA-256
    private final String algorithm; // null: plain text
    private final String salt; // null: unsalted
    private final int iterations;
    private final byte[] expected; // the hash's digest, or the plain password's SHA-256
    private final String problem;
    private final BiPredicate<byte[], byte[]> equal;

    private ConsoleCredentials(String user, String algorithm, String salt, int iterations, byte[] expected,
            String problem, BiPredicate<byte[], byte[]> equal) {
        this.user = user;
        this.expectedUser = sha256(user);
        this.algorithm = algorithm;
        this.salt = salt;
        this.iterations = iterations;
        this.expected = expected;
        this.problem = problem;
        this.equal = equal;
    }

    /** These credentials comparing with {@code equal} instead of MessageDigest.isEqual (a test counts the calls). */
    ConsoleCredentials comparingWith(BiPredicate<byte[], byte[]> equal) {
        return new ConsoleCredentials(user, algorithm, salt, iterations, expected, problem, equal);
    }

    /**
     * The credentials of a console configuration.
     *
     * @param config the properties of PID {@value #PID} (empty when it has no configuration)
     * @param frameworkProperty the framework's properties ({@code BundleContext::getProperty}); may
     *     answer null
     */
    public static ConsoleCredentials of(Map<String, ?> config, UnaryOperator<String> frameworkProperty) {
        String user = text(config.get(USERNAME), frameworkProperty.apply(FRAMEWORK_USERNAME), DEFAULT_USERNAME);
        String password = text(config.get(PASSWORD), frameworkProperty.apply(FRAMEWORK_PASSWORD), DEFAULT_PASSWORD);
        if (user.isEmpty() || password.isEmpty()) {
            return refused(user, "the user name and the password must be non-empty");
        }
        if (user.indexOf(':') >= 0) {
            return refused(user, "the user name must not contain ':'");
        }
        int end = password.startsWith("{") ? password.indexOf('}') : -1;
        if (end <= 0) {
            return new ConsoleCredentials(user, null, null, 1, sha256(password), null, MessageDigest::isEqual);
        }
        String algorithm = password.substring(1, end);
        try {
            MessageDigest.getInstance(algorithm);
        } catch (NoSuchAlgorithmException e) {
            return refused(user, "the password's hash algorithm '" + algorithm + "' is not available");
        }
        // SALT-ITERATIONS-HASH, SALT-HASH (one round) or HASH; Base64 has no '-'
        String[] parts = password.substring(end + 1).split("-", -1);
        String salt = parts.length > 1 ? parts[0] : null;
        int iterations = 1;
        if (parts.length == 3) {
            try {
                iterations = Integer.parseInt(parts[1]);
            } catch (NumberFormatException e) {
                iterations = 0;
            }
        }
        byte[] hash;
        try {
            hash = Base64.getDecoder().decode(parts[parts.length - 1]);
        } catch (IllegalArgumentException e) {
            hash = new byte[0];
        }
        if (parts.length > 3 || iterations < 1 || iterations > 1_000_000 || hash.length == 0
                || (salt != null && salt.isEmpty())) {
            return refused(user, "the password's hash is not of the form {ALGORITHM}[SALT-[ITERATIONS-]]BASE64");
        }
        return new ConsoleCredentials(user, algorithm, salt, iterations, hash, null, MessageDigest::isEqual);
    }

    private static ConsoleCredentials refused(String user, String problem) {
        return new ConsoleCredentials(user, null, null, 1, null, problem, MessageDigest::isEqual);
    }

    private static String text(Object value, String fallback, String defaultValue) {
        if (value == null) {
            return fallback != null ? fallback : defaultValue;
        }
        return value instanceof char[] chars ? new String(chars) : String.valueOf(value);
    }

    /** Why these credentials refuse everyone, or null when they can be used. */
    public String problem() {
        return problem;
    }

    /** The configured user name. */
    public String user() {
        return user;
    }

    /**
     * Whether {@code user} / {@code password} are these credentials; always false while there is a
     * {@link #problem()}. Both the user name and the password are always compared, each as two
     * whole digests of one length (for a given hash setting), so the time does not tell which of
     * them, or where, differs.
     */
    public boolean matches(String user, String password) {
        if (problem != null || user == null || password == null) {
            return false;
        }
        boolean userOk = equal.test(sha256(user), expectedUser);
        byte[] given = algorithm == null ? sha256(password) : digest(password);
        boolean passwordOk = equal.test(given, expected);
        return userOk & passwordOk;
    }

    /**
     * Whether the console's default admin / admin is in force (the operator has not changed it):
     * shown as a warning by the console plugin.
     */
    public boolean isDefault() {
        return matches(DEFAULT_USERNAME, DEFAULT_PASSWORD);
    }

    private byte[] digest(String password) {
        try {
            MessageDigest md = MessageDigest.getInstance(algorithm);
            byte[] bytes = ((salt == null ? "" : salt) + password).getBytes(StandardCharsets.UTF_8);
            for (int i = 0; i < iterations; i++) {
                md.reset();
                bytes = md.digest(bytes);
            }
            return bytes;
        } catch (NoSuchAlgorithmException e) {
            return new byte[0]; // checked in of(); never equal to a decoded hash, which is non-empty
        }
    }

    private static byte[] sha256(String text) {
        try {
            return MessageDigest.getInstance(PLAIN_DIGEST).digest(text.getBytes(StandardCharsets.UTF_8));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every Java platform has " + PLAIN_DIGEST, e);
        }
    }

    /**
     * A user name and password from an HTTP Basic {@code Authorization} header value, or null if it
     * is not one. The password may contain ':'; the user name cannot.
     */
    public static String[] basic(String header) {
        if (header == null || header.length() < 6 || !header.regionMatches(true, 0, "Basic ", 0, 6)) {
            return null;
        }
        String decoded;
        try {
            decoded = new String(Base64.getDecoder().decode(header.substring(6).trim()), StandardCharsets.UTF_8);
        } catch (IllegalArgumentException e) {
            return null;
        }
        int colon = decoded.indexOf(':');
        return colon < 0 ? null : new String[] {decoded.substring(0, colon), decoded.substring(colon + 1)};
    }

    @Override
    public String toString() {
        return "ConsoleCredentials[user=" + user + ", " + (problem != null ? "refused: " + problem
                : algorithm == null ? "plain password" : "{" + algorithm + "} hash, " + iterations + " round(s)") + "]";
    }
}
