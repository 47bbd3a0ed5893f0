package org.balanceroute.fleet;

import org.osgi.annotation.versioning.ProviderType;

/** The topology in force, read at any time from any thread (no lock, no wait). */
@ProviderType
public interface FleetService {

    Fleet fleet();
}
