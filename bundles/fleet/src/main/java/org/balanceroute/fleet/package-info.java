/**
 * The fleet behind the proxy, as configuration: a pool per served model (factory PID
 * {@value org.balanceroute.fleet.Fleet#FACTORY_PID}, one file per pool), its prefill instances and
 * its decode instances, each one DP group with its own barrier and its own B. Whoever needs the
 * shape reads it here ({@link org.balanceroute.fleet.FleetService}) or is told it
 * ({@link org.balanceroute.fleet.FleetListener}): the topology is written once.
 */
@Export
@Version("0.4.0")
package org.balanceroute.fleet;

import org.osgi.annotation.bundle.Export;
import org.osgi.annotation.versioning.Version;
