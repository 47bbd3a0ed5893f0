/**
 * The admin service other bundles (the web console plugin) use: the policies with their
 * metatype schema, and changes applied until in force.
 */
@Export
@Version("0.2.0")
package org.balanceroute.admin;

import org.osgi.annotation.bundle.Export;
import org.osgi.annotation.versioning.Version;
