/**
 * Reading a component's configuration (the properties of its ConfigAdmin PID, as Declarative
 * Services or a {@code ManagedServiceFactory} hands them over) into typed, range-checked values,
 * with one failure: a {@link org.balanceroute.api.config.ConfigurationException} naming the PID,
 * the property, the value and what is allowed. Components catch it to keep their previous
 * settings (config-or-error). Plain Java; no OSGi types.
 */
@Export
@Version("1.0.0")
package org.balanceroute.api.config;

import org.osgi.annotation.bundle.Export;
import org.osgi.annotation.versioning.Version;
