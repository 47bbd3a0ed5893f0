package org.balanceroute.admin.internal;

import java.util.Map;
import java.util.function.UnaryOperator;
import org.balanceroute.admin.auth.ConsoleCredentials;
import org.osgi.framework.BundleContext;
import org.osgi.service.cm.ConfigurationAdmin;
import org.osgi.service.cm.ConfigurationEvent;
import org.osgi.service.cm.ConfigurationListener;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Reference;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A warning in the log at every start, and again whenever a change brings them back, while the
 * web console's default credentials (admin / admin) open the console and the admin API: an
 * operator who binds the runtime to another address sees it before anyone else finds out. The
 * credentials are read when their configuration ({@value ConsoleCredentials#PID}) exists, at
 * activation and on every change of it, so that a start before FileInstall has read the
 * {@code .cfg} file does not warn about values that are about to be replaced; a missing
 * configuration counts as the defaults once it is deleted. The warning never shows the password.
 */
@Component(service = ConfigurationListener.class, immediate = true)
public final class DefaultCredentialsWarning implements ConfigurationListener {

    private static final Logger LOG = LoggerFactory.getLogger(DefaultCredentialsWarning.class);
    static final String WARNING = "SECURITY: the web console and the admin API (/admin/*) accept the default "
            + "credentials admin / admin; set username and password in config/" + ConsoleCredentials.PID + ".cfg before"
            + " this runtime is reachable from another host";

    private final ConfigStore configs;
    private final UnaryOperator<String> frameworkProperty;
    /** Whether the defaults were in force at the last check (null: not checked yet). */
    private Boolean defaultInForce;

    @Activate
    public DefaultCredentialsWarning(@Reference(name = "configurationAdmin") ConfigurationAdmin configurationAdmin,
            BundleContext context) {
        this(configurationAdmin, context::getProperty);
        Map<String, Object> config = readQuietly();
        if (config != null && !config.isEmpty()) {
            check(config);
        }
    }

    DefaultCredentialsWarning(ConfigurationAdmin configurationAdmin, UnaryOperator<String> frameworkProperty) {
        this.configs = new ConfigStore(configurationAdmin);
        this.frameworkProperty = frameworkProperty;
    }

    @Override
    public void configurationEvent(ConfigurationEvent event) {
        if (ConsoleCredentials.PID.equals(event.getPid()) && event.getFactoryPid() == null) {
            Map<String, Object> config = event.getType() == ConfigurationEvent.CM_DELETED ? Map.of() : readQuietly();
            if (config != null) {
                check(config);
            }
        }
    }

    /** Logs the warning when the defaults have come into force; returns whether they are in force. */
    synchronized boolean check(Map<String, ?> config) {
        boolean now = ConsoleCredentials.of(config, frameworkProperty).isDefault();
        if (now && !Boolean.TRUE.equals(defaultInForce)) {
            LOG.warn(WARNING);
        }
        defaultInForce = now;
        return now;
    }

    private Map<String, Object> readQuietly() {
        try {
            return configs.read(ConsoleCredentials.PID);
        } catch (RuntimeException e) {
            return null; // BasicAuthFilter reports an unreadable configuration (and refuses every request)
        }
    }
}
