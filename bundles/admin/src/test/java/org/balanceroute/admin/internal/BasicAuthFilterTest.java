package org.balanceroute.admin.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import jakarta.ws.rs.container.ContainerRequestContext;
import jakarta.ws.rs.core.Response;
import jakarta.ws.rs.core.UriInfo;
import java.lang.reflect.Proxy;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

class BasicAuthFilterTest {

    private static final String CONSOLE = "org.apache.felix.webconsole.internal.servlet.OsgiManager";

    private final FakeConfigAdmin configs = new FakeConfigAdmin();
    private final BasicAuthFilter filter = new BasicAuthFilter(configs.service(), k -> null);

    private static String basic(String userPassword) {
        return "Basic " + Base64.getEncoder().encodeToString(userPassword.getBytes(StandardCharsets.UTF_8));
    }

    /** Runs the filter on a request; returns the response it aborted with, or null if it let it pass. */
    private Response run(String path, String authorization) {
        AtomicReference<Response> aborted = new AtomicReference<>();
        UriInfo uri = (UriInfo) Proxy.newProxyInstance(getClass().getClassLoader(), new Class<?>[] {UriInfo.class},
                (p, m, a) -> {
                    if (m.getName().equals("getPath")) {
                        return path;
                    }
                    throw new UnsupportedOperationException(m.getName());
                });
        ContainerRequestContext request = (ContainerRequestContext) Proxy.newProxyInstance(getClass().getClassLoader(),
                new Class<?>[] {ContainerRequestContext.class}, (p, m, a) -> switch (m.getName()) {
                    case "getUriInfo" -> uri;
                    case "getHeaderString" -> "Authorization".equals(a[0]) ? authorization : null;
                    case "abortWith" -> {
                        aborted.set((Response) a[0]);
                        yield null;
                    }
                    default -> throw new UnsupportedOperationException(m.getName());
                });
        filter.filter(request);
        return aborted.get();
    }

    private static void assertUnauthorized(Response r) throws Exception {
        assertEquals(401, r.getStatus());
        assertEquals("Basic realm=\"BalanceRoute admin\"", r.getHeaderString("WWW-Authenticate"));
        JsonNode e = new ObjectMapper().readTree((String) r.getEntity()).get("error");
        assertEquals("authentication_error", e.get("type").textValue());
    }

    @Test
    void defaultCredentialsAreAdminAdmin() throws Exception {
        assertNull(run("admin/policies", basic("admin:admin")));
        assertNull(run("/admin/snapshot", "basic " + Base64.getEncoder().encodeToString("admin:admin".getBytes())));
        assertUnauthorized(run("admin/policies", null));
        assertUnauthorized(run("admin/policy", basic("admin:wrong")));
        assertUnauthorized(run("admin", "Bearer xyz"));
        assertUnauthorized(run("admin/snapshot", "Basic !!!not-base64"));
    }

    @Test
    void otherPathsAreNotGuarded() {
        assertNull(run("v1/chat/completions", null));
        assertNull(run("administrator", null));
    }

    @Test
    void configuredCredentialsApplyAtOnce() throws Exception {
        configs.put(CONSOLE, Map.of("username", "ops", "password", "s3cret"));
        assertNull(run("admin/policies", basic("ops:s3cret")));
        assertUnauthorized(run("admin/policies", basic("admin:admin")));
    }

    @Test
    void anEmptyPasswordRefusesEveryone() throws Exception {
        configs.put(CONSOLE, Map.of("username", "ops", "password", ""));
        assertUnauthorized(run("admin/policies", basic("ops:")));
        assertTrue(run("health", null) == null);
    }

    @Test
    void theConsolesHashedPasswordOpensTheAdminApi() throws Exception {
        // as the console writes it back after hashing "s3cr:et" (webconsole 5.0.18)
        configs.put(CONSOLE, Map.of("username", "ops", "password",
                "{sha-256}a886c3d1f16a4fc5-1000-5Nb/D7u8ZQXLRYNFZEs1MA2BORT8oslK5TSmtECQmO8="));
        assertNull(run("admin/policies", basic("ops:s3cr:et")));
        assertUnauthorized(run("admin/policies", basic("ops:s3cr:eT")));
        assertUnauthorized(run("admin/policies", basic("admin:admin")));
    }

    @Test
    void theFormerAdminCredentialsNoLongerOpenIt() throws Exception {
        configs.put("org.balanceroute.admin", Map.of("username", "old", "password", "old"));
        configs.put(CONSOLE, Map.of("username", "ops", "password", "new"));
        assertUnauthorized(run("admin/policies", basic("old:old")));
        assertNull(run("admin/policies", basic("ops:new")));
    }

    @Test
    void anUnreadableConfigAdminRefusesEveryone() throws Exception {
        BasicAuthFilter broken = new BasicAuthFilter((org.osgi.service.cm.ConfigurationAdmin) Proxy.newProxyInstance(
                getClass().getClassLoader(), new Class<?>[] {org.osgi.service.cm.ConfigurationAdmin.class},
                (p, m, a) -> {
                    throw new java.io.IOException("disk gone");
                }), k -> null);
        assertTrue(!broken.authorized(basic("admin:admin")));
    }
}
