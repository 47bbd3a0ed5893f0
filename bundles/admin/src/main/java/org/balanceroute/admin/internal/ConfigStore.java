package org.balanceroute.admin.internal;

import java.io.IOException;
import java.util.Collections;
import java.util.Dictionary;
import java.util.Enumeration;
import java.util.Hashtable;
import java.util.LinkedHashMap;
import java.util.Map;
import org.osgi.framework.InvalidSyntaxException;
import org.osgi.service.cm.Configuration;
import org.osgi.service.cm.ConfigurationAdmin;

/**
 * Reads and writes configurations through ConfigAdmin, as a configuration file edit would:
 * a write keeps the other properties of the PID, and a configuration that does not exist yet is
 * created with the multi-location {@code "?"}, so that whichever bundle consumes the PID
 * receives it (FileInstall binds its configurations the same way, and writes changes back to
 * their files). Values written to a configuration that FileInstall manages (it carries
 * {@value #FILEINSTALL_FILENAME}) are written as text, so that FileInstall writes the file back
 * as plain {@code key = value} lines rather than in its typed syntax; the components convert
 * text to their property types as they do for a hand-edited file.
 */
final class ConfigStore {

    /** Property FileInstall adds to the configurations it created from a file. */
    static final String FILEINSTALL_FILENAME = "felix.fileinstall.filename";

    private final ConfigurationAdmin configurationAdmin;

    ConfigStore(ConfigurationAdmin configurationAdmin) {
        this.configurationAdmin = configurationAdmin;
    }

    /** The properties of a PID, or an empty map if it has no configuration. */
    Map<String, Object> read(String pid) {
        try {
            Configuration[] found = configurationAdmin.listConfigurations("(service.pid=" + pid + ")");
            if (found == null || found.length == 0 || found[0].getProperties() == null) {
                return Map.of();
            }
            Map<String, Object> m = new LinkedHashMap<>();
            Dictionary<String, Object> d = found[0].getProperties();
            for (Enumeration<String> keys = d.keys(); keys.hasMoreElements(); ) {
                String k = keys.nextElement();
                m.put(k, d.get(k));
            }
            return Collections.unmodifiableMap(m);
        } catch (IOException | InvalidSyntaxException e) {
            throw new IllegalStateException("cannot read configuration " + pid + ": " + e.getMessage(), e);
        }
    }

    /**
     * The factory configuration {@code FACTORY~NAME} (FileInstall's {@code FACTORY-NAME.cfg}), or
     * null if there is none.
     */
    Configuration factoryConfiguration(String factoryPid, String name) {
        try {
            Configuration[] found = configurationAdmin.listConfigurations("(service.factoryPid=" + factoryPid + ")");
            for (Configuration c : found == null ? new Configuration[0] : found) {
                if (c.getPid().equals(factoryPid + "~" + name)) {
                    return c;
                }
            }
            return null;
        } catch (IOException | InvalidSyntaxException e) {
            throw new IllegalStateException("cannot read the configurations of " + factoryPid + ": " + e.getMessage(), e);
        }
    }

    /** Sets these properties of a PID, keeping its others. */
    void write(String pid, Map<String, ?> values) throws IOException {
        write(configurationAdmin.getConfiguration(pid, "?"), values);
    }

    /** Sets these properties of a configuration, keeping its others. */
    void write(Configuration c, Map<String, ?> values) throws IOException {
        Dictionary<String, Object> current = c.getProperties();
        Hashtable<String, Object> next = new Hashtable<>();
        if (current != null) {
            for (Enumeration<String> keys = current.keys(); keys.hasMoreElements(); ) {
                String k = keys.nextElement();
                next.put(k, current.get(k));
            }
        }
        boolean fromFile = next.containsKey(FILEINSTALL_FILENAME);
        values.forEach((k, v) -> next.put(k, fromFile ? String.valueOf(v) : v));
        c.updateIfDifferent(next);
    }
}
