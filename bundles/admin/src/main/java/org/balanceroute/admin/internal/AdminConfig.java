package org.balanceroute.admin.internal;

import org.osgi.service.metatype.annotations.AttributeDefinition;
import org.osgi.service.metatype.annotations.AttributeType;
import org.osgi.service.metatype.annotations.ObjectClassDefinition;

/**
 * Credentials of the admin REST API, PID {@value #PID}. Change the defaults. The metatype
 * designates the PID directly: no component takes this configuration as its own, because a
 * component's configuration becomes its service properties, which would publish the password
 * in the service registry; {@link BasicAuthFilter} reads it from ConfigAdmin instead.
 */
@ObjectClassDefinition(pid = AdminConfig.PID, name = "BalanceRoute admin API",
        description = "HTTP Basic credentials required on /admin/*. The defaults are admin / admin, "
                + "like the Felix web console: change them.")
@interface AdminConfig {

    String PID = "org.balanceroute.admin";
    String DEFAULT_USERNAME = "admin";
    String DEFAULT_PASSWORD = "admin";
    String USERNAME = "username";
    String PASSWORD = "password";

    @AttributeDefinition(name = "User name", description = "User name for /admin/*. Non-empty; default admin.")
    String username() default DEFAULT_USERNAME;

    @AttributeDefinition(name = "Password", type = AttributeType.PASSWORD,
            description = "Password for /admin/*. Non-empty; default admin.")
    String password() default DEFAULT_PASSWORD;
}
