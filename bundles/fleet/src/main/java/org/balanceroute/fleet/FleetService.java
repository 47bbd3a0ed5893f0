package org.balanceroute.fleet;

import org.osgi.annotation.versioning.ProviderType;

/** The topology in force, read at any time from any thread (no lock, no wait); changes are told to the {@link FleetListener}s. */
@ProviderType
public interface FleetService {

    Fleet fleet();
}
