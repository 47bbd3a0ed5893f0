/**
 * The one set of operator credentials: the Felix web console's (PID
 * {@code org.apache.felix.webconsole.internal.servlet.OsgiManager}), read the way the console reads
 * them, so that the admin REST API and the console accept the same user and password.
 */
@Export
@Version("0.1.0")
package org.balanceroute.admin.auth;

import org.osgi.annotation.bundle.Export;
import org.osgi.annotation.versioning.Version;
