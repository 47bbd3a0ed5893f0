package org.balanceroute.admin;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.osgi.annotation.versioning.ProviderType;

/**
 * What an operator may choose and tune, for the admin REST API and the web console alike: the
 * policies whose bundles are installed, each with its parameters as its metatype describes them
 * (read from the MetaType service, so a hot-deployed policy bundle brings its own), and changes
 * validated against that schema, written through ConfigAdmin, and answered once the router has
 * them in force.
 */
@ProviderType
public interface PolicyAdmin {

    /** The primary pool's: the policy its router uses now (the configured one, its fallback, or none). */
    String activePolicy();

    /**
     * The primary pool ({@code default}, else the first by name): the one {@link #activePolicy()}
     * and {@link #change(String, Map, Duration)} act on.
     */
    String primaryPool();

    /**
     * A pool's policy: the one its router uses now and the one it is configured with.
     *
     * @throws UnknownPoolException if the fleet has no such pool
     */
    PoolPolicy poolPolicy(String pool) throws UnknownPoolException;

    /** Every registered policy, sorted by name, with its schema and the values in force. */
    List<PolicyDescription> policies();

    /**
     * Makes {@code policy} active with the given parameters (those not given keep their values).
     * Validated first against the policy's schema: nothing is written unless every value is
     * valid. Then written through ConfigAdmin, and waited for until the router reports the
     * policy active with those values, at most {@code wait}. Changes are applied one at a time.
     *
     * <p>Values are typed as JSON types them, not parsed from text: a whole number
     * ({@code Integer}, {@code Long}) for an {@code integer} or {@code long} parameter, any
     * {@code Number} for a {@code number}, a {@code Boolean} for a {@code boolean}, a
     * {@code String} for a {@code string} (a form converts its fields by the schema's
     * {@code type} first).
     *
     * @return what is in force when it returns: {@link ChangeResult#applied()} false if the wait
     *     ran out first (the change is written and will apply)
     * @throws InvalidChangeException naming the field and what it allows; nothing was written
     * @throws IllegalStateException if ConfigAdmin could not write the change
     */
    ChangeResult change(String policy, Map<String, Object> parameters, Duration wait) throws InvalidChangeException;

    /**
     * As {@link #change(String, Map, Duration)}, for one pool: the policy is written to that pool's
     * configuration ({@code policy} of its factory configuration {@code org.balanceroute.pool~NAME};
     * for a pool without one, made from the keys of before pools, the router's {@code policy}) and
     * waited for on that pool's router. The policy's parameters are written to the policy's own PID,
     * which every pool shares.
     *
     * @throws UnknownPoolException if the fleet has no such pool; nothing was written
     * @throws InvalidChangeException naming the field and what it allows; nothing was written
     * @throws IllegalStateException if ConfigAdmin could not write the change
     */
    ChangeResult change(String pool, String policy, Map<String, Object> parameters, Duration wait)
            throws InvalidChangeException;

    /**
     * One tunable, as its metatype describes it.
     *
     * @param id the configuration property name, e.g. {@code rMax}
     * @param name a human name, e.g. {@code Stage 2 candidates}
     * @param description what it does and its range, in words
     * @param type {@code integer}, {@code long}, {@code number}, {@code boolean} or {@code string}
     * @param defaultValue the default, typed as {@code type} says
     * @param min the smallest allowed value as the metatype gives it, or null
     * @param max the largest allowed value as the metatype gives it, or null
     * @param options the allowed values (label to value) when the metatype lists them, else empty
     */
    record ParameterDescription(String id, String name, String description, String type, Object defaultValue,
            String min, String max, Map<String, String> options) {
    }

    /**
     * A registered policy.
     *
     * @param name its {@code balanceroute.policy} name
     * @param pid the configuration PID its parameters are read from, or null if it has none
     * @param parameters its schema, in the metatype's order
     * @param values its parameters' values in force (what the policy reports)
     */
    record PolicyDescription(String name, String pid, List<ParameterDescription> parameters,
            Map<String, Object> values) {
    }

    /**
     * @param applied whether the router had the change in force before the wait ran out
     * @param active the policy active when this was answered
     * @param parameters the active policy's values in force when this was answered
     * @param message what happened, for an operator
     */
    record ChangeResult(boolean applied, String active, Map<String, Object> parameters, String message) {
    }

    /**
     * @param pool the pool's name
     * @param active the policy its router uses now, or null while the pool has no router yet
     * @param configured the policy its router is configured with (the pool's own, else the router's), or
     *     null while it has no router
     */
    record PoolPolicy(String pool, String active, String configured) {
    }

    /** A change refused before anything was written. */
    class InvalidChangeException extends Exception {

        private static final long serialVersionUID = 1L;
        private final String field;

        public InvalidChangeException(String message, String field) {
            super(message);
            this.field = field;
        }

        /** The field at fault ({@code policy}, or a parameter's id), or null for the body as a whole. */
        public String field() {
            return field;
        }
    }

    /** A pool the fleet does not have; nothing was written. {@link #field()} is {@code pool}. */
    final class UnknownPoolException extends InvalidChangeException {

        private static final long serialVersionUID = 1L;

        public UnknownPoolException(String pool) {
            super("no pool '" + pool + "' (GET /admin/pools lists them)", "pool");
        }
    }
}
