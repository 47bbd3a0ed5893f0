package org.balanceroute.api.config;

/**
 * A configuration property that cannot be used: its message names the PID, the property, what is
 * allowed and the value given ({@code "org.balanceroute.router: stepIntervalMillis must be an
 * integer in [0, 60000], got 60001"}). A component that gets it on an update logs the message and
 * keeps its previous settings; on activation it lets it fail the activation.
 */
public final class ConfigurationException extends IllegalArgumentException {

    private static final long serialVersionUID = 1L;

    private final String pid;
    private final String property;

    /**
     * @param allowed what the property may be, after "must be" ("an integer in [1, 16]")
     * @param value the value given, as configuration holds it
     */
    public ConfigurationException(String pid, String property, String allowed, Object value) {
        super(pid + ": " + property + " must be " + allowed + ", got " + shown(value));
        this.pid = pid;
        this.property = property;
    }

    public String pid() {
        return pid;
    }

    public String property() {
        return property;
    }

    /** Text in quotes, so that an empty or blank value is seen; anything else as it prints. */
    private static String shown(Object value) {
        if (value instanceof String s) {
            return "'" + s + "'";
        }
        if (value instanceof Object[] a) {
            return java.util.Arrays.toString(a);
        }
        return String.valueOf(value);
    }
}
