package org.balanceroute.fleet;

import org.osgi.annotation.versioning.ConsumerType;

/**
 * Told the topology in force (whiteboard: register it as a service): once when it is bound, then
 * after every change that was accepted. Calls come one at a time, in order, and must not block.
 */
@ConsumerType
public interface FleetListener {

    void fleetChanged(Fleet fleet);
}
