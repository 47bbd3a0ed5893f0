package org.balanceroute.admin.internal;

import java.util.List;
import java.util.Map;

/** The tunables of every registered policy, as their bundles' metatype describes them. */
interface PolicySchemas {

    /**
     * A registered policy and its schema.
     *
     * @param name its {@code balanceroute.policy} name
     * @param pid the PID its {@code balanceroute.policy.pid} property names, or null if none
     * @param tunables its parameters in the metatype's order; empty if it has none or its
     *     bundle's metatype does not describe its PID
     */
    record PolicySchema(String name, String pid, List<Tunable> tunables) {
    }

    /** By policy name: the registered policies (for a name registered twice, the one the router uses). */
    Map<String, PolicySchema> byName();
}
