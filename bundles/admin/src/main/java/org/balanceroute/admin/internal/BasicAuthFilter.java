package org.balanceroute.admin.internal;

import jakarta.ws.rs.container.ContainerRequestContext;
import jakarta.ws.rs.container.ContainerRequestFilter;
import jakarta.ws.rs.core.HttpHeaders;
import jakarta.ws.rs.core.Response;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.UnaryOperator;
import org.balanceroute.admin.auth.ConsoleCredentials;
import org.osgi.framework.BundleContext;
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
 * HTTP Basic authentication on {@code /admin/*} with the web console's credentials: the
 * {@code username} / {@code password} of PID {@value ConsoleCredentials#PID}, plain or hashed as
 * the console stores them ({@link ConsoleCredentials}), read from ConfigAdmin on each admin request
 * so that a change applies at once. One set of credentials opens the console and the admin API; an
 * operator changes one file. Any other path passes untouched, so the filter can share the
 * whiteboard application with the proxy's own API. A request without valid credentials is answered
 * 401 with {@code WWW-Authenticate: Basic realm="BalanceRoute admin"}.
 *
 * <p>Fails closed: a configuration that cannot be checked (see {@link ConsoleCredentials}), or a
 * ConfigAdmin that cannot be read, refuses every admin request; the problem is logged once, not per
 * request. The former PID {@value #FORMER_PID} is no longer read: if it is still configured, a
 * warning says so once. Keeps no per-request state.
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
    /** The admin API's own credentials before they were merged with the console's. */
    static final String FORMER_PID = "org.balanceroute.admin";

    private static final Logger LOG = LoggerFactory.getLogger(BasicAuthFilter.class);
    /** The configuration problem last logged, so that each is logged once, not per request. */
    private static final AtomicReference<String> LAST_PROBLEM = new AtomicReference<>();

    private final ConfigStore configs;
    private final UnaryOperator<String> frameworkProperty;

    @Activate
    public BasicAuthFilter(@Reference(name = "configurationAdmin") ConfigurationAdmin configurationAdmin,
            BundleContext context) {
        this(configurationAdmin, context::getProperty);
    }

    BasicAuthFilter(ConfigurationAdmin configurationAdmin, UnaryOperator<String> frameworkProperty) {
        this.configs = new ConfigStore(configurationAdmin);
        this.frameworkProperty = frameworkProperty;
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
        ConsoleCredentials credentials = credentials();
        String[] given = ConsoleCredentials.basic(header);
        return credentials != null && given != null && credentials.matches(given[0], given[1]);
    }

    /** The console's credentials, or null (after logging why, once) if they refuse everyone. */
    private ConsoleCredentials credentials() {
        String problem;
        ConsoleCredentials credentials = null;
        try {
            credentials = ConsoleCredentials.of(configs.read(ConsoleCredentials.PID), frameworkProperty);
            problem = credentials.problem();
            if (problem == null && !configs.read(FORMER_PID).isEmpty()) {
                problem = "warning: " + FORMER_PID + " is configured but no longer read";
            }
        } catch (RuntimeException e) {
            problem = "ConfigAdmin cannot be read: " + e.getMessage();
        }
        String last = LAST_PROBLEM.getAndSet(problem);
        if (problem != null && !problem.equals(last)) {
            if (problem.startsWith("warning: ")) {
                LOG.warn("admin API: {} is configured, but no longer read: /admin/* uses the web console's "
                        + "credentials ({}.cfg); delete {}.cfg and set the user and password there", FORMER_PID,
                        ConsoleCredentials.PID, FORMER_PID);
            } else {
                LOG.error("admin API: the credentials of {} cannot be used: {}; every /admin request is refused until "
                        + "they are fixed", ConsoleCredentials.PID, problem);
            }
        }
        return credentials == null || credentials.problem() != null ? null : credentials;
    }

    static Response unauthorized() {
        return Response.fromResponse(ErrorResponses.of(Response.Status.UNAUTHORIZED,
                        "authentication required: HTTP Basic credentials of the web console (the admin API and the "
                                + "console share them)",
                        ErrorResponses.AUTHENTICATION, null))
                .header(HttpHeaders.WWW_AUTHENTICATE, CHALLENGE)
                .build();
    }
}
