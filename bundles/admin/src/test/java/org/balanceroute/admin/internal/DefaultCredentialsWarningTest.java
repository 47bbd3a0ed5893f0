package org.balanceroute.admin.internal;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Map;
import org.junit.jupiter.api.Test;

class DefaultCredentialsWarningTest {

    private final DefaultCredentialsWarning warning = new DefaultCredentialsWarning(new FakeConfigAdmin().service(), k -> null);

    @Test
    void theDefaultsInAnyFormAreSeenAndAChangedPasswordIsNot() {
        assertTrue(warning.check(Map.of("username", "admin", "password", "admin")));
        assertTrue(warning.check(Map.of()), "no values: the console's defaults");
        assertTrue(warning.check(Map.of("password", "{sha-256}jGl25bVBBBW96Qi9Te4V37Fnqchz/Eu4qB9vKrRIqRg=")),
                "the console's own hash of admin");
        assertFalse(warning.check(Map.of("username", "admin", "password", "s3cret-and-long")));
        assertFalse(warning.check(Map.of("username", "ops", "password", "admin")));
    }
}
