package org.balanceroute.fleet;

import org.osgi.annotation.versioning.ProviderType;

/**
 * The topology in force, read at any time from any thread (no lock, no wait). Its registration's
 * properties change at every accepted change of the topology: a reference with an {@code updated}
 * method is told.
 */
@ProviderType
public interface FleetService {

    Fleet fleet();
}
