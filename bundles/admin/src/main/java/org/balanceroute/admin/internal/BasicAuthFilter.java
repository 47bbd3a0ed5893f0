package org.balanceroute.admin.internal;

import jakarta.ws.rs.container.ContainerRequestContext;
import jakarta.ws.rs.container.ContainerRequestFilter;
import jakarta.ws.rs.core.HttpHeaders;
import jakarta.ws.rs.core.Response;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.Base64;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;
import org.osgi.service.cm.ConfigurationAdmin;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Reference;
import org.osgi.service.component.annotations.ServiceScope;
import org.osgi.service.jakartars.whiteboard.propertytypes.JakartarsExtension;
import org.osgi.service.jakartars.whiteboard.propertytypes.JakartarsName;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * HTTP Basic authentication on {@code /admin/*}, with the {@code username} / {@code password}
 * of configuration PID {@value AdminConfig#PID} (default admin / admin), read from ConfigAdmin
 * on each admin request so a change applies at once. Any other path passes untouched, so the
 * filter can share the whiteboard application with the proxy's own API. A request without
 * valid credentials is answered 401 with {@code WWW-Authenticate: Basic realm="BalanceRoute admin"}.
 *
 * <p>An empty user name or password (or a user name containing ':') is a configuration error:
 * it is logged once, and every admin request is refused (fail closed) until it is fixed.
 * Keeps no per-request state.
 */
@Component(service = ContainerRequestFilter.class, scope = ServiceScope.PROTOTYPE)
@JakartarsExtension
@JakartarsName(BasicAuthFilter.NAME)
public final class BasicAuthFilter implements ContainerRequestFilter {

    /** The extension's {@code osgi.jakartars.name}, which the admin resources select. */
    public static final String NAME = "balanceroute.admin.auth";
    static final String SELECT = "(osgi.jakartars.name=" + NAME + ")";
    static final String REALM = "BalanceRoute admin";
    static final String CHALLENGE = "Basic realm=\"" + REALM + "\"";

    private static final Logger LOG = LoggerFactory.getLogger(BasicAuthFilter.class);
    /** The configuration problem last logged, so that each is logged once, not per request. */
    private static final AtomicReference<String> LAST_PROBLEM = new AtomicReference<>();

    private final ConfigStore configs;

    @Activate
    public BasicAuthFilter(@Reference(name = "configurationAdmin") ConfigurationAdmin configurationAdmin) {
        this.configs = new ConfigStore(configurationAdmin);
    }

    @Override
    public void filter(ContainerRequestContext request) {
        if (isAdminPath(request.getUriInfo().getPath()) && !authorized(request.getHeaderString(HttpHeaders.AUTHORIZATION))) {
            request.abortWith(unauthorized());
        }
    }

    static boolean isAdminPath(String path) {
        String p = path.startsWith("/") ? path.substring(1) : path;
        return p.equals("admin") || p.startsWith("admin/");
    }

    boolean authorized(String header) {
        byte[] expected = expected();
        if (expected == null || header == null || header.length() < 6
                || !header.regionMatches(true, 0, "Basic ", 0, 6)) {
            return false;
        }
        byte[] given;
        try {
            given = Base64.getDecoder().decode(header.substring(6).trim());
        } catch (IllegalArgumentException e) {
            return false;
        }
        return MessageDigest.isEqual(given, expected); // time independent of where the bytes differ
    }

    /** "user:password" as configured, or null (after logging why) if the configuration is invalid. */
    private byte[] expected() {
        Map<String, Object> config = configs.read(AdminConfig.PID);
        String user = text(config.get(AdminConfig.USERNAME), AdminConfig.DEFAULT_USERNAME);
        String password = text(config.get(AdminConfig.PASSWORD), AdminConfig.DEFAULT_PASSWORD);
        String problem = null;
        if (user.isEmpty() || password.isEmpty()) {
            problem = "username and password must be non-empty";
        } else if (user.indexOf(':') >= 0) {
            problem = "username must not contain ':'";
        }
        String last = LAST_PROBLEM.getAndSet(problem);
        if (problem != null) {
            if (!problem.equals(last)) {
                LOG.error("admin API: configuration {} rejected: {}; every /admin request is refused until it is fixed",
                        AdminConfig.PID, problem);
            }
            return null;
        }
        return (user + ":" + password).getBytes(StandardCharsets.UTF_8);
    }

    private static String text(Object value, String defaultValue) {
        if (value == null) {
            return defaultValue;
        }
        return value instanceof char[] chars ? new String(chars) : String.valueOf(value);
    }

    static Response unauthorized() {
        return Response.fromResponse(ErrorResponses.of(Response.Status.UNAUTHORIZED,
                        "authentication required: HTTP Basic credentials for the BalanceRoute admin API",
                        ErrorResponses.AUTHENTICATION, null))
                .header(HttpHeaders.WWW_AUTHENTICATE, CHALLENGE)
                .build();
    }
}
