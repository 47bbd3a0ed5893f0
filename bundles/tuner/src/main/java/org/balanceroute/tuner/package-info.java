/**
 * Self-tuning from live traffic: {@link org.balanceroute.tuner.RecentRequests}, the rolling
 * record of finished requests the router feeds on its dispatch thread, which the tuner replays
 * through the simulator's {@code ParameterTuner} (the same routing core) on a thread of its own.
 */
@Export
@Version("0.1.0")
package org.balanceroute.tuner;

import org.osgi.annotation.bundle.Export;
import org.osgi.annotation.versioning.Version;
